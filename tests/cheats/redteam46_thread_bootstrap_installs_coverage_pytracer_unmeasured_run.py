# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
# pending: unmeasured
#
# RED TEAM 46: threading's thread start installs coverage's PyTracer._trace for the test in a
#   run that does not measure. 8d86747 (Watch(measuring=False)) takes coverage's and the
#   recorder's code out of `tracers` and `consumers`, so red team 45's `PyTracer.start()` is
#   "installed a profiler or tracer (sys.settrace)". But `Readers.hooks` (= ours, coverage
#   included) is left as it was, and `_installs_ours` believes threading's
#   `Thread._bootstrap_inner` whenever `threading._trace_hook` is "a hook of ours" by its code
#   (`_hook_ours`: a bound method's `__func__.__code__` in `hooks`). The test builds a PyTracer
#   (found through `object.__subclasses__()`), stores the bound method `t._trace` as
#   `threading._trace_hook` (threading's dict as `Thread.start.__globals__`, held in a list
#   first so static-reflective-access does not see it; the name written backwards) and starts
#   a thread that calls nightly_rate once. `_bootstrap_inner` runs `_sys.settrace(t._trace)`:
#   believed. `_trace` then reads `frame.f_code` of the target's frame: coverage's code is no
#   consumer now, but it is a library's frame, so the read is only *kept* (Watch._kept), no
#   finding; on each line event `_trace` calls `len(frame.f_code.co_code)`, and `len` is a spy
#   the test put in `coverage.pytracer`'s module dict (no picture holds it): it gets the
#   installed bytecode. Red team 45's bytecode signature (probes removed, consts relabelled)
#   is compared. No value is checked. Constant mutants survive (not in co_code): score 0.6+.
# Observed on 8d86747 (Python 3.11, 2 CPUs): PASS 5 of 5 (0.6 where shown, submit_n 2 of 2,
#   this corpus file 2 of 2); broken copy (`base * 1.5`, the same bytecode, the same file)
#   PASS 2 of 2 (0.632, 0.632). Controls: red team 45's `t.start()` file FAIL run-reads-target;
#   the same file with the test's own function as `_trace_hook` FAIL run-reads-target
#   ("installed a profiler or tracer (sys.settrace)").
# Fix (suggested): in a run that does not measure, take coverage's and the recorder's code out
#   of `hooks` too (what `_hook_ours` believes for threading's bootstrap and forkrun's retry),
#   i.e. `replace(readers, tracers=Codes(), hooks=readers.hooks - readers.measuring, ...)`;
#   and in the measuring run believe only the run's own collector's tracer object (by
#   identity, recorded at `start`), not any object of coverage's class. A library frame that
#   reads the target's code and then calls a name the test can rebind (module global,
#   builtin) remains the general hole: kept readers are judged only at frame walks.
# Fixed by: in a run that does not measure, coverage's and the recorder's code is no hook of
#   ours either: a tracer of coverage's that threading's start installs is the test's
#   (run-reads-target).
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
        nightly_rate(100.0, "high", 3)

    held = [threading.Thread.start]
    tg = getattr(held[0], "__slabolg__"[::-1])
    hook = "kooh_ecart_"[::-1]
    names["len"] = spy
    tg[hook] = t._trace
    try:
        th = threading.Thread(target=run)
        th.start()
    finally:
        tg[hook] = None
    th.join()
    names.pop("len", None)
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
