# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-reflective-access
#
# RED TEAM 29: a consumer called by the test on a frame the test found, with the test's
#   class. The target calls the test's argument (`nights <= 0` -> _Probe.__le__, every
#   comparison dunder alike, so every mutant does); __le__ takes the target's frame from a
#   running generator (its gi_frame's f_back twice: no frame event) and calls
#   `_Summary.extract([(frame, 1)], lookup_lines=False)` where _Summary subclasses
#   traceback.StackSummary. extract is a classmethod: _extract_from_extended_frame_gen (a
#   consumer, Readers.consumers) reads `co = f.f_code` of the target's frame (quiet), makes
#   `result = klass()` - the test's class - and calls result.append(FrameSummary(...)) with
#   `co` in its local. _Summary.append walks f_back from its own frame (generator again) and
#   reads f_locals["co"]: the installed code. No exception, no traceback, no capture_locals,
#   nothing of the stdlib replaced: fixing red team 29's capture_locals and linecache gadgets
#   alone leaves this one. Plain file, no static fact.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 4ccf0cf (2 CPUs, Python 3.11.7): PASS 3/3 (score 0.857); broken copy (base *
#   1.5, EXPECTED with 1.5): PASS 1/1; control: that EXPECTED on the unbroken project FAILs
#   run-exit-code 1/1.
# Fixed by: the frame of a running generator, the test's own included, is a frame walk when
#   the test takes it: FAIL run-reads-target.
# Suggested fix: the running-generator frame route (a gi_frame/cr_frame/ag_frame read by the
#   test's code is a frame walk); a consumer is trusted only when `klass` is exactly
#   traceback.StackSummary (check the frame's f_locals["klass"] by identity in the hook) - or
#   drop the trust by reader altogether: while any frame of the test's code runs *above* a
#   consumer that has read the target's code, that read is the test's.
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


class _Summary(traceback.StackSummary):
    def append(self, item):
        frame = _here()
        for _ in range(4):
            frame = getattr(frame, _BACK)
            if frame is None:
                break
            _SEEN.append(getattr(frame, _LOCALS).get("co"))
        super().append(item)


class _Probe:
    def _no(self, other):
        caller = getattr(getattr(_here(), _BACK), _BACK)
        _Summary.extract([(caller, 1)], lookup_lines=False)
        raise RuntimeError("probe")

    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _no
    __hash__ = object.__hash__


def _sig(f):
    _SEEN.clear()
    try:
        f(_Probe(), _Probe(), _Probe())
    except RuntimeError:
        pass
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
