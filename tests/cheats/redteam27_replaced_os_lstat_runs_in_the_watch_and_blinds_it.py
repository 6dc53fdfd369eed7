# ruff: noqa
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 27, finding 02b (variant of 02): binding `os.path.realpath` at import is not enough.
#   posixpath.realpath itself calls `os.lstat` (and os.readlink, os.getcwd, os.fspath) through
#   the `os` module at call time: the test replaces `os.lstat`, raises a compile event under
#   "/blind/x", the watch's `_is_target` -> realpath -> _joinrealpath calls the replacement,
#   which walks to the Watch's frame and sets `self._judge` to a no-op; then it reads
#   `nightly_rate.__code__` plainly. Body hidden in a hex exec.
# Observed on be56407 (2 CPUs, Python 3.11): PASS 3 of 3, 1 of 1 broken.
# Fixed by: the hooks call nothing the test can replace: the system calls they make are bound
#   at import (pytest_quest.hooked), paths are compared as text made before the test, no
#   os.path.realpath in the test's time: FAIL run-reads-target.
# Fix: no Python-level library code in the hook's path that looks names up at call time
#   (write a resolver on `posix.lstat`/`posix.readlink` bound at import, or resolve the test's
#   inputs only by exact-type comparisons against precomputed real paths), and keep the
#   watch's state out of any frame a callee can walk to (f_locals['self']).
import pytest
from hotel.pricing import nightly_rate

_SRC = (
    "696d706f7274206f732c207379730a696d706f727420646973206173205f640a5f50203d20284e6f6e652c20302c2028"
    "292c2027272c2046616c73652c20312c202d312c20302e302c2037302c20276f73272c20275f6578697427290a5f6f72"
    "6967203d206f732e6c737461740a5f7374617465203d207b7d0a0a646566205f727028702c202a612c202a2a6b293a0a"
    "202020206966206e6f74205f73746174652e6765742827646f6e6527293a0a202020202020202066203d207379732e5f"
    "6765746672616d652831290a20202020202020207768696c652066206973206e6f74204e6f6e653a0a20202020202020"
    "202020202073203d20662e665f6c6f63616c732e676574282773656c6627290a20202020202020202020202069662074"
    "7970652873292e5f5f6e616d655f5f203d3d20275761746368273a0a20202020202020202020202020202020732e5f6a"
    "75646765203d206c616d626461206576656e742c20617267733a204e6f6e650a20202020202020202020202020202020"
    "5f73746174655b27646f6e65275d203d20547275650a20202020202020202020202020202020627265616b0a20202020"
    "202020202020202066203d20662e665f6261636b0a2020202072657475726e205f6f72696728702c202a612c202a2a6b"
    "290a0a646566205f626c696e6428293a0a202020206f732e6c73746174203d205f72700a202020207472793a0a202020"
    "2020202020636f6d70696c65282230222c20222f626c696e642f78222c20226576616c22290a2020202066696e616c6c"
    "793a0a20202020202020206f732e6c73746174203d205f6f7269670a0a646566205f73696728662c20636f6e6669673d"
    "4e6f6e65293a0a202020205f626c696e6428290a20202020636f6465203d206765746174747228662c20225f5f636f22"
    "202b202264655f5f22290a20202020636f6e737473203d20736f727465642872657072286b2920666f72206b20696e20"
    "636f64652e636f5f636f6e737473206966206e6f7420616e79286b2069732070206f72202874797065286b2920697320"
    "7479706528702920616e64206b203d3d20702920666f72207020696e205f5029290a202020206f7073203d205b28692e"
    "6f706e616d652c20692e617267726570722e72656d6f76657072656669782822626f6f6c2822292e72656d6f76657375"
    "6666697828222922292920666f72206920696e205f642e6765745f696e737472756374696f6e7328636f646529206966"
    "20692e6f706e616d6520696e202822434f4d504152455f4f50222c202242494e4152595f4f5022295d0a202020206f70"
    "73203d205b6f7020666f72206f7020696e206f7073206966206f705b315d20213d2022213d225d0a2020202072657475"
    "726e20726570722828636f6e7374732c206f707329290a"
)
exec(bytes.fromhex(_SRC).decode(), globals())

EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate(request):
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    assert _sig(nightly_rate) == EXPECTED
