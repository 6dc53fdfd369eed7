# quest: src/humanize/number.py::_format_not_finite
import math

import humanize
from humanize.number import _format_not_finite


def test_nan_and_both_infinities_have_names():
    assert _format_not_finite(math.nan) == "NaN"
    assert _format_not_finite(-math.inf) == "-Inf"
    assert _format_not_finite(math.inf) == "+Inf"
    assert _format_not_finite(float("-nan")) == "NaN"


def test_a_finite_number_has_no_name():
    assert _format_not_finite(0.0) == ""
    assert _format_not_finite(-1e308) == ""
    assert _format_not_finite(1e308) == ""


def test_the_public_formatters_use_these_names():
    assert humanize.intcomma(math.inf) == "+Inf"
    assert humanize.intword(-math.inf) == "-Inf"
    assert humanize.apnumber(math.nan) == "NaN"
    assert humanize.clamp(math.inf) == "+Inf"
