# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/booking.py::cancellation_fee
# expect: static-process-exit
# The exit hides in a string run by exec: the string is parsed and checked like the file.
from hotel.booking import cancellation_fee


def test_fee():
    for days in (0, 1, 3, 14):
        cancellation_fee(100.0, days)
    cancellation_fee(100.0, 1, refundable=False)
    assert cancellation_fee(100.0, 20) == 0.0
    exec("import os\nos._exit(0)")
