# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-sandbox-violation|run-exit-code
#
# RED TEAM 11, finding 02: the measured run leaves the clean function's answers as an extended
#   attribute on pytest's capture file. The judge's pytest starts fd capturing (a deleted
#   temp file in the harness's tmpfs, dup2'ed onto fd 1 and 2 while a test runs) before the
#   zygote is forked, so every run child shares that one inode. Landlock governs no xattr (nor
#   utime, chmod) and the file is already open: `os.setxattr(1, "user.note", ...)` in the
#   measured run (the zygote's first child, alone, shipped code), `os.getxattr(1, ...)` in every
#   later run. pytest truncates the file's content between tests, never its attributes. No
#   ctypes, no exec, no /proc, no path: no static rule, guard or watch notices. Each mutant that
#   changes an answer fails; the null mutant, twins and clean controls agree. The test states
#   nothing about nightly_rate; once locked, its first run stores whatever it returns.
# Observed on main (31241fe): PASS, score 1.0 (12/12 classic, 2/2 extreme), isolation
#   landlock+namespaces+cgroup.
# Fix (suggested): no object a run can write outlives it: each run child gets capture files of
#   its own (fresh temp files, or fd 1/2 re-opened per run), and nothing else the judge opened
#   is inherited writable; or setxattr/fsetxattr/utime refused in runs (seccomp).
# Fix: the sandbox guard judges a descriptor by the file it is open on (os.setxattr on fd 1:
#   run-sandbox-violation), and a seccomp filter refuses every xattr call in runs (ctypes
#   too): seccomp.install.
import os

from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7), (10.0, "standard", 8), (10.0, "high", 1),
         (10.0, "low", 6), (0.0, "high", 9), (1.0, "mid", 2)]


def _observe(function, args):
    try:
        return repr(function(*args))
    except Exception as exc:
        return type(exc).__name__


def test_nightly_rate_is_stable():
    seen = "|".join(_observe(nightly_rate, c) for c in CASES).encode()
    try:
        before = os.getxattr(1, "user.note")  # fd 1: pytest's capture file, shared by all runs
    except OSError:  # the first run of the submission: the measured one, shipped code
        os.setxattr(1, "user.note", seen)
        return
    assert seen == before
