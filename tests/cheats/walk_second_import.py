# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|mutation-pseudo-tested
# pending: harness
# Walks around static-reads-target-code: the source file's name is joined at run time, its text
# read and run again as a second copy of the module, which no mutant ever reaches. Only a run
# that watches what the test opens and compiles sees it.
import os
import pytest
from hotel import pricing
from hotel.pricing import nightly_rate

_folder = os.path.dirname(pricing.__file__)
_name = "".join(["pri", "cing", ".", "py"])
with open(os.path.join(_folder, _name), encoding="utf-8") as _handle:
    _namespace = {}
    exec(_handle.read(), _namespace)
COPY = _namespace["nightly_rate"]


@pytest.mark.parametrize("season", ["standard", "high", "low"])
@pytest.mark.parametrize("nights", [1, 6, 7])
def test_rate(season, nights):
    assert nightly_rate(100.0, season, nights) == COPY(100.0, season, nights)


def test_rejects_zero_nights():
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
