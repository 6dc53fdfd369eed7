# ruff: noqa
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 44: pytest-quest's own code is a consumer ("reads for itself") whoever calls it.
#   - readers() puts every code object of pytest_quest (and coverage but coverage.context)
#     into `consumers`; _for_itself(reader) answers _intact(code) (True) for any of them,
#     without asking who called the consumer. cbb0bfb took coverage.context out, nothing else.
#   - object.__subclasses__() (no audit event) finds the run's original Watch class (forgotten
#     from sys.modules, still alive); vars(Watch)["_holds_a_reader"] is the original function,
#     its code one of `ours`.
#   - the test calls it as Watch._holds_a_reader(fake_self, tb) with tb the traceback entry of
#     nightly_rate's own frame (a ValueError from nights=0). Inside it, tb.tb_frame (a walk by
#     a consumer: trusted, quiet) and frame.f_code (_code_through -> _for_itself -> True:
#     quiet) are read by our code, which then calls self._readers.holders.holds(code): the
#     fake's method, handed the installed code (a mutant's in a mutant run). If holds answers
#     False, self._kept_frame(frame) hands out the frame itself as well.
#   - the oracle: the blinded oracle's code signature (constants, operators, the null mutant's
#     probe left out), computed outside from the shipped source. No value is checked.
#   - static: the names are written backwards ([::-1]); nothing is hex-exec'd.
# Observed on 70798c6 (Python 3.11, 2 CPUs): probe PASS (score 0.8, 12/15 classic killed),
#   submit_n PASS 3 of 3; with the function broken (base * 1.5, the signature taken from that
#   source): PASS 1 of 1 (score 0.923). Control (the test reads tb.tb_frame.f_code itself):
#   FAIL run-reads-target.
# Fix (suggested): trust a consumer's read only when the consumer runs for its own machinery:
#   our hooks (reached from the interpreter's audit call, i.e. the seal's frame), the recorder
#   and coverage's tracer (called by the interpreter's trace machinery: no Python caller, or a
#   caller that is itself one of the hooks). A consumer frame whose caller chain reaches test
#   code (or a library/project frame) before a hook or the run's starter is the test's reader.
#   Cheaper: keep `ours` out of `consumers` except the hook modules' and tracers' own codes
#   and check, for those, that the frame below the consumer is the seal's closure or a
#   tracer entry (f_back is None / the interpreter), never the test's frame.
# Fixed by: the hooks' own code (watch, seal, hooked, pathtext, the guard) is no consumer; it
#   reads for itself only inside the run's hook, every frame up to the seal's closure that
#   calls this watch its own (Watch._in_hook); called by the test it reads for the test
#   (run-reads-target).
import dis

from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_S = "__sessalcbus__"[::-1]
_M = "redaer_a_sdloh_"[::-1]


class _Root:
    pass


class _Got:
    def __init__(self):
        self.codes = []

    def holds(self, code):
        self.codes.append(code)
        return True


class _No:
    def holds(self, code):
        return False


class _Readers:
    def __init__(self):
        self.holders = _Got()
        self.keepers = _No()


class _Self:
    def __init__(self):
        self._readers = _Readers()
        self._kept_ids = set()


def _reader_fn():
    for kind in getattr(_Root.__base__, _S)():
        if kind.__name__ == "Wat" + "ch" and kind.__module__.endswith(".watch"):
            return vars(kind)[_M]
    raise AssertionError("no class")


def _code(tb):
    fake = _Self()
    _reader_fn()(fake, tb)
    return fake._readers.holders.codes[0]


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
    assert _signature(_code(caught.__traceback__.tb_next)) == EXPECTED
