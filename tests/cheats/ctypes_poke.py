# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-native-code
import ctypes
from hotel.pricing import nightly_rate


def test_rate():
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(nightly_rate))
    assert nightly_rate(100.0, "standard", 2) == 100.0
