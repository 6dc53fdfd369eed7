# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-hidden-code|run-reads-target
#
# RED TEAM 29: exec without its name: `next(v for k, v in vars(builtins).items() if k ==
#   "".join(("ex", "ec")))`. static-hidden-code names exec/eval/compile as resolved names,
#   handed names, literal `__builtins__["exec"]` keys and strings naming a runner; a lookup
#   by a built key in an iteration of vars(builtins) is none of these (and the reference
#   check flags computed getattr on builtins, not a comprehension over its dict). The hidden
#   body is redteam29_ctypes_through_sharedctypes_called_by_a_thread_pool.py (so the run
#   time judges nothing either): hidden code that ends at PASS, not REVIEW.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 4ccf0cf (2 CPUs, Python 3.11.7): PASS 2/2 (score 0.857); broken copy
#   (base * 1.5, EXPECTED with 1.5): PASS 1/1.
# Fixed by: a walk of the names of builtins (vars(), __dict__, dir()) is static-hidden-code
#   (REVIEW), and the hidden ctypes read through a thread pool is run-reads-target: FAIL.
# Suggested fix: judge at run time, not by names: a `compile` audit event in the test's time
#   (exec of a string raises it) whose source is not text of the test file makes the verdict
#   REVIEW (a `#hidden` record from the watch, red team 28's suggestion for 06/07). Static,
#   as a first step: vars()/__dict__/dir() of builtins (or of the `__builtins__` global)
#   iterated or indexed by anything but a literal is static-hidden-code.
import builtins

import pytest
from hotel.pricing import nightly_rate

_SRC = (
    "696d706f7274206469730a66726f6d20636f6e63757272656e742e6675747572657320696d706f727420546872656164"
    "506f6f6c4578656375746f720a66726f6d206d756c746970726f63657373696e6720696d706f72742073686172656463"
    "74797065730a0a0a5f50203d20284e6f6e652c20302c2028292c2027272c2046616c73652c20312c202d312c20302e30"
    "2c2037302c20276f73272c20275f6578697427290a5f426f78203d207368617265646374797065732e6374797065732e"
    "70795f6f626a6563740a0a0a646566205f636f64655f6f662866293a0a202020207769746820546872656164506f6f6c"
    "4578656375746f7228312920617320706f6f6c3a0a2020202020202020626f786573203d205b706f6f6c2e7375626d69"
    "74285f426f782e66726f6d5f616464726573732c206964286629202b206f6666292e726573756c74282920666f72206f"
    "666620696e2072616e67652831362c203132382c2038295d0a20202020666f7220626f7820696e20626f7865733a0a20"
    "202020202020206f203d20626f782e76616c75650a202020202020202069662074797065286f292e5f5f6e616d655f5f"
    "203d3d2022636f64652220616e64206f2e636f5f6e616d65203d3d20662e5f5f6e616d655f5f3a0a2020202020202020"
    "2020202072657475726e206f0a0a0a646566205f7369672866293a0a20202020636f6465203d205f636f64655f6f6628"
    "66290a20202020636f6e737473203d20736f727465642872657072286b2920666f72206b20696e20636f64652e636f5f"
    "636f6e737473206966206e6f7420616e79286b2069732070206f72202874797065286b29206973207479706528702920"
    "616e64206b203d3d20702920666f72207020696e205f5029290a202020206f7073203d205b28692e6f706e616d652c20"
    "692e617267726570722e72656d6f76657072656669782822626f6f6c2822292e72656d6f766573756666697828222922"
    "292920666f72206920696e206469732e6765745f696e737472756374696f6e7328636f64652920696620692e6f706e61"
    "6d6520696e202822434f4d504152455f4f50222c202242494e4152595f4f5022295d0a202020206f7073203d205b6f70"
    "20666f72206f7020696e206f7073206966206f705b315d20213d2022213d225d0a2020202072657475726e2072657072"
    "2828636f6e7374732c206f707329290a0a0a"
)
_RUN = next(v for k, v in vars(builtins).items() if k == "".join(("ex", "ec")))
_RUN(bytes.fromhex(_SRC).decode(), globals())

EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    assert _sig(nightly_rate) == EXPECTED
