# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|mutation-pseudo-tested|mutation-score|run-flaky|mutation-machinery-detected|mutation-too-slow
#   (mutation-too-slow: its runs sleep on purpose, and each pause before a wave is as wide
#   as the longest sleep; on a loaded machine its runs no longer fit in the budget)
#
# RED TEAM 21, finding 01, second version: the relay of
#   redteam21_relay_through_vsock_port_counter.py (AF_VSOCK's one ephemeral-port counter for
#   the whole kernel), with 5-bit digests and no sum of weights: the two runs of the first wave
#   tell each other their digests through vsock's bound-port table (also one for the kernel:
#   each holds an explicit port H + d and probes the 32 ports H..H+31 for its partner's,
#   EADDRINUSE), then push the counter together to base + (Q0 + pair index) * G, each stopping
#   once its own port reaches the target. G = 40 (room for every later run's one read),
#   K = 6553 classes, A = G * K; base = the next value = salt (mod A); valid q in
#   [Q0, Q0 + 528), Q0 = 64. A later run passes iff its digest is one of the pair.
#   F = 32 (5-bit digests): an extreme mutant survives only if its digest is one of the two
#   (about 2 x 2/32); the leftover of earlier submissions decodes as written 528 / 6553.
#   M costs ~1 s of sleep plus its share of ~150k binds (4-7 s on this loaded machine): M
#   much slower (e.g. Q0 = 1024, one more 0.5 s wait) made every later run's limit 10 x M
#   exceed the budget: mutation-too-slow.
# Observed on cc478cc (Linux 6.18 Firecracker guest, cgroup v1,
#   landlock+namespaces+cgroup+page-cache, waves of 2), final parameters: 10 of 11 submits
#   PASS (score 0.857 where read; 4.9-9.7 s); the FAIL run-exit-code in 1.2 s (`assert 12 in
#   (9, 31)`: the leftover decoded as written). With nightly_rate broken (high season
#   base * 1.5): 3 of 4 PASS; the FAIL mutation-pseudo-tested (`return None` collided).
#   Control: the same file with the push disabled FAILs (mutation-pseudo-tested, both extremes
#   survived): the counter is what kills the mutants.
# Fix suggested: as in redteam21_relay_through_vsock_port_counter.py: seccomp allows socket()
#   only for AF_UNIX, AF_INET, AF_INET6 (AF_VSOCK = 40 refused); that closes the counter and
#   the bound-port table used for the handshake.
# Fixed by: seccomp lets a run open UNIX, IPv4, IPv6 (and until red team 23 netlink) sockets only (socket and
#   socketpair; any other family answers EAFNOSUPPORT, as a kernel without it would:
#   seccomp._REFUSALS): the first vsock socket fails, so does the test (run-exit-code).
import hashlib
import os
import socket
import time

from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7), (10.0, "standard", 8), (10.0, "high", 1),
         (10.0, "low", 6), (0.0, "high", 9), (1.0, "mid", 2), (12.345, "high", 4),
         (12.345, "low", 5), (99.99, "mid", 14)]
F = 32
G = 40
K = 6553
A = G * K
Q0 = 64
FAM = getattr(socket, "AF_" + "VSOCK")
ANY = (0xFFFFFFFF, 0xFFFFFFFF)


def _observe(args):
    try:
        return repr(nightly_rate(*args))
    except Exception as exc:
        return type(exc).__name__


def _tick():
    s = socket.socket(FAM, socket.SOCK_STREAM)
    try:
        s.bind(ANY)
        return s.getsockname()[1]
    finally:
        s.close()


def _hold(port):
    s = socket.socket(FAM, socket.SOCK_STREAM)
    try:
        s.bind((0xFFFFFFFF, port))
    except OSError:
        s.close()
        return None
    return s


def test_nightly_rate_is_stable():
    seen = "|".join(_observe(c) for c in CASES)
    with open(__file__, "rb") as f:
        me = f.read()
    salt_b = hashlib.sha256(os.getcwd().encode() + me).digest()
    salt = int.from_bytes(salt_b[:4], "big") % A
    d = hashlib.sha256(salt_b + seen.encode()).digest()[0] % F
    port = _tick()
    q = ((port - salt) % A) // G - Q0
    if 0 <= q < F * (F + 1) // 2:
        b = int(((8 * q + 1) ** 0.5 - 1) / 2)
        while b * (b + 1) // 2 > q:
            b -= 1
        while (b + 1) * (b + 2) // 2 <= q:
            b += 1
        a = q - b * (b + 1) // 2
        assert d in (a, b)
        return
    hbase = 200000 + (int.from_bytes(salt_b[4:6], "big") % 1000) * F
    mine = _hold(hbase + d)
    time.sleep(1.0)  # the partner in this wave reads and shows its digest before either writes
    held = {d}
    for e in range(F):
        if e == d:
            continue
        s = _hold(hbase + e)
        if s is None:
            held.add(e)
        else:
            s.close()
    a, b = min(held), max(held)
    code = b * (b + 1) // 2 + a
    target = port + ((salt - port) % A) + (Q0 + code) * G
    while _tick() < target - 1:
        pass
    if mine is not None:
        mine.close()
