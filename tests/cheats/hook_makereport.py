# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-pytest-hooks
import pytest
from hotel.pricing import nightly_rate


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome = "passed"


def test_rate():
    assert nightly_rate(100.0, "high", 7) == 1.0
