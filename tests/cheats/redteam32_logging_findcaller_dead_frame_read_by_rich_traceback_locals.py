# ruff: noqa
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 32, finding 05: a trusted holder's dead frame, read by a library for the test.
#   - logging's Logger.findCaller (a consumer and holder, trusted by code identity) is called
#     from the test's `__le__` (which the target calls) with stacklevel=2: it walks f_back to the
#     target's frame and does `co = f.f_code` (quiet: a consumer). Then `if stack_info:` asks
#     the test's _Flag, whose `__bool__` raises: findCaller's frame dies with `co` in its locals,
#     kept by the exception's traceback. The holder rule only covers *live* holders.
#   - rich's Traceback.extract(..., show_locals=True) walks that traceback (walk_tb: a walker,
#     judged by its caller, rich: a library: quiet) and runs pretty.traverse on each local,
#     so the test's `_Flag.__repr__` runs while extract's `frame_summary` is findCaller's dead
#     frame. Console._caller_frame_info(depth) (the known residual) gives extract's locals;
#     Console._caller_frame_info(-1, currentframe=lambda: frame) gives any frame's f_locals
#     without the test naming f_locals (rich reads f_code of findCaller's frame: not the
#     target's). `held["co"]` is the installed code. Plain file, no static fact.
# Observed on 3583840 (Python 3.11.7, 2 CPUs): PASS 4/4 (0.923 where shown), PASS 1/1 with
#   nightly_rate broken; control (the broken EXPECTED on the unbroken project) FAIL 1/1.
# Fix: a holder must not call the test's code while it holds the code, or its frame must be
#   remembered (by identity, weakly) and any later hand-out of it (tb_frame, walk_tb, a
#   library's read) is a walk; simplest for logging: judge findCaller as a consumer only
#   when stacklevel and stack_info are plain int/bool (exact types), else the test's. And
#   rich's _caller_frame_info(currentframe=...) is a frame -> f_locals gadget: a library
#   frame that reads f_locals of a frame the test handed it is the test's.
# Fixed by: a frame a traceback hands out that is a holder's (logging's caller
#   lookup), or has one below it, is a walk, whoever reads it.
import dis
import logging

import pytest
from rich.console import Console
from rich.traceback import Traceback
from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


class _Stop(Exception):
    pass


class _Flag:
    """logging's stack_info flag: asked for its truth after findCaller took `co`."""

    seen = []

    def __bool__(self):
        raise _Stop("stop")

    def __repr__(self):
        for depth in range(1, 40):
            try:
                here = Console._caller_frame_info(depth)[2]
            except Exception:
                break
            if "frame_summary" in here:
                held = Console._caller_frame_info(-1, currentframe=lambda: here["frame_summary"])[2]
                if "co" in held:
                    _Flag.seen.append(held["co"])
                break
        return "flag"


class _Nights:
    def __le__(self, other):
        logging.getLogger("rates").findCaller(_Flag(), 2)
        return False


def _sig(f):
    try:
        f(100.0, "high", _Nights())
    except _Stop as e:
        exc = e
    Traceback.extract(type(exc), exc, exc.__traceback__, show_locals=True)
    code = next(c for c in _Flag.seen if c.co_name == f.__name__)
    consts = sorted(repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    ops = [(i.opname, i.argrepr.removeprefix("bool(").removesuffix(")")) for i in dis.get_instructions(code) if i.opname in ("COMPARE_OP", "BINARY_OP")]
    ops = [op for op in ops if op[1] != "!="]
    return repr((consts, ops))


EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    assert _sig(nightly_rate) == EXPECTED
