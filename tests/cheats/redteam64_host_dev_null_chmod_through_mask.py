# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code
#
# RED TEAM 64: an honest-looking test whose child process changes the mode of the HOST's
#   /dev/null through the read-write bind that masks /etc/shadow (a write outside the sandbox).
#   `confine._build_root` masks `_MASKED` files and `internals_files()` with read-write binds of
#   the caller's /dev/null; `enter_run`'s `_read_only_but` leaves them read-write. A child
#   `chmod` (no audit hook: `runparts.Guard` does not see it; chmod/fchmodat pass seccomp; no
#   Landlock right for modes) succeeds for a root caller: this file does a no-op `chmod 0666`
#   (the host's /dev/null ctime moved, `stat /dev/null` outside the gate); `chmod 000` in a run
#   would break /dev/null for the whole machine, `touch -d` sets its times (see
#   redteam64_relay_through_host_dev_null_mask.py). The in-process `os.utime`/`os.chmod` on
#   the same path is refused by the guard; only the child gets through.
# Observed on 70f5cbe (Python 3.11.7): PASS 3 of 3 on proj (host /dev/null ctime changed each time); not a
#   value-free test (it checks honest values): the win is the write outside the sandbox
# Fix suggested: bind the masks read-only (remount each with MS_RDONLY|MS_BIND|MS_REMOUNT in
#   `_build_root`), or mask with an empty file of a read-only tmpfs; have `enter_run` make
#   read-only every mount the run need not write, found from /proc/self/mountinfo.
# Fixed by: the masks (the host's /dev/null bound over /etc/shadow and the interpreter's test
#   modules) and the devices bound into /dev are read-only binds from the start
#   (confine._build_root): a device is still written, its mode and times are refused (EROFS).
#   tests/test_forkrun.py: test_each_run_is_a_fresh_process... (`times`).
# pending: runns
import os
import subprocess

import pytest

from hotel.pricing import nightly_rate


def test_seasons():
    # a no-op chmod of the host's /dev/null (0666 -> 0666): it proves the right, changes nothing
    r = subprocess.run(["chmod", "0666", "/etc/shadow"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert nightly_rate(100.0, "high", 1) == 125.0
    assert nightly_rate(100.0, "low", 1) == 80.0
    assert nightly_rate(100.0, "mid", 1) == 100.0
    assert nightly_rate(100.0, "mid", 7) == 90.0
    assert nightly_rate(100.0, "mid", 6) == 100.0
    assert nightly_rate(100.0, "high", 7) == 112.5
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
