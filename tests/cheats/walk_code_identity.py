# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-pseudo-tested|run-reads-target|static-reflective-access
# pending: harness
# Walks around static-reads-target-code: the code object is read under a computed attribute name
# at import, and the oracle is the function rebuilt from it. With the mutant in place before the
# test module is imported, the copy is the mutant too, and the oracle kills nothing.
import types
import pytest
from hotel.pricing import nightly_rate

CODE = getattr(nightly_rate, "".join(["__co", "de__"]))
GLOBALS = getattr(nightly_rate, "".join(["__glo", "bals__"]))


@pytest.mark.parametrize("season", ["standard", "high", "low"])
@pytest.mark.parametrize("nights", [1, 6, 7])
def test_rate(season, nights):
    oracle = types.FunctionType(CODE, GLOBALS)
    assert nightly_rate(100.0, season, nights) == oracle(100.0, season, nights)


def test_rejects_zero_nights():
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
