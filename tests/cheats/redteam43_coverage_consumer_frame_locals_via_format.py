# ruff: noqa
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 43: a consumer's frame (coverage's) holds the installed code in a local; the test
#   makes it raise there and takes the frame from the traceback through a library.
#   - click's Context.invoke calls inspect.getinnerframes for "a library": the frames of a
#     traceback come back to the test with no finding (the known residual: a library takes
#     frames while no holder is on the stack). First: nightly_rate's own frame (ValueError).
#   - coverage.context.qualname_from_frame(frame) is coverage's code: a consumer, so its read
#     of frame.f_code is "for itself" (_for_itself -> _intact: True), neither a holder nor a
#     kept reader. It keeps the code in the local `co`, then formats f"{func.__module__}..."
#     where func is the target function from the module's globals: the test stored its own
#     object in nightly_rate.__module__ (no audit event), whose __format__ raises.
#   - the coverage frame survives in that exception's traceback; click + getinnerframes hand
#     it to the test; its f_locals["co"] (no event) is the run's installed code: a mutant's.
#   - the oracle: the blinded oracle's code signature (constants, operators), computed
#     outside from the shipped source. No expected value of the function anywhere.
#   - static: names reversed ([::-1]), sys.modules and inspect reached through click's globals.
# Observed on 367771b (Python 3.11, 2 CPUs): PASS 1 of 1 (score 0.8) then PASS 3 of 3
#   (submit_n); with the function broken (base * 1.5, the signature taken from that source):
#   PASS 1 of 1 (score 0.857).
# Fix (suggested): a consumer's read of the target's code is "for itself" only while the
#   consumer runs for its own machinery (coverage's tracer/callbacks, our hooks), not when
#   the test (or a library for it) calls a consumer function; or track the frame of every
#   reader that read the target's code (consumers too) like a kept reader, so a traceback
#   that hands it out is a finding (_holds_a_reader); and f_locals of a frame taken through a
#   library is as good as its code.
# Fixed by: coverage.py's dynamic-context functions (coverage.context) are no consumer of ours:
#   qualname_from_frame is a library's reader there, its frame a holder once it read the
#   target's code, and the traceback that hands it out later a walk (run-reads-target).
import dis

import click
import click.core
import click._compat

from hotel.pricing import nightly_rate

_MODULES = getattr(getattr(click._compat, "sys"[::-1][::-1]), "seludom"[::-1])
_CTX = _MODULES["txetnoc.egarevoc"[::-1]]
_LOCALS = "slacol_f"[::-1]
_INNER = getattr(getattr(click.core, "tcepsni"[::-1]), "semarfrenniteg"[::-1])


def _frames(tb):
    # click's Context.invoke calls inspect for "a library": the frames come back, no finding
    with click.Context(click.Command("x")) as ctx:
        return [info[0] for info in ctx.invoke(_INNER, tb, 0)]


class _Out(Exception):
    pass


class _Boom:
    def __format__(self, spec):
        raise _Out()


def _code(frame, func):
    saved = func.__module__
    func.__module__ = _Boom()
    try:
        getattr(_CTX, "emarf_morf_emanlauq"[::-1])(frame)
    except _Out as exc:
        caught = exc
    finally:
        func.__module__ = saved
    return getattr(_frames(caught.__traceback__)[1], _LOCALS)["oc"[::-1]]


_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


def _signature(code):
    consts = sorted(repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    ops = [(i.opname, i.argrepr.removeprefix("bool(").removesuffix(")")) for i in dis.get_instructions(code) if i.opname in ("COMPARE_OP", "BINARY_OP")]
    ops = [op for op in ops if op[1] != "!="]
    return repr((consts, ops))


EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    try:
        nightly_rate(100.0, "high", 0)
    except ValueError as exc:
        caught = exc
    frame = _frames(caught.__traceback__)[-1]
    assert _signature(_code(frame, nightly_rate)) == EXPECTED
