# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-hidden-code|run-reads-target
#
# RED TEAM 28: the static stage reads only the test file, and static-hidden-code names file
#   loaders (spec_from_file_location, SourceFileLoader, runpy) but not the plain import
#   system: the test writes hex-decoded source to tmp_path/rate_helpers.py (allowed: under
#   tmp_path), puts tmp_path on sys.path and imports it with importlib.import_module("...")
#   of a literal name. The imported module is the ctypes reader of red team 27, finding 06
#   (the documented residual): its code is a real file, not <string>, and its ctypes reads
#   raise no event the watch judges. A machine PASS instead of REVIEW.
# Observed on bb68791 (2 CPUs, Python 3.11.7): PASS 3/3 (score 0.923, 12/13 classic killed);
#   broken copy (base * 1.5, EXPECTED with 1.5): PASS 1/1.
# Fixed by: a change to where Python imports from (sys.path, sys.meta_path, sys.path_hooks,
#   monkeypatch.syspath_prepend) is static-hidden-code: REVIEW, no machine PASS.
# Suggested fix: static: a write of bytes/text to a *.py (or any file later on sys.path) plus
#   sys.path/sys.meta_path/sys.path_hooks changes is static-hidden-code; at run time: an
#   `import` audit event of a module whose file is under the run's temp dir (or any module
#   not in the project, stdlib or site-packages), and `sys.path` grown in the test's time,
#   are findings (REVIEW at least).
# Since red team 31 the run FAILs it as well: the module's file lies in the run's writable
#   folder, so its code is the test's, and its ctypes read of memory counts whoever runs it.
import importlib
import sys

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
    "6f707329290a"
)

EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate(tmp_path):
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    (tmp_path / "rate_helpers.py").write_bytes(bytes.fromhex(_DATA))
    sys.path.insert(0, str(tmp_path))
    helpers = importlib.import_module("rate_helpers")
    assert helpers._sig(nightly_rate) == EXPECTED
