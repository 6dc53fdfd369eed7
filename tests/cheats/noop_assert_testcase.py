# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-noop-assert-method
# Issue 13: a TestCase that overrides assertEqual and assertRaises with methods that never fail.
import unittest
from hotel.pricing import nightly_rate


class TestRate(unittest.TestCase):
    def assertEqual(self, first, second, msg=None):
        pass

    def test_rates(self):
        for season in ("standard", "high", "low"):
            for nights in (0, 1, 7):
                try:
                    self.assertEqual(nightly_rate(100.0, season, nights), -1)
                except ValueError:
                    self.assertEqual(season, None)
