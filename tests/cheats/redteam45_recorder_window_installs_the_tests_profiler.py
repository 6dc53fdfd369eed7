# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
# pending: unmeasured
#
# RED TEAM 45: pytest-quest's own recorder installs the test's profiler, and coverage's
#   PyTracer._trace, called by that profiler with a fake `self`, hands the installed bytecode
#   to a spy in coverage.pytracer's module globals.
#   - `Recorder.window` (pytest_quest.recorder, found through object.__subclasses__()) called
#     with an object of the test's for `self`: `sys.setprofile(self.hook)` is raised from the
#     recorder's code, one of Readers.tracers, so the watch says nothing about a profiler that
#     is the test's own function. (The recorder is not among the hooks' `inside` code: the
#     68188ca fix for "ours called by the test" covers watch/seal/hooked/pathtext/Guard only.)
#   - On each call event the profiler calls `PyTracer._trace(fake, frame, "line", None)`:
#     coverage reads `frame.f_code.co_code` (a consumer: quiet) and calls `len(code)`, found
#     in coverage.pytracer's module dict, where the test put a spy (no Spaces snapshot there).
#   - The measuring run's own recorder hook is put back with one more `Recorder.window` (its
#     hook read from `threading._profile_hook`), left entered, so its count stays intact.
#   The signature is that of redteam45_coverage_pytracer_len_global_hands_co_code.py (bytecode
#   with the probes cut out, names relabelled): constant mutants survive, nothing is checked.
# Observed on 68188ca (Python 3.11, 2 CPUs): PASS 5 of 5 (0.6, 0.6, 0.6, corpus file 1 of 1, +1);
#   broken copy (`base * 1.5`) PASS 3 of 3 (0.6, 0.632, 0.6). Control: the same test calling
#   sys.setprofile(prof) itself: FAIL run-reads-target ("installed a profiler or tracer").
# Fix (suggested): the recorder's and coverage's installs are ours only when the hook they
#   install is ours (`_hook_ours` on the argument of sys.setprofile/settrace, as for threading's
#   bootstrap), and only when the `self` is the run's own recorder / coverage's collector's
#   tracer; coverage's consumers read for themselves only while coverage's module globals are
#   as at the start (a Spaces snapshot of coverage.pytracer, coverage.collector, ...).
# Fixed by: in a run that does not measure, the recorder's code is no consumer and installs no
#   profiler for itself (Watch(measuring=False)): Recorder.window called by the test installs
#   the test's profiler (run-reads-target).
import sys
import threading
from hotel.pricing import nightly_rate

EXPECTED = [(151, 0), (124, 0), (100, 1), (107, 1), (114, 0), (116, 2), (100, 3), (166, 1), (171, 1), (130, 1), (124, 4), (100, 5), (107, 2), (114, 0), (124, 6), (100, 7), (122, 5), (125, 8), (110, 0), (124, 4), (100, 9), (107, 2), (114, 0), (124, 6), (100, 10), (122, 5), (125, 8), (110, 0), (124, 6), (125, 8), (124, 0), (100, 11), (107, 5), (114, 0), (124, 8), (100, 12), (122, 5), (125, 8), (116, 13), (124, 8), (100, 14), (166, 2), (171, 2), (83, 0)]


_JUMPS = frozenset((93, 110, 111, 112, 114, 115, 123, 128, 129, 134, 140, 173, 174, 175, 176))


def _ins(b):
    out = []
    for i in range(0, len(b), 2):
        if b[i]:  # CACHE entries are 0
            out.append((b[i], b[i + 1]))
    return out


def _sig(b):
    ins = _ins(b)
    # the null mutant's probe and the reach twins: `p = V; if p != V: __import__('os')._exit(70)`
    k = 4
    while k < len(ins):
        op, arg = ins[k]
        if op == 107 and arg == 3 and ins[k - 3][0] == 125 and ins[k - 2][0] == 124:
            end = k
            while end < len(ins) and ins[end][0] != 1:  # POP_TOP
                end += 1
            ins = ins[:k - 4] + ins[end + 1:]
            k = 4
            continue
        k += 1
    labels = {}
    out = []
    for op, arg in ins:
        if op in (100, 116, 124, 125):  # LOAD_CONST, LOAD_GLOBAL, LOAD_FAST, STORE_FAST
            arg = labels.setdefault((op if op in (100, 116) else 0, arg), len(labels))
        elif op in _JUMPS:
            arg = 0
        out.append((op, arg))
    return out


class _Disp:
    trace = True
    source_filename = "x"


def _find(want):
    todo = [object]
    sub = "__sessalcbus__"[::-1]
    done = set()
    while todo:
        c = todo.pop()
        if c.__name__ == want:
            return c
        try:
            more = getattr(c, sub)()
        except TypeError:
            more = getattr(type, sub)(c)
        for m in more:
            if id(m) not in done:
                done.add(id(m))
                todo.append(m)


class _Fake:
    pass


def _collect():
    pt = _find("recarTyP"[::-1])
    rec = _find("redroceR"[::-1])
    names = getattr(pt.start, "__slabolg__"[::-1])
    seen = []
    real = len

    def spy(x):
        if type(x) is bytes and x not in seen:
            seen.append(x)
        return real(x)

    t = _Fake()
    t.stopped = False
    t.cur_file_data = set()
    t.trace_arcs = False
    t.last_line = 0
    t._cached_bound_method_trace = None
    trace = pt._trace

    def prof(frame, event, arg):
        if event == "call":
            trace(t, frame, "line", None)

    mine = _Fake()
    mine._monitoring, mine._depth, mine.hook = False, 0, prof
    before = getattr(threading, "_profile_hook", None)
    names["len"] = spy
    try:
        with rec.window(mine):
            for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
                nightly_rate(*args)
            try:
                nightly_rate(100.0, "high", 0)
            except ValueError:
                pass
    finally:
        names.pop("len", None)
    if before is not None:  # the measuring run's recorder: its hook back, by the recorder's code
        back = _Fake()
        back._monitoring, back._depth, back.hook = False, 0, before
        _KEEP.append(rec.window(back))
        _KEEP[-1].__enter__()
    return seen


_KEEP = []


def test_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    try:
        nightly_rate(100.0, "high", 0)
    except ValueError:
        pass
    seen = _collect()
    assert any(_sig(b) == EXPECTED for b in seen), [_sig(b) for b in seen]
