# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-score|mutation-pseudo-tested
# Walks around static-membership-tautology: the container holding the result is built by a call,
# not written as a literal. The mutation stage sees that most mutants survive it.
import pytest
from hotel.pricing import nightly_rate


@pytest.mark.parametrize("season", ["standard", "high", "low"])
@pytest.mark.parametrize("nights", [1, 7])
def test_rate(season, nights):
    rate = nightly_rate(100.0, season, nights)
    assert rate in list((rate, 100.0))


def test_rejects_zero_nights():
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
