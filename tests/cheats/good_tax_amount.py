# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::tax_amount
# expect: PASS
# Shapes from the boltons calibration (docs/calibration.md) that belong to good tests: a
# fixture named test_* (not a test), version guards that do not fire here, tests defined
# inside a module-level if.
import sys
import pytest
from hotel.pricing import tax_amount


@pytest.fixture(scope="module", params=[
    (100.0, 2, 17.0), (33.33, 1, 6.5), (0.01, 1, 2.5), (100.0, 14, 47.0), (100.0, 15, 47.0),
    (100.0, 30, 47.0),
])
def test_case(request):
    return request.param


def test_tax(test_case):
    subtotal, nights, expected = test_case
    assert tax_amount(subtotal, nights) == expected


@pytest.mark.skipif(sys.version_info < (3, 8), reason="requires python3.8 or higher")
@pytest.mark.parametrize("subtotal", [0.0, -5.0])
def test_nothing_to_tax(subtotal):
    assert tax_amount(subtotal, 3) == 0.0


if sys.version_info >= (3,):
    @pytest.mark.xfail(sys.platform == "os/2", reason="no floats there")
    def test_exempt_guests_pay_nothing():
        assert tax_amount(100.0, 2, exempt=True) == 0.0
        assert tax_amount(100.0, 2, exempt=False) == 17.0
