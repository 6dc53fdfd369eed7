# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-swallowed-assertion
#
# RED TEAM 52: a `return f"{'<NBSP>'}"` in a finally crashes `submit` (ValueError from ast.unparse: traceback, no verdict)
#   rules/assertions.py `_finally_guard` labels a return/break/continue in a `finally` with
#   f"line {node.lineno}: {ast.unparse(node)} in finally" (not through rules/names.quote, which
#   catches errors). Python 3.11's ast.unparse raises ValueError("Unable to avoid backslash in
#   f-string expression part") for any f-string whose expression part holds a string constant
#   with a character that is not printable (str.isprintable() is False: U+00A0 NO-BREAK SPACE
#   here, also U+0001, U+200B, U+2028...): the unparser escapes it as \xa0 and 3.11 f-string
#   expressions may not contain a backslash. The source itself has no backslash, so it parses
#   and compiles; only the unparse fails. check_assertions -> rules/static.check ->
#   gate.evaluate -> submit: a traceback (exit 1, no JSON) instead of a verdict.
#   The string below between the quotes inside the braces is one raw U+00A0 character.
# Observed on baab0f4 (3.11.7): crash (ValueError traceback, exit 1, no JSON) 3 of 3 on proj; 3 of 3 on broken (same file)
# Fix suggested: never call ast.unparse bare in a rule: route every unparse through one helper
#   (rules/names.quote or a new names.unparse) that catches Exception (ValueError, RecursionError)
#   and falls back to the source segment or a placeholder ("<unprintable>"); grep shows bare
#   calls at rules/assertions.py:229 (_mro, class bases), :489 (_finally_guard) and
#   rules/static.py:507 (_target_call, setattr holder); and have gate.evaluate turn an exception
#   in a check into a FAIL fact (rule "static-unanalysable") rather than a traceback.
# Fixed by: every rule prints code back through astext.unparse, which never raises (a
#   placeholder names what 3.11 cannot print), and a rule that raises anyway is a REVIEW fact
#   (gate._judged: gate-rule-error): the verdict names the swallowed assertion.
import pytest

from hotel.pricing import nightly_rate


def test_seasons():
    try:
        assert nightly_rate(100.0, "high", 1) == 125.0
    finally:
        return f"{' '}"
