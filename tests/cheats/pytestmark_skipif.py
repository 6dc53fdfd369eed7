# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/booking.py::cancellation_fee
# expect: run-skipped
# A condition crafted to be true in the sandbox: a skipif with a real condition is left to
# the run stage, which fails every test that actually skipped (docs/rules.md, static-skip).
import sys
import pytest
from hotel.booking import cancellation_fee

pytestmark = pytest.mark.skipif(sys.version_info > (3,), reason="old python only")


def test_fee():
    assert cancellation_fee(100.0, 20) == 1234.0
