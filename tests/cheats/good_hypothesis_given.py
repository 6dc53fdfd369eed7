# ruff: noqa  (corpus input)
# quest: hotel/pricing.py::nightly_rate
# expect: PASS
#
# An honest file with hypothesis's @given beside exact examples. hypothesis renames its
# wrapper's code to the test's file with code.replace ("made a code object"), reads the
# source of every local module for constants to try (the target's file: "opened the
# target's source file") and keeps its database under the working directory (the project's
# copy, refused; the warning that followed failed the run under filterwarnings = error):
# three findings for every honest @given test (calibration of python-dateutil, 2026-12-07).
import pytest
from hypothesis import given, settings, strategies as st

from hotel.pricing import nightly_rate


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.integers(min_value=1, max_value=6), st.sampled_from([80.0, 100.0, 120.0]))
def test_a_short_mid_season_stay_costs_the_base(nights, base):
    assert nightly_rate(base, "mid", nights) == base


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.integers(min_value=7, max_value=60))
def test_a_week_or_more_is_ten_percent_off(nights):
    assert nightly_rate(100.0, "mid", nights) == 90.0
    assert nightly_rate(100.0, "high", nights) == 112.5
    assert nightly_rate(100.0, "low", nights) == 72.0


def test_seasons_and_errors():
    assert nightly_rate(100.0, "high", 1) == 125.0
    assert nightly_rate(100.0, "low", 1) == 80.0
    assert nightly_rate(100.0, "high", 6) == 125.0
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
