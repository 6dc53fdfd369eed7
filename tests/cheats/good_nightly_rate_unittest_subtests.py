# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: PASS
#
# An honest unittest TestCase whose values are checked in subTests only: a subtest failure
# is a failure in every run (red team 52: outside the measuring run only the item's own
# reports counted, so this test killed 3 of 20 mutants and FAILed mutation-score).
import unittest

from hotel.pricing import nightly_rate


class TestRate(unittest.TestCase):
    def test_subtests(self):
        cases = [(100.0, "high", 1, 125.0), (100.0, "low", 1, 80.0), (100.0, "mid", 1, 100.0),
                 (100.0, "mid", 7, 90.0), (100.0, "mid", 6, 100.0), (100.0, "high", 7, 112.5)]
        for base, season, nights, expected in cases:
            with self.subTest(season=season, nights=nights):
                self.assertEqual(nightly_rate(base, season, nights), expected)

    def test_error(self):
        with self.assertRaises(ValueError):
            nightly_rate(100.0, "high", 0)
