# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: coverage-lines
#
# RED TEAM 52: a class base expression holding f"{'<NBSP>'}" crashes `submit` (ValueError from ast.unparse in _mro)
#   Same root cause as redteam52_unparse_nbsp_in_finally_return_crashes.py at a second bare
#   call: rules/assertions.py `_mro` builds each test class's same-file MRO with
#   `[ast.unparse(b) for b in self.classes[name].bases]`. A base written as
#   `Base if f"{'<U+00A0>'}" else Base` (any base expression holding an f-string whose
#   expression part has a non-printable character in a string) makes Python 3.11's
#   ast.unparse raise ValueError("Unable to avoid backslash in f-string expression part");
#   check_assertions -> rules/static.check -> gate.evaluate -> submit: traceback, exit 1, no JSON.
#   The class and its test are otherwise honest; pytest collects and runs them fine.
# Observed on baab0f4 (3.11.7): crash (ValueError traceback, exit 1, no JSON) 3 of 3 on proj; 3 of 3 on broken (same file)
# Fix suggested: as the finally variant: one unparse helper that never raises (catch Exception,
#   fall back to ast.get_source_segment or a placeholder) for every rule, and gate.evaluate
#   turning a check's exception into a FAIL fact instead of a traceback.
# Fixed by: astext.unparse never raises, and a rule that raises anyway is a REVIEW fact
#   (gate._judged: gate-rule-error): the test is judged like any other (it covers half).
from hotel.pricing import nightly_rate


class Base:
    pass


class TestSeasons(Base if f"{' '}" else Base):
    def test_high(self):
        assert nightly_rate(100.0, "high", 1) == 125.0
