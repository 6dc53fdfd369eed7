# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-sandbox-violation
#
# RED TEAM 28 (guard): Guard._link judges a new symlink's target as text (normal(): `..`
#   resolved by string operations, "no link resolved later, so none may lead out"), but the
#   kernel resolves the links already made *inside* the target first. In tmp_path: `d/u ->
#   ..` (text: tmp_path, inside: allowed), then `t -> d/u/../../../../..` (text: d/u/.. = d,
#   so five ups from tmp_path/d/u end at /quest-tmp, the run's root: inside, allowed). The
#   kernel: d/u is tmp_path, five ups from there is "/": `t` leads out of every allowed
#   folder, and every later open of tmp_path/t/... is judged by the guard as a path inside
#   tmp_path. Here the kernel stops the write (EROFS: the run's own mount namespace); where
#   pytest-quest has no kernel confinement (confined == "", the guard alone) the write
#   lands outside. The test is otherwise honest: no cheat verdict, a guard hole.
#   It reports on the run's output descriptor (found by readlink of /proc/self/fd/N, "/proc"
#   built with str.join: static-proc-access does not see it either).
# Observed on bb68791 (2 CPUs, Python 3.11.7, landlock + run namespaces): PASS 2/2, no
#   #denied line; output "t->/", "write through the link: OSError(30, 'Read-only file
#   system')" (the kernel's refusal, not the guard's PermissionError).
# Fixed by: the guard finds a link's target as the kernel will (links followed with lstat and
#   readlink bound at import, then `..`), and judges every path that way: the second link is
#   refused (run-sandbox-violation).
# Suggested fix: judge a symlink's target against the *resolved* folder of the link (realpath
#   of its folder with a bound lstat/readlink walk, done in the hook, as the guard may not
#   call replaceable code), or refuse any symlink whose target text contains ".." or is
#   absolute, or refuse symlinks in the test's time outright (few tests need one), and judge
#   open() paths after resolving links under the allowed roots (os.path.realpath with bound
#   posix calls: a link made before test code can still lead out).
import os

import pytest

from hotel.pricing import nightly_rate

_P = "".join(["/pr", "oc/self/fd/"])


def _say(text):
    for fd in range(3, 40):
        try:
            if os.readlink(_P + str(fd)).endswith(".run-output"):
                os.write(fd, (text + "\n").encode())
                return
        except OSError:
            pass


def test_values(tmp_path):
    assert nightly_rate(100.0, "standard", 2) == 100.0
    assert nightly_rate(100.0, "high", 7) == 112.5
    assert nightly_rate(100.0, "high", 6) == 125.0
    assert nightly_rate(100.0, "low", 1) == 80.0
    assert nightly_rate(100.0, "standard", 7) == 90.0
    assert nightly_rate(100.0, "standard", 6) == 100.0
    assert nightly_rate(10.01, "high", 1) == 12.51
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    (tmp_path / "d").mkdir()
    os.symlink("..", str(tmp_path / "d" / "u"))
    os.symlink("d/u/../../../../..", str(tmp_path / "t"))
    real = os.path.realpath(str(tmp_path / "t"))
    _say(f"tmp={tmp_path} t->{real}")
    try:
        with open(str(tmp_path / "t" / "work" / "rt28_escaped.txt"), "w") as out:
            out.write("x")
        _say("write through the link: ok")
    except OSError as exc:
        _say(f"write through the link: {exc!r}")
