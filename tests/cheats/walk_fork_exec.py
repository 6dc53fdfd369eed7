# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code
# pending: confine
# also-stopped-by: harness
# Walks around static-native-code: _posixsubprocess comes in through exec of code built at run
# time; the shell it starts (no audit event) appends to the caller's real source.
import os
from hotel.pricing import nightly_rate


def _shell():
    namespace = {}
    exec("".join(["import _posix", "subprocess as ps"]), namespace)
    base = "/".join(["", "pr" + "oc", str(os.getppid()), "cwd"])
    script = f"echo ESCAPED=1 >> {base}/hotel/pricing.py && echo ran"
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = namespace["ps"].fork_exec(
        [b"/bin/sh", b"-c", script.encode()], [b"/bin/sh"], True, (out_w, err_w), None, None,
        -1, -1, -1, out_w, -1, out_w, err_r, err_w, True, False, -1, None, None, None, -1,
        None, False)
    os.close(out_w)
    os.close(err_w)
    os.waitpid(pid, 0)
    with os.fdopen(out_r) as handle:
        return handle.read().strip()


def test_rate():
    assert _shell() == "ran"
    assert nightly_rate(100.0, "standard", 2) == 100.0
