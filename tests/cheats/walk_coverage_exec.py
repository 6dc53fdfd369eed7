# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-report-tampered|run-flaky
# pending: harness
# (run-flaky: when pytest-quest's own suite measures itself with branch coverage, the later runs
# find that collector instead, add_lines fails there and the test fails its clean controls.)
# Walks around static-tracing-tamper and static-reflective-access: coverage is imported by code
# built at run time and run by exec; the lines the test never ran are added to the data being
# measured.
import pytest
from hotel import pricing
from hotel.pricing import nightly_rate


def test_rate():
    namespace = {}
    exec("".join(["import cov", "erage as c"]), namespace)
    measuring = namespace["c"].Coverage.current()
    if measuring is not None:
        measuring.get_data().add_lines({pricing.__file__: list(range(1, 40))})
    assert nightly_rate(100.0, "high", 7) == 112.5
    assert nightly_rate(100.0, "low", 1) == 80.0
    assert nightly_rate(100.0, "standard", 6) == 100.0
