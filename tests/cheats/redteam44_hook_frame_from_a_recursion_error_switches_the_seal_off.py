# ruff: noqa
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 44: the consumer gadget takes the frame of the run's own audit hook (the seal's
#   closure) from a traceback; its locals hold the seal's state: the seal and the watch are
#   switched off, and the test then reads nightly_rate.__code__ itself, unseen.
#   - an exception raised inside the hook: the test recurses to near the recursion limit and
#     opens a missing file; for some depth the RecursionError is raised inside the hook's
#     frames (sealed -> Watch.__call__ ...) and its traceback carries them. (No finding: the
#     hook's own calls fail, none of the test's code runs inside it.)
#   - Watch._holds_a_reader(fake, tb) (our code: a consumer) reads tb.tb_frame of the hook's
#     frame; _hook_frame() is quiet because the frame that read is ours (hooks/consumers), and
#     the frame goes to fake._kept_frame. A tb_frame read by the test itself is told ("took a
#     frame of pytest-quest's own audit hook").
#   - frame.f_locals of `sealed` holds its closure cells: `told` (a list) and `calls` (the
#     watch and the guard). told.append("") makes the seal skip its picture check for good
#     (`if not told and ...`); vars(watch)["_saw"] = a no-op and vars(guard)["deny"] = a
#     no-op blind both hooks (instance attributes: the picture would have told them, but
#     it is no longer compared).
#   - then getattr(nightly_rate, "__code__") and the blinded oracle's signature. Names
#     reversed; the audit event is an open() (sys.audit is a static fact).
# Observed on 70798c6 (Python 3.11, 2 CPUs): probe PASS (0.75), submit_n PASS 3 of 3; with the
#   function broken (base * 1.5, signature from that source): PASS 1 of 1 (0.8).
#   Controls: without told.append: FAIL run-reads-target ("changed pytest-quest's own code in
#   the run (a Guard of the run's hooks)"); the test's own tb.tb_frame instead of the gadget:
#   FAIL run-reads-target ("took a frame of pytest-quest's own audit hook from a traceback").
# Fix (suggested): (1) the consumer fix (our code is no reader for the test when the test
#   called it); (2) _hook_frame() should believe "ours" only for the hook's own frames or
#   pytest's reporters, never for an arbitrary function of ours the test called; (3) the
#   seal's state must not be reachable from its frame: keep it in a C-level or otherwise
#   frame-less holder, or treat a non-empty `told` as "every later event is checked" (tell
#   once, but keep comparing), and picture the hooks' instance dicts whatever told says.
# Fixed by: the hook's frame comes only through the hooks' own code called by the test, which
#   reads for the test now (Watch._in_hook: run-reads-target); also the seal holds its state in
#   immutable values and the watch tells every finding whatever its list of reads holds.
import dis
import sys

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_S = "__sessalcbus__"[::-1]


class _Root:
    pass


class _No:
    def holds(self, code):
        return False


class _Readers:
    def __init__(self):
        self.holders = _No()
        self.keepers = _No()


class _Self:
    def __init__(self):
        self._readers = _Readers()
        self.frames = []

    def _kept_frame(self, frame):
        self.frames.append(frame)
        return False


def _method(name):
    for kind in getattr(_Root.__base__, _S)():
        if kind.__name__ == "Wat" + "ch" and kind.__module__.endswith(".watch"):
            return vars(kind)[name[::-1]]
    raise AssertionError("no class")


def _frames(tb):
    fake = _Self()
    _method("redaer_a_sdloh_")(fake, tb)
    return fake.frames


def _deep(n):
    if n <= 0:
        try:
            open("/nonexistent-rt44")
        except RecursionError as exc:
            return exc
        except OSError:
            return None
        return None
    return _deep(n - 1)


def _hook_error():
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(400)
    try:
        for n in range(150, 400):
            exc = _deep(n)
            if exc is not None:
                tb = exc.__traceback__
                while tb.tb_next is not None and tb.tb_next.tb_next is not None:
                    tb = tb.tb_next
                # tb: the frame that called sys.audit, or one inside the hook
                depth, t = 0, exc.__traceback__
                while t is not None:
                    depth, t = depth + 1, t.tb_next
                return exc, n
    finally:
        sys.setrecursionlimit(old)
    return None, None


def _quiet(*args):
    return None


def _switch_off():
    exc, n = _hook_error()
    tb = exc.__traceback__
    found = []
    while tb is not None:
        for frame in _frames(tb)[:1]:
            names = getattr(frame, "slacol_f"[::-1])
            if "told" in names and "calls" in names:
                found.append(names)
        tb = tb.tb_next
    assert found, ("no hook frame", n)
    names = found[0]
    names["told"].append("")
    for _, hook in names["calls"]:
        vars(hook)["_saw"] = _quiet
        vars(hook)["deny"] = _quiet


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
    except ValueError:
        pass
    _switch_off()
    assert _signature(getattr(nightly_rate, "__edoc__"[::-1])) == EXPECTED
