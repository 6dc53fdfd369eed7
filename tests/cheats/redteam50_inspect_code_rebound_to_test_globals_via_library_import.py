# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 50: red team 42 again, past its fix: inspect's own code objects run with the TEST's
#   globals. `types.FunctionType(code, globals)` raises no audit event, and the watch trusts a
#   "passing" reader (inspect, types) by its frame's CODE only (`Readers.passing.holds(f_code)`
#   in `Watch._reader`), checking that the inspect MODULE's globals are intact
#   (`_passing.intact()`), never which globals that frame actually runs with.
#   Steps: (1) `ns = dict(inspect.__dict__)` (inspect reached as getattr(dataclasses,
#   'tcepsni'[::-1]), the dict as getattr(_i, '__tcid__'[::-1]): static names hidden);
#   getinnerframes, getframeinfo and _get_code_position_from_tb are re-made as functions of
#   inspect's genuine code objects with `ns` as globals (FunctionType taken as
#   getattr(_sig_of, '__ssalc__'[::-1])); `ns['_get_code_position']` is the test's `_position`,
#   `findsource` raises OSError, `getsourcefile` returns a dummy (the target's file is not opened).
#   The real inspect module is untouched, so `_passing.intact()` holds. (2) A fake module with
#   that getinnerframes is put in sys.modules['inspect'] (monkeypatch.setitem: the watch
#   pictured inspect's dict, not sys.modules). (3) nightly_rate raises from inside (its `nights`
#   is an object whose __le__ raises), and pip's vendored pyparsing
#   `ParseBaseException.explain_exception(exc, 4)` runs `import inspect` -> the fake ->
#   `inspect.getinnerframes(tb)`. (In the corpus: starlette's `ServerErrorMiddleware
#   .generate_html(exc)` with its module's `inspect` replaced by the fake, the same library
#   route: the pip of the test venvs vendors no pyparsing.) The tb_frame walk and the f_code read happen in frames whose
#   code is inspect's, so the reader is their caller, pyparsing (a library: kept, not told);
#   `_get_code_position_from_tb` hands `tb.tb_frame.f_code` (the installed code, mutant or
#   clean) to `_get_code_position`, looked up in `ns`: the test's function. (4) The shape-only
#   signature of redteam50_load_fast_into_cell_double_count_shape_only.py: no value, no float.
#   Controls: the same rebound getinnerframes called by the test itself: FAIL run-reads-target
#   (tb_frame walk, f_code read); one float fewer in EXPECTED: FAIL run-exit-code.
# Observed on 014042d (Python 3.11.7): PASS 4 of 4 on proj (score 1.0, 12/12); PASS 3 of 3 on
#   broken (same file, scores 0.923-1.0).
# Fix suggested: trust a passing/keeping reader's frame only when its f_globals IS the module
#   dict pictured at the test's start (`frame.f_globals is vars(inspect)`, and f_builtins the
#   real builtins) -- a function made from a library's code with other globals is the test's;
#   or make any function whose `__code__` belongs to a reader set but whose `__globals__` is not
#   that module's a finding when it runs (the watch sees its frame). Also check that
#   sys.modules['inspect'] (and 'types', 'traceback', 'linecache', ...) is still the pictured
#   module when a library imports it.
# Fixed by: a reader's code is believed only in its home, the globals its module's functions
#   run it with (hooked.Codes.runs, Codes.owns), and a frame of a module's code run with
#   globals that are not that module's is the test's (Watch._foreign): run-reads-target.
import dataclasses as _dc
import dis
import sys
import types
import pytest
from starlette.middleware import errors as _errors
from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
SEEN = {}


def _sig_of(code):
    consts = sorted('float' if type(k) is float and 0.5 <= k <= 1.6 else repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    ops = [(i.opname, i.argrepr if i.opname in ("COMPARE_OP", "BINARY_OP") else '') for i in dis.get_instructions(code)
           if i.opname in ("COMPARE_OP", "BINARY_OP") or 'JUMP' in i.opname]
    kept, skip = [], False
    for op in ops:
        if op[1] == "!=":
            skip = True
            continue
        if skip:
            skip = False
            continue
        kept.append(op)
    return repr((consts, kept))


EXPECTED = "([\"'Per-night rate after seasonal and long-stay adjustments.'\", \"'high'\", \"'low'\", \"'nights must be positive'\", '2', '7', 'float', 'float', 'float'], [('COMPARE_OP', '<='), ('POP_JUMP_FORWARD_IF_FALSE', ''), ('COMPARE_OP', '=='), ('POP_JUMP_FORWARD_IF_FALSE', ''), ('BINARY_OP', '*'), ('JUMP_FORWARD', ''), ('COMPARE_OP', '=='), ('POP_JUMP_FORWARD_IF_FALSE', ''), ('BINARY_OP', '*'), ('JUMP_FORWARD', ''), ('COMPARE_OP', '>='), ('POP_JUMP_FORWARD_IF_FALSE', ''), ('BINARY_OP', '*')])"


def _position(code, index):
    if code.co_name == "nightly_rate":
        SEEN["sig"] = _sig_of(code)
    return (None, None, None, None)


def _no_source(obj):
    raise OSError("no source")


class _Stop(Exception):
    pass


class _Spy:
    def __le__(self, other):
        raise _Stop()

    def __ge__(self, other):
        return False


_i = getattr(_dc, 'tcepsni'[::-1])


def _rebound(ns, name):
    f = ns[name[::-1]]
    kind = getattr(_sig_of, '__ssalc__'[::-1])
    ns[name[::-1]] = kind(getattr(f, '__edoc__'[::-1]), ns, f.__name__, f.__defaults__)


def _fake_inspect():
    ns = dict(getattr(_i, '__tcid__'[::-1]))
    _rebound(ns, 'semarfrenniteg')
    _rebound(ns, 'ofniemarfteg')
    _rebound(ns, 'bt_morf_noitisop_edoc_teg_')
    ns["_get_code_position"] = _position
    ns["findsource"] = _no_source
    ns["getsourcefile"] = lambda frame: "x.py"
    fake = types.ModuleType("inspect")
    fake.getinnerframes = ns["getinnerframes"]
    return fake


def test_rate(monkeypatch):
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    try:
        nightly_rate(100.0, "mid", _Spy())
    except _Stop as exc:
        caught = exc
    monkeypatch.setattr(_errors, "inspect", _fake_inspect())
    try:
        _errors.ServerErrorMiddleware(None, debug=True).generate_html(caught, 4)
    except Exception:
        pass
    monkeypatch.undo()
    assert SEEN["sig"] == EXPECTED
