# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|mutation-pseudo-tested|mutation-score|run-flaky
#
# RED TEAM 23, finding 02: a relay through the neighbour tables' statistics, counters of the
#   whole kernel that any network namespace reads and moves with NETLINK_ROUTE, which the
#   filter allows (AF_NETLINK, protocol 0). No ctypes, no exec, no /proc path.
#   - read: RTM_GETNEIGHTBL (dump) answers each table's NDTA_STATS (struct ndt_stats: allocs,
#     destroys, lookups, hits, res_failed, gc runs, ...) and NDTA_CONFIG (ndtc_entries):
#     neightbl_fill_info() sums the per-CPU stats of the global arp_tbl / nd_tbl, whatever the
#     caller's namespace (only the per-device parms are filtered by namespace);
#   - write: RTM_GETNEIGH (the doit, neigh_get) for ::1 on lo calls neigh_lookup(&nd_tbl),
#     which adds one to ndts_lookups, found or not; 1024 requests go in one send (the answers
#     may overflow the receive buffer, the count does not care): 1.5 million a second.
#     (arp_cache's lookups also move with ioctl(SIOCGARP) on any AF_INET socket, no netlink:
#     +300 for 300 calls in a run; ioctl is allowed whatever its request.)
#   ndisc_cache's lookups stood at 0 after 20 min of uptime here: nothing else moves it.
#   Relay (base = sha256(cwd + this file) mod A, A = 2^20; x = (lookups - base) mod A; d = one
#   of 100 digests of the answers on 18 inputs; G = 2 tolerates 1 stray lookup), under a flock
#   of os.py (every run can open it; fcntl.flock raises no event the guard checks) so the two
#   runs of a wave take turns: x in [G, R) (R = 101 G): one digest written, the first wave's
#   other run, add R(1 + d), pass; x in [R, 101 R) with x mod R >= G: both written, pass iff d
#   is one of the two; otherwise nothing written, the first wave's first run: add (A - x) mod A
#   (up to a million lookups, 0.7 s at most), then G(1 + d), pass. A stale state decodes as
#   written 1.9% of the time.
# Observed on a21b02d (Linux 6.18.44 Firecracker guest, 2 CPUs, uid 0, cgroup v1,
#   landlock+namespaces+cgroup+page-cache, waves of 2, Python 3.11.7), this file (G = 2,
#   D = 100): PASS 9 of 9 submits (6 in fresh copies of the project, scores 0.857-1.0, 1.0 when
#   the null mutant was M's partner, 2.9-3.2 s a submit; 3 through submit_n.sh); with nightly_rate broken (high season
#   base * 1.5): PASS 3 of 3 (0.923-1.0). An earlier version (G = 8, D = 40): PASS 10 of 11
#   (5 in fresh copies; the FAIL: `return 0.0`'s digest collided, 2 in 40), 3 of 3 broken.
#   The survivors are the first wave's mutant (it writes) and its behavioural twins. Control:
#   the file without its two writes FAILs (mutation-pseudo-tested). The test states no
#   expected value.
# Fix suggested: refuse AF_NETLINK sockets in runs (socket, socketpair: EAFNOSUPPORT, as for
#   the other families): the run's lo is brought up by its init, not by the run, and glibc's
#   getaddrinfo falls back when the socket fails. A filter on message types is not possible
#   (they travel in sendmsg's payload), and other NETLINK_ROUTE answers are global as well.
#   The SIOCGARP write path stays (ioctl) but has nothing left to read it with: /proc/net/stat
#   is absent in runs; keep it so.
# Fixed by: a run may open UNIX, IPv4 and IPv6 sockets only (seccomp._REFUSALS): netlink
#   answers EAFNOSUPPORT, so the first read fails, and so does the test (run-exit-code).
import fcntl
import hashlib
import os
import socket
import struct

from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7), (10.0, "standard", 8), (10.0, "high", 1),
         (10.0, "low", 6), (0.0, "high", 9), (1.0, "mid", 2), (12.345, "high", 4),
         (12.345, "low", 5), (99.99, "mid", 14)]
G, D = 2, 100  # a digit's step (1 stray lookup tolerated), 100 digests
R = G * (D + 1)  # the second digit's unit
A = 1 << 20  # the counter is read modulo A, from a point of this submission's own


def _observe(args):
    try:
        return repr(nightly_rate(*args))
    except Exception as exc:
        return type(exc).__name__


def _netlink():
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)  # NETLINK_ROUTE, allowed
    s.bind((0, 0))
    return s


def _attrs(b):
    out = {}
    while len(b) >= 4:
        length, kind = struct.unpack("HH", b[:4])
        if length < 4:
            break
        out[kind & 0x7FFF] = b[4:length]
        b = b[(length + 3) & ~3:]
    return out


def _lookups():
    """The ndisc neighbour table's lookup count: one counter of the whole kernel (RTM_GETNEIGHTBL
    answers the table's stats in every network namespace)."""
    s = _netlink()
    try:
        s.send(struct.pack("IHHII", 20, 66, 0x301, 1, 0) + struct.pack("BBH", 0, 0, 0))
        while True:
            data = s.recv(1 << 16)
            while data:
                length, kind = struct.unpack("IH", data[:6])
                if kind in (2, 3):
                    raise LookupError("no ndisc_cache stats")
                a = _attrs(data[20:length])
                if a.get(1, b"").rstrip(b"\0") == b"ndisc_cache" and 7 in a:
                    return struct.unpack("5Q", a[7][:40])[4]  # ndts_lookups
                data = data[(length + 3) & ~3:]
    finally:
        s.close()


def _add(n):
    """Move the counter on by n: RTM_GETNEIGH for ::1 on lo, each one neigh_lookup(&nd_tbl)."""
    dst = socket.inet_pton(socket.AF_INET6, "::1")
    body = struct.pack("BBHiHBB", 10, 0, 0, 1, 0, 0, 0) + struct.pack("HH", 20, 1) + dst
    one = struct.pack("IHHII", 16 + len(body), 30, 1, 0, 0) + body
    s = _netlink()
    s.setblocking(False)
    try:
        while n > 0:
            k = min(n, 1024)
            s.send(one * k)
            n -= k
            try:
                while True:
                    s.recv(1 << 20)
            except OSError:
                pass
    finally:
        s.close()


def test_nightly_rate_is_stable():
    seen = "|".join(_observe(c) for c in CASES)
    with open(__file__, "rb") as f:
        salt = hashlib.sha256(os.getcwd().encode() + f.read()).digest()
    base = int.from_bytes(salt[:4], "big") % A
    d = hashlib.sha256(salt + seen.encode()).digest()[0] % D
    with open(os.__file__, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # one run of a wave at a time
        x = (_lookups() - base) % A
        if G <= x < R:  # one digest written: the first wave's other run
            _add(R * (1 + d))
            ok = True
        elif R <= x < R * (D + 1) and x % R >= G:  # both written: a later run
            ok = d in (x % R // G - 1, x // R - 1)
        else:  # nothing written: the first wave's first run
            _add((A - x) % A + G * (1 + d))
            ok = True
    assert ok
