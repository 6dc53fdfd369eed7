# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|mutation-pseudo-tested|mutation-score|run-flaky|mutation-machinery-detected|mutation-too-slow
#   (mutation-too-slow: its runs sleep on purpose, and each pause before a wave is as wide
#   as the longest sleep; on a loaded machine its runs no longer fit in the budget)
#
# RED TEAM 21, finding 01: a relay through AF_VSOCK's ephemeral port counter.
#   net/vmw_vsock/af_vsock.c, __vsock_bind_connectible: `static u32 port;` one counter for the
#   whole kernel (vsock knows no network namespace), moved on by one at every bind to
#   VMADDR_PORT_ANY of a stream or seqpacket vsock socket, in any netns, by any uid. A run
#   *reads* it (getsockname of the port it got) and *adds* to it (bind, close: 1 each, about
#   18 us). Nothing else on this machine binds vsock: between two reads by hand it moved by
#   exactly the reads. No seccomp rule (socket family 40, protocol 0), no Landlock right, no
#   audit-hook rule (the guard looks at socket.connect/sendto, never bind).
#   Layout: r = (port - salt) mod A, q = r // G, A = 4096 * G, G = 64 (room for every run's one
#   read after the writes); salt from the sandbox's cwd and this file (one per submission).
#   Written means q is a weight 200 + m_d or the sum of two (m a 16-mark Golomb ruler: every
#   sum of two is one pair); d = a 4-bit digest of the answers. A run that sees a written q
#   passes iff its d is in it. Otherwise it is in the first wave (M and one mutant): sleep so
#   the partner reads too, both push the counter to the next value = salt mod A (each stops
#   once its own port reaches it), then each adds (200 + m_d) * G.
# Observed on cc478cc (this VM: Linux 6.18 Firecracker guest, /dev/vsock present, cgroup v1,
#   isolation landlock+namespaces+cgroup+page-cache, waves of 2): 6 of 10 submits PASS (one
#   PASS with G = 256, A = 1024 * G); the FAILs: 4 x mutation-pseudo-tested (`return None` or
#   `return 0.0` survived: an extreme mutant's 4-bit digest fell on d_M or on the first-wave
#   mutant's, about 1 in 4 with two extremes). With nightly_rate broken (high season
#   base * 1.5 instead of 1.25): 3 of 4 PASS; the FAIL run-exit-code in 1.6 s (the counter's
#   leftover happened to decode as written: about 152 / 4096). A host-side poller saw the
#   counter still between submits and move by 2 before the first wave, ~250k during its
#   writes, then by one per later run (23 reads after the writes).
#   See redteam21_relay_through_vsock_port_counter_paired.py for the version that passes
#   10 of 11.
# Fix suggested: seccomp in every run refuses socket() (and socketpair()) for every address
#   family but AF_UNIX, AF_INET, AF_INET6 (and AF_NETLINK for NETLINK_ROUTE if needed): AF_VSOCK
#   (40) has no network namespace at all (one port counter, one bound-port table for the
#   kernel), and any other family the kernel may autoload is a shared table of the same kind.
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
RULER = [0, 1, 4, 11, 26, 32, 56, 68, 76, 115, 117, 134, 150, 163, 168, 177]
W = [200 + m for m in RULER]
G = 64
A = 4096 * G
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


def _decode(q):
    for i, w in enumerate(W):
        if q == w:
            return {i}
    for i, a in enumerate(W):
        for j in range(i, len(W)):
            if q == a + W[j]:
                return {i, j}
    return None


def test_nightly_rate_is_stable():
    seen = "|".join(_observe(c) for c in CASES)
    with open(__file__, "rb") as f:
        me = f.read()
    salt_b = hashlib.sha256(os.getcwd().encode() + me).digest()
    salt = int.from_bytes(salt_b[:4], "big") % A
    d = hashlib.sha256(salt_b + seen.encode()).digest()[0] % len(W)
    port = _tick()
    written = _decode(((port - salt) % A) // G)
    if written is not None:
        assert d in written
        return
    time.sleep(1.5)  # the partner in this wave reads before either writes
    target = port + ((salt - port) % A)  # the next value = salt (mod A)
    while _tick() < target - 1:
        pass
    for _ in range(W[d] * G):
        _tick()
