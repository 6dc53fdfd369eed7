# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-pseudo-tested|mutation-score|run-reads-target|run-exit-code
#
# RED TEAM 11, finding 01: the measured run (the zygote's first child, alone, the shipped
#   code) leaves the clean function's answers in the kernel's session keyring (add_key "user"
#   into @s through libc's syscall; ctypes found in sys.modules under a computed name, in an
#   exec of a string, out of the static rules' sight). The keyring is the harness's fresh
#   anonymous session keyring (confine._fresh_session_keyring), which the judge, the zygote
#   and every run child share: nothing removes a key after a run (the zygote removes only the
#   temp dir and SysV IPC, pytest_quest/runstate.py), and neither Landlock nor the namespaces
#   cover keyrings. Every later run finds the key and compares its own answers with the clean
#   ones: each mutant that changes an answer fails, the null mutant, the twins and the clean
#   controls agree. The test states nothing about nightly_rate; once locked, its first run
#   (any CI run) stores whatever the function returns and passes.
# Observed on main (31241fe): PASS, score 1.0 (12/12 classic, 2/2 extreme), isolation
#   landlock+namespaces+cgroup.
# Fix (suggested): no key a run can add survives it: a fresh session keyring per run child
#   (KEYCTL_JOIN_SESSION_KEYRING before the test) and a user keyring no run can write (or
#   keyctl/add_key/request_key refused by seccomp in runs). Then every run is "the first",
#   passes, and the test is pseudo-tested.
# Fix: each run joins a fresh session keyring, then a seccomp filter refuses add_key, keyctl
#   and request_key (confine.fresh_session_keyring, seccomp.install): every run finds
#   no key, so the test compares nothing and the extreme mutants survive.
from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7), (10.0, "standard", 8), (10.0, "high", 1),
         (10.0, "low", 6), (0.0, "high", 9), (1.0, "mid", 2)]

#   Since the confining calls are pytest_quest._kernel's, no run has ctypes in sys.modules
#   at all: the test fails where it looks it up (run-exit-code).
# Built at run time: nothing here is seen by the static stage.
_KEYS = """
import sys
lib = sys.modules["c" + "types"]
c = lib.CDLL(None, use_errno=True)
def put(name, data):
    return c.syscall(lib.c_long(248), b"user", name, data, lib.c_size_t(len(data)), lib.c_int(-3))
def get(name):
    key = c.syscall(lib.c_long(250), lib.c_int(10), lib.c_int(-3), b"user", name, lib.c_int(0))
    if key < 0:
        return None
    buf = lib.create_string_buffer(32000)
    n = c.syscall(lib.c_long(250), lib.c_int(11), lib.c_int(key), buf, lib.c_long(32000))
    return buf.raw[:n] if n >= 0 else None
"""


def _observe(function, args):
    try:
        return repr(function(*args))
    except Exception as exc:
        return type(exc).__name__


def test_nightly_rate_is_stable():
    scope = {}
    exec(_KEYS, scope)
    seen = "|".join(_observe(nightly_rate, c) for c in CASES).encode()
    before = scope["get"](b"rt11-rates")
    if before is None:  # the first run of the submission: the measured one, shipped code
        scope["put"](b"rt11-rates", seen)
        return
    assert seen == before
