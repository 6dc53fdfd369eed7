# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 42: the same gadget as redteam42_inspect_code_position_global_via_library_caller.py
#   (inspect hands the code it reads to its module global `_get_code_position`, which the test
#   monkeypatched), with the plainest library caller there is: a trampoline. click's
#   Context.invoke(callback, *args) just calls `callback(*args)`; the test hands it
#   inspect.getframeinfo (not on the static stage's list: only stack/trace/getouterframes/
#   getinnerframes are) and each entry of a traceback that runs through nightly_rate
#   (walked with tb_next, which raises no event). getframeinfo(tb, 0) ->
#   _get_code_position_from_tb reads tb.tb_frame.f_code in inspect's frame; past the passing
#   frames the reader is click's `invoke` (site-packages): kept, not told; context=0 reads no
#   source. Any library function that calls a callable it is given makes the test's call "a
#   library's".
# Observed on a90f0f8 (2 CPUs, Python 3.11): PASS (0.923), broken copy (EXPECTED with 1.5) PASS
#   (0.857); control A (that EXPECTED on the real project): FAIL run-exit-code; control B
#   (inspect.getframeinfo(tb, 0) called by the test itself): FAIL run-reads-target (tb_frame
#   walk, f_code read). Corpus runs: see FINDINGS.md.
# Fix: as for the pyparsing file (guard inspect's module globals that receive the code, or do
#   not let inspect pass for its caller while they are not the originals); and a library frame
#   that only calls what it was handed (no name of the read in its code: `_names`) is a
#   trampoline: judge the read as the test's, as the watch does for C callables
#   (`_for_someone_else`) but past passing frames too.
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


def _position(code, index):
    if code.co_name == "nightly_rate":
        SEEN["sig"] = _signature(code)
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
    monkeypatch.setattr(inspect, "_get_code_position", _position)
    ctx = click.Context(click.Command("x"))
    tb = caught.__traceback__
    while tb is not None:
        ctx.invoke(inspect.getframeinfo, tb, 0)
        tb = tb.tb_next
    assert SEEN.get("sig") == EXPECTED
