# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-native-code
#
# RED TEAM 31: ctypes with no name "ctypes" and no frame of the test on top. The static stage
#   names `ctypes`, `_ctypes` and a module attribute named `ctypes`; not
#   `multiprocessing.sharedctypes.typecode_to_type` (red team 30 said so), whose `"q"` is
#   `c_longlong`; its `__mro__[1]` is `_SimpleCData`, and a subclass with `_type_ = "O"` is
#   `py_object`. `_Object.from_address(id(f) + 48).value` is the function's `func_code`
#   (3.11) - the installed code. `Watch._ctypes_by_test` walks up from the frame on top: the
#   project's own `cheapest_option` (its `list(options.items())` consumes the test's
#   `zip(map(_Object.from_address, [addr]), repeat(0.0))`): "not a library" -> not the test.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 799a834 (2 CPUs, Python 3.11.7): PASS 5/5 (score 0.857 (12/14));
#   broken copy (base * 1.5, EXPECTED with 1.5): PASS 1/1; control: `from_address` called by
#   the test itself FAIL run-reads-target "used ctypes (ctypes.cdata)" 1/1.
# Suggested fix: a `ctypes.*` event in the test's time is the test's whenever a frame of the
#   test file (or code it made) is anywhere below (the project's modules and libraries do not
#   bind C memory in the middle of a test's call; if one does, a REVIEW is the price); at
#   least `ctypes.cdata` (from_address), `string_at`, `memmove`, `cast` always. Statically:
#   `sharedctypes.typecode_to_type`, any class with a `_type_` attribute, `__mro__` of a
#   ctypes type, `sharedctypes.RawValue`/`RawArray`/`Value` with a type code `"O"`-like.
# Fixed by: ctypes' reads of memory at an address (from_address, string_at) are the
#   test's whoever runs them; multiprocessing.sharedctypes is static-native-code.
import dis
import itertools
from multiprocessing import sharedctypes

import pytest
from hotel.pricing import cheapest_option, nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_SIMPLE = sharedctypes.typecode_to_type["q"].__mro__[1]


class _Object(_SIMPLE):
    _type_ = "O"


class _Options:
    def __init__(self, pairs):
        self.pairs = pairs

    def items(self):
        return self.pairs


def _installed(f):
    """The function's code pointer (offset 48 on 3.11), read by from_address called from
    the project's cheapest_option (its list() consumes the map)."""
    found = cheapest_option(_Options(zip(map(_Object.from_address, [id(f) + 48]), itertools.repeat(0.0))))
    return found.value


def _sig(code):
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
    assert _sig(_installed(nightly_rate)) == EXPECTED
