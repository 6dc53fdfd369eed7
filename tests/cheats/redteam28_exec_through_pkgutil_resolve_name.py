# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-hidden-code
#
# RED TEAM 28: `exec` by a name the resolver does not follow: pkgutil.resolve_name(
#   "builtins:exec") returns the builtin; static-hidden-code looks for calls whose callee
#   *resolves* to exec/eval/compile (or a literal __builtins__["exec"] key), and the string
#   "builtins:exec" is no reference it resolves. The hex-decoded body is the ctypes reader of
#   red team 27, finding 06 (the documented residual). A machine PASS where the rule
#   promises a REVIEW. (operator.attrgetter/methodcaller with a built name on `builtins` is
#   the same: _ATTR_READERS judges literal names only.)
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on bb68791 (2 CPUs, Python 3.11.7): PASS 2/2.
# Fixed by: a string naming a function that runs code ("builtins:exec") is static-hidden-code:
#   REVIEW, no machine PASS.
# Suggested fix: pkgutil.resolve_name/pydoc.locate are importers (computed or not, their
#   string is a reference to resolve: "builtins:exec" -> builtins.exec -> _FROM_TEXT); at run
#   time, a `compile`/`exec` audit event in the test's time for source that is not the test
#   file's (co_filename "<string>" and no literal of the file) is the REVIEW.
import pkgutil

import pytest
from hotel.pricing import nightly_rate

_DATA = (
    "696d706f7274206374797065730a696d706f727420646973206173205f640a5f50203d20284e6f6e652c20302c202829"
    "2c2027272c2046616c73652c20312c202d312c20302e302c2037302c20276f73272c20275f6578697427290a0a646566"
    "205f636f64655f6f662866293a0a20202020666f72206f666620696e2072616e67652831362c203132382c2038293a0a"
    "20202020202020206f203d206374797065732e70795f6f626a6563742e66726f6d5f6164647265737328696428662920"
    "2b206f6666292e76616c75650a202020202020202069662074797065286f292e5f5f6e616d655f5f203d3d2022636f64"
    "652220616e64206f2e636f5f6e616d65203d3d20662e5f5f6e616d655f5f3a0a20202020202020202020202072657475"
    "726e206f0a0a646566205f7369672866293a0a20202020636f6465203d205f636f64655f6f662866290a20202020636f"
    "6e737473203d20736f727465642872657072286b2920666f72206b20696e20636f64652e636f5f636f6e737473206966"
    "206e6f7420616e79286b2069732070206f72202874797065286b29206973207479706528702920616e64206b203d3d20"
    "702920666f72207020696e205f5029290a202020206f7073203d205b28692e6f706e616d652c20692e61726772657072"
    "2e72656d6f76657072656669782822626f6f6c2822292e72656d6f766573756666697828222922292920666f72206920"
    "696e205f642e6765745f696e737472756374696f6e7328636f64652920696620692e6f706e616d6520696e202822434f"
    "4d504152455f4f50222c202242494e4152595f4f5022295d0a202020206f7073203d205b6f7020666f72206f7020696e"
    "206f7073206966206f705b315d20213d2022213d225d0a2020202072657475726e20726570722828636f6e7374732c20"
    "6f707329290a0a676c6f62616c7328295b275f736967275d203d205f7369670a"
)
pkgutil.resolve_name("builtins:exec")(bytes.fromhex(_DATA).decode(), globals())

EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    assert _sig(nightly_rate) == EXPECTED
