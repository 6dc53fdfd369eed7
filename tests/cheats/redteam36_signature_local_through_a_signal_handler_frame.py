# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-process-exit|run-reads-target
#
# RED TEAM 36: A second frame gadget: a Python signal handler is handed the interrupted frame, with no
#   audit event (signal.signal, signal.raise_signal raise none). The signal module is
#   reached as asyncio.unix_events' attribute (`import asyncio.unix_events as _ue;
#   _ue.signal`): static-process-exit bans `signal` by its dotted name only. The Parameter
#   subclass of a Signature subclass calls raise_signal(SIGUSR2) under the holder; the
#   handler runs at once with the frame of Parameter.__init__, walks f_back to
#   _signature_from_function and reads f_locals["func_code"].
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 57a8178 (2 CPUs, Python 3.11.7): PASS 7 of 7 (6 of the working copy, 1 of this file as written; score 0.857); broken copy: PASS 1 of 1.
#   Fix (the gadget): a signal handler is handed the interrupted frame with no audit event,
#   and signal.signal / setitimer / raise_signal raise none either. Static: `signal` is
#   static-process-exit, but only by its dotted name: _banned() looks at the later parts of
#   a name for NATIVE bans only, so `asyncio.unix_events.signal` (or `subprocess.signal`) is
#   not seen; every module-level ban (signal, _signal, faulthandler, atexit, _thread,
#   coverage, ...) should be matched as any module's attribute too. Run: the watch cannot see
#   a handler installed; a seccomp filter in the test's time that refuses rt_sigaction with a
#   handler (not SIG_DFL/SIG_IGN), setitimer/timer_create, or a check at each trusted read
#   that every handler is the run's own (signal.getsignal) and no itimer is armed
#   (signal.getitimer) closes the asynchronous route.
#   Fix (the trust): no frame-local holder of the installed code can be made safe while a
#   Python-level signal handler can run at any bytecode boundary (see
#   redteam36_plain_signature_interrupted_by_an_interval_timer): answer inspect.signature of the
#   target without reading its code. The run sets the target's __signature__ (computed from
#   the original before test code), so _signature_from_callable returns before
#   _signature_from_function; the read of __code__ by _signature_from_function is a finding
#   again (red team 27's honest test PASSes, a test that deletes __signature__ FAILs).
# Fixed by: a module attribute named signal is static-process-exit; in the run every signal
#   handler is called with no frame (pytest_quest/noevent.py, since red team 37), and an
#   unshielded handler in place while the target's code is read is run-reads-target.
import asyncio.unix_events as _ue
import dis
import inspect

import pytest
from hotel.pricing import nightly_rate

_BACK = "_".join(("f", "back"))
_LOCALS = "_".join(("f", "locals"))
_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_SEEN = []
_S = _ue.signal


def _handler(num, frame):
    f = frame
    while f is not None:
        loc = getattr(f, _LOCALS)
        if "func_code" in loc:
            _SEEN.append(loc["func_code"])
            break
        f = getattr(f, _BACK)


class _Param(inspect.Parameter):
    __slots__ = ()

    def __init__(self, *args, **kwargs):
        if not _SEEN:
            _S.raise_signal(_S.SIGUSR2)
        super().__init__(*args, **kwargs)


class _Sig(inspect.Signature):
    __slots__ = ()
    _parameter_cls = _Param


def _sig(f):
    _SEEN.clear()
    old = _S.signal(_S.SIGUSR2, _handler)
    try:
        _Sig.from_callable(f)
    finally:
        _S.signal(_S.SIGUSR2, old)
    code = _SEEN[0]
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
