# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-hidden-code
#
# RED TEAM 28: static-hidden-code (rules/hidden.py) names exec/eval/compile, marshal,
#   types.CodeType/FunctionType, runpy and file loaders, but not pickle: `pickle.loads` of
#   crafted bytes calls any global with any arguments (REDUCE of builtins.exec here). The
#   hex-encoded pickle runs `exec(<ctypes reader>)` at import: ctypes.py_object.from_address(
#   id(f) + off).value finds PyFunctionObject.func_code (red team 27, finding 06), with no
#   audit event the watch judges. The documented ctypes residual was meant to end at REVIEW
#   when hidden; hidden in a pickle it is a machine PASS. No static rule fires: "ctypes" and
#   "exec" are inside bytes that are only hex text in the file.
# Observed on bb68791 (2 CPUs, Python 3.11.7): PASS 4/4 (score 0.8, 12/15 classic killed);
#   broken copy (base * 1.5, EXPECTED with 1.5): PASS 1/1.
# Fixed by: pickle.loads of anything but a pickle.dumps of the file is static-hidden-code:
#   REVIEW, no machine PASS.
# Suggested fix: add pickle.loads/load, pickle.Unpickler, _pickle.*, copyreg, shelve,
#   marshal-alikes (and any `loads` of a deserializer that can call globals: dill, jsonpickle,
#   yaml.unsafe_load/load with an unsafe Loader) to _FROM_DATA/_HANDED; at run time make
#   `pickle.find_class` (an audit event) and `exec`/`compile` of code not in the test file
#   findings; and refuse ctypes.* audit events in the test's time (the residual's real fix).
import pickle

import pytest
from hotel.pricing import nightly_rate

_DATA = (
    "800495c5020000000000008c086275696c74696e73948c046578656394939458a6020000696d706f7274206374797065"
    "730a696d706f727420646973206173205f640a5f50203d20284e6f6e652c20302c2028292c2027272c2046616c73652c"
    "20312c202d312c20302e302c2037302c20276f73272c20275f6578697427290a0a646566205f636f64655f6f66286629"
    "3a0a20202020666f72206f666620696e2072616e67652831362c203132382c2038293a0a20202020202020206f203d20"
    "6374797065732e70795f6f626a6563742e66726f6d5f61646472657373286964286629202b206f6666292e76616c7565"
    "0a202020202020202069662074797065286f292e5f5f6e616d655f5f203d3d2022636f64652220616e64206f2e636f5f"
    "6e616d65203d3d20662e5f5f6e616d655f5f3a0a20202020202020202020202072657475726e206f0a0a646566205f73"
    "69672866293a0a20202020636f6465203d205f636f64655f6f662866290a20202020636f6e737473203d20736f727465"
    "642872657072286b2920666f72206b20696e20636f64652e636f5f636f6e737473206966206e6f7420616e79286b2069"
    "732070206f72202874797065286b29206973207479706528702920616e64206b203d3d20702920666f72207020696e20"
    "5f5029290a202020206f7073203d205b28692e6f706e616d652c20692e617267726570722e72656d6f76657072656669"
    "782822626f6f6c2822292e72656d6f766573756666697828222922292920666f72206920696e205f642e6765745f696e"
    "737472756374696f6e7328636f64652920696620692e6f706e616d6520696e202822434f4d504152455f4f50222c2022"
    "42494e4152595f4f5022295d0a202020206f7073203d205b6f7020666f72206f7020696e206f7073206966206f705b31"
    "5d20213d2022213d225d0a2020202072657475726e20726570722828636f6e7374732c206f707329290a94859452942e"
)
pickle.loads(bytes.fromhex(_DATA))

EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    assert _sig(nightly_rate) == EXPECTED
