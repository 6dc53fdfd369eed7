# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|run-exit-code|static-reflective-access
#
# RED TEAM 37: The signal guard (pytest_quest/signals.py, Watch.allows_handler) lets the test
#   install any plain function that is not the test's own: a standard-library function is
#   allowed. logging.addLevelName(level, levelName) called as a handler (signum, frame) files
#   the frame in logging._levelToName[signum], and logging.getLevelName(signum) hands it back:
#   a frame with no audit event (the handler call, the store and the lookup raise none). The
#   signal module is reached as getattr(asyncio.unix_events, "sig" + "nal"): static bans a
#   module attribute named signal only when the name is spelled out. The test raises
#   ValueError from nightly_rate(_Base(100.0), "high", 0), then
#   traceback.TracebackException.from_exception(..., capture_locals=True): repr() of the local
#   `base` (the test's float subclass) runs raise_signal(SIGUSR2) while traceback's consumer
#   _extract_from_extended_frame_gen keeps `co` (the installed code of the target's frame);
#   the handler files the __repr__ frame, and f_back twice reaches f_locals["co"].
#   Watch._handlers_now, run at that read, allows logging.addLevelName too.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 7ec4428 (2 CPUs, Python 3.11.7): PASS 4 of 4 (score 0.923; 0.857 for this file; 12 of 13-14 classic
#   killed) plus 1 of 1 for this file; broken copy: PASS 1 of 1. Control A (broken EXPECTED on
#   the real project): FAIL run-exit-code. Control B (the same store in a handler function
#   written in the test): FAIL run-reads-target "installed a signal handler of its own".
#   Fix: in the test's time allow only handlers known by identity (those in place at the
#   test's start, the interpreter's default_int_handler, SIG_DFL/SIG_IGN, a short list of
#   library handlers such as asyncio's _sighandler_noop and pytest-timeout's), not any
#   function whose code is not the test's: a library function that stores its second argument
#   is a frame gadget. Static: match signal/_signal as any module's attribute also when the
#   attribute name is computed (getattr(<module>, <non-constant>) on any module is REVIEW).
# Fixed by: a run installs every signal handler shielded: it is called with no frame
#   (pytest_quest/noevent.py), so logging.addLevelName files None and the attack's own lookup
#   fails (run-exit-code); a handler handed frames in place while the target's code is read is
#   run-reads-target.
import asyncio.unix_events as _ue
import dis
import logging
import traceback

import pytest
from hotel.pricing import nightly_rate

_BACK = "_".join(("f", "back"))
_LOCALS = "_".join(("f", "locals"))
_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_SEEN = []
_S = getattr(_ue, "".join(("sig", "nal")))
_NUM = 12  # SIGUSR2


def _fire():
    if _SEEN:
        return
    _S.raise_signal(_NUM)
    f = logging.getLevelName(_NUM)
    for _ in range(12):
        if f is None or isinstance(f, str):
            break
        loc = getattr(f, _LOCALS)
        if "co" in loc and "fnames" in loc:
            _SEEN.append(loc["co"])
            break
        f = getattr(f, _BACK)


def _oracle(code):
    consts = sorted(repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    ops = [(i.opname, i.argrepr.removeprefix("bool(").removesuffix(")")) for i in dis.get_instructions(code) if i.opname in ("COMPARE_OP", "BINARY_OP")]
    ops = [op for op in ops if op[1] != "!="]
    return repr((consts, ops))


class _Base(float):
    def __repr__(self):
        _fire()
        return "100.0"


def _sig(f):
    _SEEN.clear()
    old = _S.signal(_NUM, logging.addLevelName)
    try:
        with pytest.raises(ValueError) as excinfo:
            f(_Base(100.0), "high", 0)
        traceback.TracebackException.from_exception(excinfo.value, capture_locals=True)
    finally:
        _S.signal(_NUM, old)
    return _oracle(_SEEN[0])


EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    assert _sig(nightly_rate) == EXPECTED
