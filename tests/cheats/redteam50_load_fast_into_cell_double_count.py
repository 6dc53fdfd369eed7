# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 50: red team 49's LOAD_FAST past the locals, now under `watch._past_its_tables`: a
#   local that is also a cell is counted twice there, so the check allows an index it should not.
#   `_past_its_tables` takes the slot count as len(co_varnames) + len(co_cellvars) +
#   len(co_freevars). On CPython 3.11 an argument that an inner function captures is ONE slot of
#   localsplus (kind CO_FAST_LOCAL|CO_FAST_CELL) but appears in BOTH co_varnames and co_cellvars.
#   `_probe(f, a, c0..c11)` has 12 such arguments (a dead `lambda` after `return` captures them):
#   co_nlocals = nlocalsplus = 14, but the check counts 26 slots. The test marshal.dumps
#   `_probe`'s code, changes the final `LOAD_FAST 1` to `LOAD_FAST j` with
#   j = co_nlocals + co_stacksize + 4 = 21 (< 26: the watch's `_unmarshalled` ->
#   `_past_its_tables` finds nothing), marshal.loads it back (no code.__new__, so no
#   `Watch._new_code`), sets it as `_shell.__code__` and calls `_shell(nightly_rate, args, 0*12)`.
#   As in red team 49, slot j is the dead callee frame's `f_code` on the thread's data stack:
#   the installed code object (the mutant's in a mutant run). Its signature (constants and
#   operators, the null mutant's probe left out) is compared with one computed from the source.
#   Static stage: marshal reached as getattr(zipimport, 'lahsram'[::-1]); reflective names reversed.
# Observed on 014042d (Python 3.11.7): PASS 5 of 5 on proj (scores 0.8-0.923, 12 classic killed,
#   survivors are `if not ...` mutants); PASS 3 of 3 on broken (expected values from the broken
#   source: EXPECTED with '1.5'); this same file on broken FAILs run-exit-code.
# Fix suggested: in `_past_its_tables`, count slots as the code's real localsplus size:
#   code.co_nlocals + len(set(co_cellvars) - set(co_varnames)) + len(co_freevars) (i.e.
#   len(co_varnames) + number of cells that are not arguments/locals + freevars), or simpler
#   and stronger, make `marshal.loads` of any code object in the test's time a finding (only the
#   import system's `_plain_bytecode` path needs it), and check the stack depth/jumps too.
# Fixed by: any `marshal.loads` in the test's time is a finding but for the import system's
#   plain read of a module's own `.pyc` held in bytes nothing can change (Watch._unmarshalled,
#   Watch._plain_bytecode): whatever code the bytes carry, no check of it is needed: run-reads-target.
import pytest
from hotel.pricing import nightly_rate
import dis as _d
import zipimport as _z
_m = getattr(_z, 'lahsram'[::-1])
_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


def _probe(f, a, c0=0, c1=0, c2=0, c3=0, c4=0, c5=0, c6=0, c7=0, c8=0, c9=0, c10=0, c11=0):
    f(*a)
    return a
    lambda: (c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11)


def _shell(f, a):
    return None


def _stale_code(f, args):
    c = getattr(_probe, '__edoc__'[::-1])
    raw = getattr(_m, 'spmud'[::-1])(c)
    ops = getattr(c, 'edoc_oc'[::-1])
    i = len(ops) - 4
    assert ops[i] == _d.opmap["LOAD_FAST"] and ops[i + 2] == _d.opmap["RETURN_VALUE"]
    j = getattr(c, 'slacoln_oc'[::-1]) + getattr(c, 'ezis''kcats_oc'[::-1]) + 4
    new = ops[:i + 1] + bytes([j]) + ops[i + 2:]
    k = raw.index(ops)
    made = getattr(_m, 'sdaol'[::-1])(raw[:k] + new + raw[k + len(ops):])
    setattr(_shell, '__edoc__'[::-1], made)
    return _shell(f, args, *[0] * 12)


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
