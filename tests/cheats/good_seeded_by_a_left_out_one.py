# ruff: noqa  (corpus input)
# quest: hotel/pricing.py::nightly_rate
# expect: PASS
#
# An honest file whose tests depend on their order (red team 69): the first, which names
# nothing reaching the target and is left out of the selected runs, seeds random for the
# second. Without it the draw fails at random: a clean control after the measuring run or the
# null mutant failed with the selected tests, and that was final (run-flaky or
# mutation-machinery-detected, 5 of 22). Now such a phase runs again with every test.
import random

import pytest

from hotel.pricing import nightly_rate


def test_a_seed_the_generator():
    # The suite's first test seeds the generator so that sampled cases are repeatable.
    random.seed(20261207)
    assert random.getstate() is not None


def test_sampled_long_stay():
    nights = random.randint(1, 40)  # 10 with the seed above: a long stay
    assert nightly_rate(100.0, "mid", nights) == 90.0


def test_seasons():
    assert nightly_rate(100.0, "high", 1) == 125.0
    assert nightly_rate(100.0, "low", 1) == 80.0
    assert nightly_rate(100.0, "mid", 1) == 100.0
    assert nightly_rate(100.0, "mid", 6) == 100.0
    assert nightly_rate(100.0, "high", 7) == 112.5
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
