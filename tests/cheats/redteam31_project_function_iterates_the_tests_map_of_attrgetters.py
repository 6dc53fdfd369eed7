# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 31: 01 with the project's own code as the trampoline, no library imported. The
#   project's `cheapest_option(options)` does `list(options.items())`: the test's `items()`
#   returns `zip(map(operator.attrgetter(<built name>), [x]), itertools.repeat(0.0))`, so the
#   C getattr runs under `hotel/pricing.py`'s frame, neither the test's, the standard
#   library's nor a reporter's: quiet for `tb_frame` and for the target frame's `f_code`;
#   `min` of one candidate returns the name, i.e. the frame, then the code.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 799a834 (2 CPUs, Python 3.11.7): PASS 5/5 (score 0.857 (12/14) where printed);
#   broken copy (base * 1.5, EXPECTED with 1.5): PASS 1/1.
# Suggested fix: as redteam31_library_frame_iterates_the_tests_map_of_attrgetters.py (a C
#   trampoline is judged by who is below it); "the project's own module" must not mean "a
#   reader that keeps what it reads" when the read is not spelled in its code.
# Fixed by: a module's frame that raised a frame or code read without naming the
#   attribute ran a C callable the test made (map of attrgetter): the test's read.
import dis
import operator

import pytest
import itertools
from hotel.pricing import cheapest_option, nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_FRAME = operator.attrgetter("_".join(("tb", "frame")))
_CODE = operator.attrgetter("_".join(("f", "code")))


class _Options:
    def __init__(self, pairs):
        self.pairs = pairs

    def items(self):
        return self.pairs


def _by_library(fn, items):
    """The project's own cheapest_option calls fn for us: its list() consumes the map."""
    return [cheapest_option(_Options(zip(map(fn, [item]), itertools.repeat(0.0)))) for item in items]


def _sig(f):
    try:
        f(100.0, "high", 0)
    except ValueError as exc:
        tbs = []
        tb = exc.__traceback__
        while tb is not None:
            tbs.append(tb)
            tb = tb.tb_next
    frames = _by_library(_FRAME, tbs)
    codes = _by_library(_CODE, frames)
    code = next(c for c in codes if c.co_name == f.__name__)
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
