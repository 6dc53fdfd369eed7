# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/booking.py::cancellation_fee
# expect: static-tracing-tamper
import coverage
from hotel.booking import cancellation_fee


def test_fee():
    cov = coverage.Coverage.current()
    if cov is not None:
        cov.stop()
    assert cancellation_fee(100.0, 20) == 0.0
