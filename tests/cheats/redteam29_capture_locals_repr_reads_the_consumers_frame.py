# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-reflective-access
#
# RED TEAM 29: a consumer (Readers.consumers: traceback's StackSummary._extract_from_
#   extended_frame_gen) holds `co = f.f_code` of the target's frame in a local and then runs
#   code of the test: with capture_locals=True, FrameSummary.__init__ calls repr() of every
#   local of the frame, and the test passed its own objects as the target's arguments. No
#   stdlib attribute replaced (red team 28's 01c replaced linecache.lazycache). The test's
#   __repr__ takes its own frame with no frame event: a generator of the test reads its own
#   gi_frame while running (an audited gi_frame, but of a frame whose code is not the
#   target's: _code_through returns) and f_back of it is the caller; f_back/f_locals raise no
#   audit event (names built with str.join: the static stage flags getattr with a computed
#   name only on machinery modules). f_locals["co"] of _extract_from_extended_frame_gen is the
#   installed code object. The arguments raise in every comparison, so every mutant's frame
#   is in the traceback. Plain file: no static fact at all.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 4ccf0cf (2 CPUs, Python 3.11.7): PASS 4/4 (score 0.857, 12/14 classic
#   killed); broken copy (base * 1.5, EXPECTED with 1.5): PASS 1/1; control: the broken
#   EXPECTED against the unbroken project FAILs run-exit-code.
# Fixed by: the frame of a running generator, the test's own included, is a frame walk when
#   the test (or the standard library for it) takes it: its f_back reached traceback's frame
#   holding `co`: FAIL run-reads-target.
# Suggested fix: no frame of a trusted reader may be reachable from the test's code while
#   it holds the code. Consumers that call out (repr of locals with capture_locals,
#   linecache.lazycache, _get_code_position) are not "for themselves"; judge the generator
#   frame route too (gi_frame/cr_frame/ag_frame of a *running* generator hands out f_back:
#   any gi_frame read in the test's time of a running generator is a frame walk). Simplest:
#   refuse trust to _extract_from_extended_frame_gen when capture_locals is true, and treat
#   gi_frame/cr_frame/ag_frame read by the test's code as a frame walk (its static twin: the
#   built getattr names on any base).
import dis
import traceback

import pytest
from hotel.pricing import nightly_rate

_BACK = "_".join(("f", "back"))
_LOCALS = "_".join(("f", "locals"))
_GF = "_".join(("gi", "frame"))
_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_SEEN = []


def _here():
    box = []

    def gen():
        yield getattr(getattr(box[0], _GF), _BACK)

    g = gen()
    box.append(g)
    return next(g)


class _Probe:
    def __repr__(self):
        frame = _here()
        for _ in range(8):
            frame = getattr(frame, _BACK)
            if frame is None:
                break
            _SEEN.append(getattr(frame, _LOCALS).get("co"))
        return "probe"

    def _no(self, other):
        raise RuntimeError("probe")

    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _no
    __hash__ = object.__hash__


def _sig(f):
    _SEEN.clear()
    try:
        f(_Probe(), _Probe(), _Probe())
    except Exception as exc:
        traceback.TracebackException.from_exception(exc, capture_locals=True)
    code = next(c for c in _SEEN if c is not None and getattr(c, "co_name", "") == f.__name__)
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
