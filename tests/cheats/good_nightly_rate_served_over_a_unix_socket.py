# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: PASS
# An honest test of a kind real projects have: the function behind a small server on an
# AF_UNIX socket in pytest's tmp_path, under a long test name. A socket's path may not exceed
# 107 bytes; beneath the sandbox's scratch folder it did not fit ("AF_UNIX path too long",
# run-exit-code, a false FAIL): each run's temp dir is now a short path of its own.
import socket
import threading

import pytest
from hotel.pricing import nightly_rate


def _serve(server):
    connection, _ = server.accept()
    with connection:
        base, season, nights = connection.recv(256).decode().split()
        try:
            answer = repr(nightly_rate(float(base), season, int(nights)))
        except ValueError as exc:
            answer = f"error: {exc}"
        connection.sendall(answer.encode())


def _ask(path, request):
    with socket.socket(socket.AF_UNIX) as client:
        client.connect(str(path))
        client.sendall(request.encode())
        return client.recv(256).decode()


@pytest.mark.parametrize(("request_line", "expected"), [
    ("100.0 standard 2", "100.0"), ("100.0 high 6", "125.0"), ("100.0 high 7", "112.5"),
    ("100.0 low 1", "80.0"), ("100.0 standard 7", "90.0"), ("10.01 high 1", "12.51"),
    ("100.0 standard 0", "error: nights must be positive"),
])
def test_the_rate_served_over_a_unix_socket_in_tmp_path_is_the_rate(tmp_path, request_line,
                                                                     expected):
    path = tmp_path / "pricing-service.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        server.listen()
        worker = threading.Thread(target=_serve, args=(server,))
        worker.start()
        assert _ask(path, request_line) == expected
        worker.join()
