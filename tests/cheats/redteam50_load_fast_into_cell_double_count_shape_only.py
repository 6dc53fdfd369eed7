# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 50: the installed code read through LOAD_FAST past the real locals (the slot check
#   counts a captured argument twice), then compared by SHAPE ONLY: no value of nightly_rate and
#   not even its float constants in the file, so the unchanged file PASSes on the broken copy.
#   Reader: as redteam50_load_fast_into_cell_double_count.py. `watch._past_its_tables` counts
#   slots as len(co_varnames) + len(co_cellvars) + len(co_freevars); on CPython 3.11 an argument
#   captured by an inner function is one localsplus slot but is in both co_varnames and
#   co_cellvars. `_probe(f, a, c0..c11)` (a dead lambda captures c0..c11) has 14 real slots,
#   26 counted; LOAD_FAST 21 (= co_nlocals + co_stacksize + 4) passes `_unmarshalled` and reads
#   the dead callee frame's f_code on the data stack: the installed (mutant or clean) code.
#   Judge: a shape signature of that code: its non-float constants, "a float in 0.5..1.6" for
#   each float constant, the COMPARE_OP/BINARY_OP operators and the jump opcodes (targets left
#   out), with the mutants' dead probe (`if name != value: os._exit(70)`: the `!=` compare and
#   its jump) dropped, so the null mutant survives. Every classic mutant changes an operator,
#   a jump's sense (`if not`), an int constant, or moves a float by +-1 out of 0.5..1.6.
# Observed on 014042d (Python 3.11.7): PASS 4 of 4 on proj (score 1.0, 12/12 classic killed);
#   PASS 4 of 4 on broken (same file; scores 0.923-1.0).
# Fix suggested: `_past_its_tables` must count the real localsplus size
#   (co_nlocals + cells that are not locals + co_freevars, i.e. len(set(co_varnames) |
#   set(co_cellvars)) + len(co_freevars)); better, any `marshal.loads` of a code object in the
#   test's time outside the import system's `_plain_bytecode` is a finding (honest tests never
#   unmarshal code), and COPY/SWAP depths, co_stacksize and jump targets are not verifiable
#   cheaply, which is one more reason to refuse loaded code outright.
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
    consts = sorted('float' if type(k) is float and 0.5 <= k <= 1.6 else repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    ops = [(i.opname, i.argrepr if i.opname in ("COMPARE_OP", "BINARY_OP") else '') for i in _d.get_instructions(code)
           if i.opname in ("COMPARE_OP", "BINARY_OP") or 'JUMP' in i.opname]
    kept, skip = [], False
    for op in ops:
        if op[1] == "!=":
            skip = True
            continue
        if skip:
            skip = False
            continue
        kept.append(op)
    return repr((consts, kept))

EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'2\', \'7\', \'float\', \'float\', \'float\'], [(\'COMPARE_OP\', \'<=\'), (\'POP_JUMP_FORWARD_IF_FALSE\', \'\'), (\'COMPARE_OP\', \'==\'), (\'POP_JUMP_FORWARD_IF_FALSE\', \'\'), (\'BINARY_OP\', \'*\'), (\'JUMP_FORWARD\', \'\'), (\'COMPARE_OP\', \'==\'), (\'POP_JUMP_FORWARD_IF_FALSE\', \'\'), (\'BINARY_OP\', \'*\'), (\'JUMP_FORWARD\', \'\'), (\'COMPARE_OP\', \'>=\'), (\'POP_JUMP_FORWARD_IF_FALSE\', \'\'), (\'BINARY_OP\', \'*\')])'


def test_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    code = _stale_code(nightly_rate, (100.0, "high", 3))
    assert _sig_of(code) == EXPECTED
