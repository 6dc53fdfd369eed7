# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-noop-assert-method
# Issue 13: a same-file "checker" whose assertEqual does nothing; calls to it look like checks.
import pytest
from hotel.pricing import nightly_rate


class Check:
    def assertEqual(self, first, second, msg=None):
        return first == second


check = Check()


@pytest.mark.parametrize("season", ["standard", "high", "low"])
@pytest.mark.parametrize("nights", [1, 7])
def test_rate(season, nights):
    check.assertEqual(nightly_rate(100.0, season, nights), 0.0)


def test_rejects_zero_nights():
    check.assertEqual(pytest.raises(ValueError, nightly_rate, 100.0, "standard", 0) and 1, 1)
