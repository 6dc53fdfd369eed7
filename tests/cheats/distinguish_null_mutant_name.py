# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-reads-target-code
# Issue 13, run-distinguishers: the null mutant carries a recognisable local name; pass it and
# the unmutated code, fail everything else, and every mutant "dies" while the test checks little.
import pytest
from hotel.pricing import nightly_rate

ORIGINAL = nightly_rate.__code__.co_code


def _mutated():
    code = nightly_rate.__code__
    return code.co_code != ORIGINAL and "__pytest_quest_null__" not in code.co_varnames


@pytest.mark.parametrize("season", ["standard", "high", "low"])
@pytest.mark.parametrize("nights", [1, 6, 7])
def test_rate(season, nights):
    assert not _mutated()
    assert nightly_rate(100.0, season, nights) > 0


def test_rejects_zero_nights():
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
