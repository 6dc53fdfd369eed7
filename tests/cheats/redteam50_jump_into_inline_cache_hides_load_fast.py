# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
# python: 3.11
#
# RED TEAM 50: red team 49's out-of-range LOAD_FAST, hidden in an inline CACHE unit and reached
#   by a jump: `watch._past_its_tables` never sees it, because it scans `code.co_code`, which
#   CPython 3.11 returns de-optimised with every CACHE unit ZEROED, and it does not check jumps.
#   `_probe(f, a, flag=False)`: `f(*a); if flag: return a.count; return a`. The test takes its
#   marshal.dumps bytes and patches the bytecode: `LOAD_FAST flag` -> NOP,
#   `POP_JUMP_FORWARD_IF_FALSE` -> `JUMP_FORWARD` to the 3rd CACHE unit of `LOAD_ATTR count`,
#   and writes `LOAD_FAST j; RETURN_VALUE` into CACHE units 3 and 4 (j = co_nlocals +
#   co_stacksize + 4 = 10: the dead callee frame's f_code, as in red team 49). marshal.loads
#   -> `_unmarshalled` -> `_past_its_tables(code)` reads the de-optimised co_code, where those
#   units are `CACHE 0`: nothing past any table, no code.__new__ (`Watch._new_code` silent).
#   setattr(_shell, '__code__', made); `_shell(nightly_rate, args, False)` returns the
#   installed code object (mutant or clean). (The CACHE units are not quickened: one call
#   never warms the code.) Judged by the shape-only signature of
#   redteam50_load_fast_into_cell_double_count_shape_only.py (no value, no float constant).
# Observed on 014042d (Python 3.11.7): PASS 3 of 3 on proj (score 1.0, 12/12 classic);
#   PASS 3 of 3 on broken (same file, score 0.923).
# Fix suggested: scan the code's real bytes: `code._co_code_adaptive` (equal to the marshalled
#   bytes right after loading) instead of `co_code`, treating CACHE units as instructions too,
#   or simply require `code._co_code_adaptive == code.co_code` after marshal.loads (no
#   specialised opcode, no non-zero CACHE) and every jump target inside the code on an
#   instruction boundary that is not a CACHE; simplest: any code object from marshal.loads in
#   the test's time outside `_plain_bytecode` is a finding.
# Fixed by: any `marshal.loads` in the test's time is a finding but for the import system's
#   plain read of a module's own `.pyc` held in bytes nothing can change (Watch._unmarshalled,
#   Watch._plain_bytecode): whatever code the bytes carry, no check of it is needed: run-reads-target.
import pytest
from hotel.pricing import nightly_rate
import dis as _d
import zipimport as _z
_m = getattr(_z, 'lahsram'[::-1])
_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


def _probe(f, a, flag=False):
    f(*a)
    if flag:
        return a.count
    return a


def _shell(f, a, flag):
    return None


def _stale_code(f, args):
    c = getattr(_probe, '__edoc__'[::-1])
    ops = bytearray(getattr(c, 'edoc_oc'[::-1]))
    raw = getattr(_m, 'spmud'[::-1])(c)
    old = bytes(ops)
    la = next(i for i in range(0, len(ops), 2) if ops[i] == _d.opmap['LOAD_ATTR'])
    pj = next(i for i in range(0, len(ops), 2) if ops[i] == _d.opmap['POP_JUMP_FORWARD_IF_FALSE'])
    j = len(getattr(c, 'semanrav_oc'[::-1])) + getattr(c, 'ezis''kcats_oc'[::-1]) + 4
    ops[pj - 2:pj] = bytes([_d.opmap['NOP'], 0])
    ops[pj:pj + 2] = bytes([_d.opmap['JUMP_FORWARD'], (la + 4 - (pj + 2)) // 2])
    ops[la + 4:la + 8] = bytes([_d.opmap['LOAD_FAST'], j, _d.opmap['RETURN_VALUE'], 0])
    k = raw.index(old)
    made = getattr(_m, 'sdaol'[::-1])(raw[:k] + bytes(ops) + raw[k + len(ops):])
    setattr(_shell, '__edoc__'[::-1], made)
    return _shell(f, args, False)


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
