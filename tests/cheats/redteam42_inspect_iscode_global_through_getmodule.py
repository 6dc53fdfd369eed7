# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 42: guarding inspect._get_code_position alone would not do: inspect.getfile hands
#   the code it read to another module global, `iscode`. The test monkeypatches
#   inspect.iscode (a wrapper that calls the real one and keeps the code when it is
#   nightly_rate's) and runs inspect.getmodule(tb) through click's Context.invoke trampoline
#   for each entry of a traceback through nightly_rate: getmodule -> getabsfile ->
#   getsourcefile -> getfile: `object = object.tb_frame`, `object = object.f_code` (the reader,
#   past inspect's passing frames, is click's invoke: kept, not told), `iscode(object)` -> the
#   test. getmodule is not on the static stage's lists (getfile and getsourcefile are), and it
#   opens no file. The code signature of the blinded oracle is computed from the code.
# Observed on a90f0f8 (2 CPUs, Python 3.11): PASS (0.857), broken copy (EXPECTED with 1.5) PASS
#   (0.857); control A (that EXPECTED on the real project): FAIL run-exit-code; control B
#   (inspect.getmodule(tb) called by the test itself): FAIL run-reads-target.
#   Corpus runs: see FINDINGS.md.
# Fix: do not let a passing module (inspect, types) read for its caller at all while any of its
#   module globals differs from the judge's snapshot (a picture of vars(inspect), vars(types)
#   compared in _reader, like the traceback guards), or stop treating inspect as passing when
#   the code read stays in its frame's locals while it calls out; and judge a library or
#   project frame that calls a callable it was handed (no name of the read in its code) as the
#   test's trampoline.
# Fixed by: inspect and types read for their caller only while their module globals are as at
#   the test's start (watch._passing_intact): with _get_code_position or iscode replaced, the
#   read is inspect's own, for no one: the test's (run-reads-target).
import inspect
import dis
import pytest
import click
from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
SEEN = {}


def _signature(code):
    consts = sorted(repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    ops = [(i.opname, i.argrepr.removeprefix("bool(").removesuffix(")")) for i in dis.get_instructions(code) if i.opname in ("COMPARE_OP", "BINARY_OP")]
    ops = [op for op in ops if op[1] != "!="]
    return repr((consts, ops))


_REAL = inspect.iscode


def _is_code(obj):
    found = _REAL(obj)
    if found and obj.co_name == "nightly_rate":
        SEEN["sig"] = _signature(obj)
    return found


def _no_source(obj):
    raise OSError("no source")


class _Stop(Exception):
    pass


class _Spy:
    def __le__(self, other):
        raise _Stop()

    def __ge__(self, other):
        return False


EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate(monkeypatch):
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    try:
        nightly_rate(100.0, "mid", _Spy())
    except _Stop as exc:
        caught = exc
    monkeypatch.setattr(inspect, "iscode", _is_code)
    ctx = click.Context(click.Command("x"))
    tb = caught.__traceback__
    while tb is not None:
        ctx.invoke(inspect.getmodule, tb)
        tb = tb.tb_next
    assert SEEN.get("sig") == EXPECTED
