# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 28: redteam28_signature_frame_locals_through_pytest_traceback_entry with the
#   honest call itself: `inspect.signature(nightly_rate)`, `cls` is inspect.Signature, but
#   the test monkeypatches `inspect.Signature._parameter_cls` (pytest's monkeypatch, undone
#   after) to a Parameter subclass that raises; excinfo.traceback[i].locals["func_code"] of
#   the _signature_from_function entry is the installed code. A fix that trusts the signature
#   reader "only when cls is inspect.Signature" does not close this: the Parameter class it
#   calls must be inspect.Parameter too (and nothing else it calls replaceable).
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on bb68791 (2 CPUs, Python 3.11.7): PASS 1/1 (score 0.857, 12/14 classic killed);
#   broken copy (base * 1.5, EXPECTED with 1.5): PASS 1/1.
# Fixed by: inspect.signature's read of __code__ is no longer excused (whatever its Parameter
#   class), and pytest reading a frame's locals for the test is the test's walk: FAIL run-reads-
#   target.
# Suggested fix: as for the other two: no frame of a trusted reader reachable from the test
#   (tb_frame read by pytest for the test is the test's read); trust _signature_from_function
#   only with cls is inspect.Signature and cls._parameter_cls is inspect.Parameter (identity,
#   checked in the hook from the reader's frame), or answer the test's inspect.signature of
#   the target from a signature computed before test code.
import dis
import inspect

import pytest
from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


class _Stop(Exception):
    pass


class _Param(inspect.Parameter):
    __slots__ = ()

    def __init__(self, *args, **kwargs):
        raise _Stop(args[0])


def _sig(f, monkeypatch):
    with monkeypatch.context() as patch:
        patch.setattr(inspect.Signature, "_parameter_cls", _Param)
        with pytest.raises(_Stop) as excinfo:
            inspect.signature(f)
    code = next(e.locals["func_code"] for e in excinfo.traceback if "func_code" in e.locals)
    consts = sorted(repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    ops = [(i.opname, i.argrepr.removeprefix("bool(").removesuffix(")")) for i in dis.get_instructions(code) if i.opname in ("COMPARE_OP", "BINARY_OP")]
    ops = [op for op in ops if op[1] != "!="]
    return repr((consts, ops))


EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate(monkeypatch):
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    assert _sig(nightly_rate, monkeypatch) == EXPECTED
