# ruff: noqa
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 27, finding 01: the watch tells "the test's own reads" by a file name that exec
#   forges. `_code_through` (gi_code/f_code/gi_frame...) and `_walk_by_test` (tb_frame,
#   sys._getframe, sys._current_frames) flag a read only when the reading frame's co_filename
#   is the submitted test file (or dis.py, or _pytest with the test on the stack). Code made by
#   exec/compile of a string has co_filename "<string>": it calls the target with nights=0,
#   walks the ValueError's traceback (tb_frame) and reads the target frame's f_code - the
#   installed code object - with no finding. Then the usual code signature (constants and
#   operators, the null mutant's probe left out) kills every classic mutant. No value checked.
# Observed on be56407 (2 CPUs, Python 3.11): PASS 5 of 5 (score 0.8), 2 of 2 with nightly_rate
#   broken (base * 1.5 in high season; EXPECTED recomputed from the broken source outside).
# Fixed by: a read of the target's code through a frame or generator is the test's unless the
#   reading code object is one that keeps what it read (traceback's summaries, logging,
#   coverage, pytest-quest, or pytest reading for those or for its text-only traceback getters):
#   FAIL run-reads-target.
# Fix: judge every frame/code getter by what the test file put on the stack, not by the
#   reader's co_filename: any reader whose frame chain reaches the test file (or any frame
#   whose code was not loaded from a known module file: "<string>", exec'd) is the test's;
#   or flag f_code/tb_frame reads that return the target's code whoever reads them, except our
#   own code objects (as `_OURS` does for __code__).
import pytest
from hotel.pricing import nightly_rate

_SRC = (
    "2320727566663a206e6f71610a232071756573743a20686f74656c2f70726963696e672e70793a3a6e696768746c795f"
    "726174650a23206578706563743a2072756e2d72656164732d7461726765740a696d706f7274207079746573740a696d"
    "706f727420646973206173205f640a5f50203d20284e6f6e652c20302c2028292c2027272c2046616c73652c20312c20"
    "2d312c20302e302c2037302c20276f73272c20275f6578697427290a0a646566205f636f64655f6f662866293a0a2020"
    "20207472793a0a202020202020202066283130302e302c202268696768222c2030290a20202020657863657074205661"
    "6c75654572726f72206173206578633a0a20202020202020207462203d206578632e5f5f74726163656261636b5f5f0a"
    "20202020202020207768696c65207462206973206e6f74204e6f6e653a0a2020202020202020202020206672203d2074"
    "622e74625f6672616d650a202020202020202020202020636f203d2066722e665f636f64650a20202020202020202020"
    "2020696620636f2e636f5f6e616d65203d3d20662e5f5f6e616d655f5f3a0a2020202020202020202020202020202072"
    "657475726e20636f0a2020202020202020202020207462203d2074622e74625f6e6578740a2020202072657475726e20"
    "4e6f6e650a0a646566205f73696728662c20636f6e6669673d4e6f6e65293a0a20202020636f6465203d205f636f6465"
    "5f6f662866290a20202020636f6e737473203d20736f727465642872657072286b2920666f72206b20696e20636f6465"
    "2e636f5f636f6e737473206966206e6f7420616e79286b2069732070206f72202874797065286b292069732074797065"
    "28702920616e64206b203d3d20702920666f72207020696e205f5029290a202020206f7073203d205b28692e6f706e61"
    "6d652c20692e617267726570722e72656d6f76657072656669782822626f6f6c2822292e72656d6f7665737566666978"
    "28222922292920666f72206920696e205f642e6765745f696e737472756374696f6e7328636f64652920696620692e6f"
    "706e616d6520696e202822434f4d504152455f4f50222c202242494e4152595f4f5022295d0a202020206f7073203d20"
    "5b6f7020666f72206f7020696e206f7073206966206f705b315d20213d2022213d225d0a2020202072657475726e2072"
    "6570722828636f6e7374732c206f707329290a"
)
exec(bytes.fromhex(_SRC).decode(), globals())

EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate(request):
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    assert _sig(nightly_rate) == EXPECTED
