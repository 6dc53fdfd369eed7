# ruff: noqa
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|run-exit-code
#
# RED TEAM 27, finding 05: an `_OURS` gadget. `check_target` reads `self.original.__code__`
#   inside `id(...)`; the watch excuses that read by the reading code object (check_target is
#   in `_OURS`) whoever called it. `id` is looked up in forkrun's globals, then builtins: the
#   test reaches the run (pluginmanager -> judge plugin -> `.run`), sets
#   `sys.modules["pytest_quest.forkrun"].id` to a function that keeps its argument, calls
#   `run.check_target(<an object with .nodeid>)` itself, and gets the installed code object
#   with no finding. Then the code signature kills every classic mutant.
# Observed on be56407 (2 CPUs, Python 3.11): PASS 4 of 4 (score 0.923), 1 of 1 broken.
# Fixed by: `check_target` reads no code any more (a `__code__` replaced on the target is seen
#   by the watch as it happens, `run-target-replaced`) and `_OURS` is gone: the replaced `id`
#   gets nothing and the file's own check fails (run-exit-code).
# Fix: in `_OURS` code, never hand the code object to anything looked up at run time (bind
#   `id` at import: `_id = builtins.id`, or compare `func.__code__ is self._code` with the
#   object kept out of reach); better, check the caller of the `_OURS` frame too (its f_back
#   must be pytest's runtest hook / execute, never the test file), and do not leave the run
#   reachable from the judge plugin while test code runs.
import pytest
from hotel.pricing import nightly_rate

_SRC = (
    "696d706f7274207379732c206275696c74696e730a696d706f727420646973206173205f640a5f50203d20284e6f6e65"
    "2c20302c2028292c2027272c2046616c73652c20312c202d312c20302e302c2037302c20276f73272c20275f65786974"
    "27290a0a646566205f636f64655f6f6628662c20636f6e666967293a0a2020202072756e203d204e6f6e650a20202020"
    "666f72207020696e20636f6e6669672e706c7567696e6d616e616765722e6765745f706c7567696e7328293a0a202020"
    "202020202072203d206765746174747228702c202272756e222c204e6f6e65290a202020202020202069662072206973"
    "206e6f74204e6f6e6520616e64206861736174747228722c2022636865636b5f74617267657422293a0a202020202020"
    "20202020202072756e203d20720a202020206d6f64203d207379732e6d6f64756c65735b747970652872756e292e5f5f"
    "6d6f64756c655f5f5d0a20202020676f74203d205b5d0a20202020646566205f6964286f293a0a202020202020202067"
    "6f742e617070656e64286f290a202020202020202072657475726e206275696c74696e732e6964286f290a202020206d"
    "6f642e6964203d205f69640a202020207472793a0a202020202020202072756e2e636865636b5f746172676574285f49"
    "74656d2829290a2020202066696e616c6c793a0a202020202020202064656c206d6f642e69640a202020207265747572"
    "6e206e657874286f20666f72206f20696e20676f742069662074797065286f292e5f5f6e616d655f5f203d3d2022636f"
    "646522290a0a636c617373205f4974656d3a0a202020206e6f64656964203d202278220a0a646566205f73696728662c"
    "20636f6e666967293a0a20202020636f6465203d205f636f64655f6f6628662c20636f6e666967290a20202020636f6e"
    "737473203d20736f727465642872657072286b2920666f72206b20696e20636f64652e636f5f636f6e73747320696620"
    "6e6f7420616e79286b2069732070206f72202874797065286b29206973207479706528702920616e64206b203d3d2070"
    "2920666f72207020696e205f5029290a202020206f7073203d205b28692e6f706e616d652c20692e617267726570722e"
    "72656d6f76657072656669782822626f6f6c2822292e72656d6f766573756666697828222922292920666f7220692069"
    "6e205f642e6765745f696e737472756374696f6e7328636f64652920696620692e6f706e616d6520696e202822434f4d"
    "504152455f4f50222c202242494e4152595f4f5022295d0a202020206f7073203d205b6f7020666f72206f7020696e20"
    "6f7073206966206f705b315d20213d2022213d225d0a2020202072657475726e20726570722828636f6e7374732c206f"
    "707329290a"
)
exec(bytes.fromhex(_SRC).decode(), globals())

EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate(request):
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    assert _sig(nightly_rate, request.config) == EXPECTED
