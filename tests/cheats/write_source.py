# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-source-write
from pathlib import Path
import hotel.pricing
from hotel.pricing import nightly_rate


def test_rate():
    source = Path(hotel.pricing.__file__)
    source.write_text(source.read_text() + "\n# touched\n")
    assert nightly_rate(100.0, "standard", 2) == 100.0
