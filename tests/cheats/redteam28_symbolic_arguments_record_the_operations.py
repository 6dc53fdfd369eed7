# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: PASS
#
# RED TEAM 28 (grey zone, for the maintainers to decide; "expect" is today's verdict): a
#   symbolic oracle that reads no code at all. nightly_rate is called with objects of a class
#   of the test whose operator methods record (receiver, operator, operand) and answer the
#   comparisons from a script: `nights <= 0` hands `0` and "<=", `base * 1.25` hands 1.25,
#   `round(rate, 2)` hands 2. The recorded trace *is* the code signature (every constant
#   and operator on the path the script chooses), written out from the source: no value of
#   the function is checked (only one real call, for the ValueError), yet every classic
#   mutant dies. No audit event, no static fact: nothing for the watch to see.
# Observed on bb68791 (2 CPUs, Python 3.11.7): PASS 1/1 (score 1.0, 12/12 classic killed);
#   broken copy (base * 1.5, traces with 1.5): PASS 1/1; the broken traces against the
#   unbroken project: FAIL (the trace decides).
# Suggested: if a test must check values, a static (REVIEW) rule for arguments of the target
#   that are instances of classes the test defines with arithmetic/comparison dunders
#   (__mul__, __le__, __eq__ ... recording what they receive), or a run-time one (the
#   recorder's `types`: the target called with a type defined in the test module for a
#   parameter annotated float/int/str).
# Decided (docs/mutation.md, "Tests that record what the function does"): allowed. The test
#   drives the function with objects of its own and checks what the function does to them,
#   in order: an interaction test, as strict as a mock's call list. It reads no code, and a
#   function whose operations change (a bug among them) fails it. It stays in the corpus as
#   a PASS so that a future rule that blocks it is a decision, not an accident.
import pytest
from hotel.pricing import nightly_rate


class _Sym:
    """Records every operation the function applies to it; comparisons answer from a script."""

    def __init__(self, name, trace, answers):
        self.name, self.trace, self.answers = name, trace, answers

    def _op(self, op, other):
        self.trace.append((self.name, op, repr(other)))
        return _Sym(f"({self.name}{op}{other!r})", self.trace, self.answers)

    def _cmp(self, op, other):
        self.trace.append((self.name, op, repr(other)))
        return self.answers.pop(0) if self.answers else False

    __mul__ = lambda s, o: s._op("*", o)
    __rmul__ = lambda s, o: s._op("r*", o)
    __truediv__ = lambda s, o: s._op("/", o)
    __add__ = lambda s, o: s._op("+", o)
    __sub__ = lambda s, o: s._op("-", o)
    __round__ = lambda s, n=None: s._op("round", n)
    __eq__ = lambda s, o: s._cmp("==", o)
    __ne__ = lambda s, o: s._cmp("!=", o)
    __lt__ = lambda s, o: s._cmp("<", o)
    __le__ = lambda s, o: s._cmp("<=", o)
    __gt__ = lambda s, o: s._cmp(">", o)
    __ge__ = lambda s, o: s._cmp(">=", o)
    __hash__ = object.__hash__


def _trace(answers):
    trace = []
    script = list(answers)
    try:
        result = nightly_rate(_Sym("b", trace, script), _Sym("s", trace, script), _Sym("n", trace, script))
        trace.append(("=", getattr(result, "name", repr(result))))
    except ValueError as exc:
        trace.append(("raise", str(exc)))
    return trace


def test_rate_operations():
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    assert _trace([True]) == [("n", "<=", "0"), ("raise", "nights must be positive")]
    assert _trace([False, True, True]) == [
        ("n", "<=", "0"), ("s", "==", "'high'"), ("b", "*", "1.25"), ("n", ">=", "7"),
        ("(b*1.25)", "*", "0.9"), ("((b*1.25)*0.9)", "round", "2"), ("=", "(((b*1.25)*0.9)round2)")]
    assert _trace([False, False, True, False]) == [
        ("n", "<=", "0"), ("s", "==", "'high'"), ("s", "==", "'low'"), ("b", "*", "0.8"),
        ("n", ">=", "7"), ("(b*0.8)", "round", "2"), ("=", "((b*0.8)round2)")]
    assert _trace([False, False, False, False]) == [
        ("n", "<=", "0"), ("s", "==", "'high'"), ("s", "==", "'low'"), ("n", ">=", "7"),
        ("b", "round", "2"), ("=", "(bround2)")]
