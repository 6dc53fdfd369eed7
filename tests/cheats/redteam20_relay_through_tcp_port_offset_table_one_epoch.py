# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|mutation-pseudo-tested|mutation-score|run-flaky|mutation-machinery-detected|mutation-too-slow
#
# RED TEAM 20, finding 01, first draft (no carriers): the same channel as
#   redteam20_relay_through_tcp_port_offset_table.py, the kernel's TCP ephemeral-port offset
#   table (`table_perturb`, whole machine, not per netns): connecting to 127.0.0.1:P reads the
#   counter P hashes to (getsockname) and moves it on by 2..16. One reference port, a tag port
#   and 64 slot ports (per submission: hashed from the sandbox's cwd and this file); "marked"
#   means (x_port - x_ref) mod 28232 near a fixed gap. Every run reads all 66 (so all drift
#   alike). A run that sees the tag passes iff its 6-bit digest's slot is marked; otherwise
#   (the first wave: M and one mutant) it sleeps 2 s for its partner to read, then marks its
#   slot and the tag. It ignores the kernel's reshuffle of the offsets every 10 s (jiffies in
#   the hash): a submit that outlives a reshuffle after the first wave wrote usually FAILs.
# Observed on 1651483 (host, cgroup v1, isolation landlock+namespaces+cgroup+page-cache):
#   7 of 8 submits PASS (0.706-0.923), with nightly_rate broken (base * 1.5) 2 of 2 PASS (1.0,
#   0.857); the FAIL: run-flaky, passed 1/5 clean runs.
# Red team 20's later version, which rewrites its marks across the kernel's 10 s reshuffle
#   (timed from /proc/timer_list), passed 5 of 6 submits. Fix suggested: in each run's network
#   namespace, no shared table for the runs' connections (a source address of the run's own for
#   loopback connections, and IP_BIND_ADDRESS_NO_PORT refused), or a port range too narrow to
#   read an offset in.
# Fixed: each run's network namespace has a port range of a width drawn for it alone
#   (confine._ephemeral_ports_of_its_own), a socket may not set a range of its own
#   (IP_LOCAL_PORT_RANGE refused) and no run makes a user namespace (where a network namespace
#   of its own would have the default width again). The port is then low + (counter + h) %
#   width with h a secret hash: another run's width leaves the residue a reader sees unknown.
#   This file now reads its own range (as an attacker who read the fix would) and stops
#   pushing after a full turn. Observed on cc478cc: 4 of 4 submits FAIL, on three rules:
#   mutation-machinery-detected and run-flaky (a run took noise for a mark and failed on the
#   clean source), mutation-pseudo-tested (every run saw no mark, wrote its own and passed);
#   45-60 s a submit, every run sleeping 2 s for a partner that never reads its marks. Under
#   the suite's own coverage tracer on a slow machine (CI, Python 3.11) those sleeps pushed the
#   mutation stage past its budget: mutation-too-slow, a FAIL that spends the try as well.
import hashlib
import os
import socket
import struct
import time

from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7), (10.0, "standard", 8), (10.0, "high", 1),
         (10.0, "low", 6), (0.0, "high", 9), (1.0, "mid", 2), (12.345, "high", 4),
         (12.345, "low", 5), (99.99, "mid", 14)]
# The run's own ip_local_port_range (the default of a fresh network namespace was 32768-60999
# when this relay worked); read under a name the static /proc rule does not see.
with open(bytes.fromhex("2f70726f63").decode() + "/sys/net/ipv4/ip_local_port_range") as _f:
    _low, _high = map(int, _f.read().split())
LOW, SPAN = _low, (_high + 1 - _low) & ~1
SLOTS = 64
CENTER, MARK, ACCEPT = 9000, 90, 400
LINGER = struct.pack("ii", 1, 0)


def _observe(args):
    try:
        return repr(nightly_rate(*args))
    except Exception as exc:
        return type(exc).__name__


class _Table:
    """One position of the kernel's table of ephemeral-port offsets per destination port."""

    def __init__(self):
        self.listeners = {}

    def read(self, port):
        lst = self.listeners.get(port)
        if lst is None:
            lst = socket.socket()
            lst.bind(("127.0.0.1", port))
            lst.listen(16)
            self.listeners[port] = lst
        c = socket.socket()
        c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, LINGER)
        c.connect(("127.0.0.1", port))
        x = c.getsockname()[1] - LOW
        c.close()
        a, _ = lst.accept()
        a.close()
        return x


def _signed(d):
    return (d - CENTER + SPAN // 2) % SPAN - SPAN // 2


def test_nightly_rate_is_stable():
    seen = "|".join(_observe(c) for c in CASES)
    with open(__file__, "rb") as f:
        me = f.read()
    salt = hashlib.sha256(os.getcwd().encode() + me).digest()
    base = 2000 + int.from_bytes(salt[:2], "big") % 20000
    ref, tag = base, base + 1
    slots = [base + 2 + i for i in range(SLOTS)]
    v = hashlib.sha256(salt + seen.encode()).digest()[0] % SLOTS
    t = _Table()
    r0 = t.read(ref)
    marks = {p: abs(_signed(t.read(p) - r0)) <= ACCEPT for p in [tag, *slots]}
    if marks[tag]:  # the first wave has written
        assert marks[slots[v]]
        return
    time.sleep(2.0)  # the partner in this wave reads before either writes
    for p in (slots[v], tag):
        r = t.read(ref)
        for _ in range(SPAN):  # each read moves the counter on by 2 to 16: a full turn at most
            if abs(_signed(t.read(p) - r)) <= MARK:
                break
