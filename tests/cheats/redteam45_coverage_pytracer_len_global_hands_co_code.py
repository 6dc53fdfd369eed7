# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
# pending: unmeasured
#
# RED TEAM 45: coverage's PyTracer is a tracer and a consumer, and its module globals are
#   the test's. The test finds coverage.pytracer.PyTracer through object.__subclasses__(),
#   makes one (should_trace answers "trace" for any file, data/locks its own), and calls
#   `.start()`: the sys.settrace event's raiser is coverage's code (Readers.tracers), so no
#   "installed a tracer" finding. In a thread of its own (the main thread's measuring tracer
#   untouched) it calls nightly_rate. For each line event `PyTracer._trace` reads
#   `frame.f_code.co_code` (coverage is a consumer: quiet) and calls `len(code)`, a global
#   lookup in coverage.pytracer's module dict, where the test put a spy (a module dict store:
#   no audit event, and no Spaces snapshot covers coverage's modules). The spy is handed the
#   installed bytecode: opcodes and opargs. A signature (probes `p = V; if p != V: ...` cut
#   out, LOAD_CONST/LOAD_GLOBAL/LOAD_FAST/STORE_FAST relabelled by first use, jump offsets
#   dropped) matches the clean runs, the null mutant and the reach twins, and differs for
#   every operator, comparison, `if not`, return and extreme mutant. No value of the function
#   is checked; constant mutants survive (the constants are not in co_code).
# Observed on 68188ca (Python 3.11, 2 CPUs): PASS 10 of 10 (probe 0.706, submit_n 3 of 3,
#   4 more at 0.6/0.632/0.6/0.667, this file 1 of 1); broken copy (`base * 1.5`, the same
#   expected signature) PASS 6 of 6 (0.632 x4, 0.6, 0.667). Control: the same test calling sys.settrace(t._trace) itself: FAIL
#   run-reads-target ("installed a profiler or tracer (sys.settrace)").
# Fix (suggested): a tracer/consumer of coverage's is "for itself" only while its module
#   globals and instance are coverage's own (a Spaces snapshot of coverage.pytracer/collector
#   and the builtins it looks up, taken at start; or better, trust only the tracer instance
#   coverage's Collector made: `sys.settrace` from PyTracer.start with a `self` not in the
#   collector's tracers is the test's); and a consumer read whose code object's module dict
#   changed since the start is the test's read.
# Fixed by: in a run that does not measure, coverage's code is no consumer and installs no
#   tracer for itself (Watch(measuring=False)): the test's PyTracer.start is a tracer installed
#   (run-reads-target). The measuring run, where coverage is on, still trusts it.
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


def _collect():
    want = "recarTyP"[::-1]
    todo, cls = [object], None
    sub = "__sessalcbus__"[::-1]
    done = set()
    while todo:
        c = todo.pop()
        if c.__name__ == want:
            cls = c
            break
        try:
            more = getattr(c, sub)()
        except TypeError:
            more = getattr(type, sub)(c)
        for m in more:
            if id(m) not in done:
                done.add(id(m))
                todo.append(m)
    names = getattr(cls.start, "__slabolg__"[::-1])
    seen = []
    real = len

    def spy(x):
        if type(x) is bytes and x not in seen:
            seen.append(x)
        return real(x)

    t = cls()
    t.data = {}
    t.should_trace = lambda f, fr: _Disp
    t.should_trace_cache = {}
    t.lock_data = t.unlock_data = lambda: None
    t.warn = lambda *a, **k: None

    def run():
        names["len"] = spy
        try:
            t.start()
            for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
                nightly_rate(*args)
            try:
                nightly_rate(100.0, "high", 0)
            except ValueError:
                pass


        finally:
            names.pop("len", None)

    th = threading.Thread(target=run)
    th.start()
    th.join()
    return seen


def test_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    try:
        nightly_rate(100.0, "high", 0)
    except ValueError:
        pass
    seen = _collect()
    assert any(_sig(b) == EXPECTED for b in seen), [_sig(b) for b in seen]
