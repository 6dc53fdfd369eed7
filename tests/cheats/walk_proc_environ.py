# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code
# pending: confine
# also-stopped-by: harness
# Walks around static-proc-access: the path is joined at run time. The caller's environment
# lands in the failure message, hence in the facts, the ledger and the attempts log. Confined,
# the caller's process is invisible: the open fails, and nothing leaks.
import os
from hotel.pricing import nightly_rate


def test_rate():
    path = "/".join(["", "pr" + "oc", str(os.getppid()), "environ"])
    with open(path, "rb") as handle:
        environment = [v for v in handle.read().split(b"\0") if v]
    assert not environment, environment
    assert nightly_rate(100.0, "standard", 2) == 100.0
