# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code
# pending: confine
# also-stopped-by: harness
# Walks around static-native-code and static-reflective-access: the import is code built at run
# time and run by exec, then libc writes the canary next to the caller's project (no audit event
# for a libc write).
import os
from hotel.pricing import nightly_rate


def _libc_write():
    namespace = {}
    exec("\n".join(["import " + "c" "types as ct", "libc = ct.CDLL(None, use_errno=True)"]),
         namespace)
    libc = namespace["libc"]
    base = "/".join(["", "pr" + "oc", str(os.getppid()), "cwd"])
    fd = libc.open(os.path.join(base, "..", "canary.txt").encode(), int("1") | int("512"))
    if fd < 0:
        return "refused"
    libc.write(fd, b"pwned", 5)
    libc.close(fd)
    return "wrote"


def test_rate():
    assert _libc_write() == "wrote"
    assert nightly_rate(100.0, "standard", 2) == 100.0
