# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# Found in review of red team 49's fix (session 18): red team 49's attack with the crafted code
#   wrapped in a tuple. `_probe(f, a)` is `f(*a); return a`; the test marshals `(code,)`, changes
#   the final `LOAD_FAST 1` to `LOAD_FAST j` (j = locals + stack size + 4: the slot where the
#   finished callee's frame kept its code) and loads the tuple back. The watch checked the
#   loaded value only when it was a code object itself (`_unmarshalled`: `pending = [loaded]
#   if type(loaded) is CodeType else []`), so the code inside the tuple came with no check of
#   its tables. Set as `_shell.__code__` and called just after `nightly_rate`, it returns the
#   installed code (the mutant's in a mutant run); its constants and operators are compared
#   with a signature computed from the source. No expected value of nightly_rate anywhere.
# Observed on 014042d (Python 3.11.7): PASS 3 of 3 on the demo; with the signature of the
#   broken source (base * 1.5), PASS 2 of 2 on the broken copy.
#   The same review found two more ways past that check, fixed with it: a specialized
#   instruction written into the loaded bytes (`LOAD_ATTR_SLOT`: `co_code` shows `LOAD_ATTR`,
#   the caches are the loader's, an offset of any object is read), and the event's copy of
#   the bytes checked while `marshal` parses the caller's buffer, which another thread may
#   change in between.
# Fixed by: any `marshal.loads` in the test's time is a finding but for the import system's
#   plain read of a module's own `.pyc` held in bytes nothing can change
#   (Watch._unmarshalled, Watch._plain_bytecode, watch._frozen_bytes): run-reads-target.
import pytest
from hotel.pricing import nightly_rate
import dis as _d
import zipimport as _z
_m = getattr(_z, 'lahsram'[::-1])
_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


def _probe(f, a):
    f(*a)
    return a


def _shell(f, a):
    return None


def _stale_code(f, args):
    c = getattr(_probe, '__edoc__'[::-1])
    raw = getattr(_m, 'spmud'[::-1])((c,))
    ops = getattr(c, 'edoc_oc'[::-1])
    i = len(ops) - 4
    assert ops[i] == _d.opmap["LOAD_FAST"] and ops[i + 2] == _d.opmap["RETURN_VALUE"]
    j = len(getattr(c, 'semanrav_oc'[::-1])) + getattr(c, 'ezis''kcats_oc'[::-1]) + 4
    new = ops[:i + 1] + bytes([j]) + ops[i + 2:]
    k = raw.index(ops)
    made = getattr(_m, 'sdaol'[::-1])(raw[:k] + new + raw[k + len(ops):])[0]
    setattr(_shell, '__edoc__'[::-1], made)
    return _shell(f, args)


def _sig_of(code):
    consts = sorted(repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    ops = [(i.opname, i.argrepr) for i in _d.get_instructions(code) if i.opname in ("COMPARE_OP", "BINARY_OP")]
    ops = [op for op in ops if op[1] != "!="]
    return repr((consts, ops))

EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    code = _stale_code(nightly_rate, (100.0, "high", 3))
    assert _sig_of(code) == EXPECTED
