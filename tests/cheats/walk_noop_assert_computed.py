# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-score|mutation-pseudo-tested
# Walks around static-noop-assert-method: the no-op assertEqual is put on a class built with a
# computed method name. Behind the static rule, the mutation stage sees that the tests let
# most mutants survive.
import pytest
from hotel.pricing import nightly_rate

Check = type("Check", (), {"".join(["assert", "Equal"]): lambda self, a, b: None})
check = Check()


@pytest.mark.parametrize("season", ["standard", "high", "low"])
@pytest.mark.parametrize("nights", [1, 7])
def test_rate(season, nights):
    check.assertEqual(nightly_rate(100.0, season, nights), 0.0)


def test_rejects_zero_nights():
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
