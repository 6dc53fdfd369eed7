# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-proc-access
# Issue 13, escapes: /proc/<ppid>/environ hands the caller's secrets to the test, and a failing
# assert carries them into the facts, the ledger and the attempts log (committed to git).
import os
from hotel.pricing import nightly_rate


def test_rate():
    with open(f"/proc/{os.getppid()}/environ", "rb") as handle:
        secrets = [v for v in handle.read().split(b"\0") if v and not v.startswith(b"PYTHON")]
    assert not secrets, secrets
    assert nightly_rate(100.0, "standard", 2) == 100.0
