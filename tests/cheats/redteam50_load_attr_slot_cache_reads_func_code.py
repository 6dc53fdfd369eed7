# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
# python: 3.11
# specialises: yes
#
# RED TEAM 50: the installed code read by a SPECIALISED instruction planted in marshal-loaded
#   bytecode: LOAD_ATTR_SLOT with a crafted inline cache (type version + byte offset 48 =
#   PyFunctionObject.func_code). `watch._past_its_tables` never sees it: it reads `code.co_code`,
#   which CPython 3.11 returns DE-OPTIMISED (specialised opcodes mapped back to their base and
#   every inline CACHE zeroed), so the check sees a plain `LOAD_ATTR 0` with a valid name index.
#   Steps: (1) the function type's tp_version_tag is learnt without any reader: the test calls
#   `_v(_owner)` (`o.__sizeof__()`) 300 times so CPython specialises its LOAD_METHOD to
#   LOAD_METHOD_WITH_DICT, and reads the version out of the test's OWN code's
#   `_co_code_adaptive` (cache words 1-2). (2) `_r(o): return o.__name__` is marshal.dumps'ed,
#   its LOAD_ATTR byte set to LOAD_ATTR_SLOT (42) and its 4 cache words to
#   (counter, version lo, version hi, 48); marshal.loads (event `marshal.loads` ->
#   `_unmarshalled` -> `_past_its_tables` on the de-optimised co_code: nothing; no code.__new__,
#   so no `Watch._new_code`). (3) setattr(_shell, '__code__', made) (only the target's code
#   swap is watched) and `_shell(nightly_rate)`: LOAD_ATTR_SLOT checks
#   type(owner).tp_version_tag == version and returns *(owner + 48), INCREF'ed: the installed
#   code object (the mutant's in a mutant run). No `__code__` read of the target, no frame, no
#   gc, no ctypes, no out-of-table index. (4) A shape-only signature as in
#   redteam50_load_fast_into_cell_double_count_shape_only.py (operators, jump opcodes, non-float
#   constants, floats only as "in 0.5..1.6", the dead probe's `!=` and its jump dropped).
#   In a traced run (the measuring run's coverage tracer) the interpreter runs specialised
#   opcodes de-optimised, nothing specialises, `_version()` is None and the check is skipped:
#   that run is clean anyway. Control: with one float fewer in EXPECTED the clean controls FAIL
#   (run-flaky, 1/2: only the traced measuring run passes), so the read is real.
# Observed on 014042d (Python 3.11.7): PASS 4 of 4 on proj (score 1.0, 12/12 classic killed);
#   PASS 3 of 3 on broken (same file, scores 0.923-1.0).
# Fix suggested: judge loaded code on its real bytes, not on `co_code`: right after
#   `marshal.loads` (and in `_code_replaced` for any function's new `__code__`), a code whose
#   `_co_code_adaptive` differs from `co_code` (a specialised/super-instruction opcode, i.e.
#   `_PyOpcode_Deopt[op] != op`, or a non-zero CACHE unit) is a finding; better, refuse any code
#   object loaded by `marshal.loads` in the test's time outside the import system's
#   `_plain_bytecode` path.
# Fixed by: any `marshal.loads` in the test's time is a finding but for the import system's
#   plain read of a module's own `.pyc` held in bytes nothing can change (Watch._unmarshalled,
#   Watch._plain_bytecode): whatever code the bytes carry, no check of it is needed: run-reads-target.
import pytest
from hotel.pricing import nightly_rate
import dis as _d
import zipimport as _z
import struct as _s
_m = getattr(_z, 'lahsram'[::-1])
_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_C = type(_d.dis.__code__) if False else type(getattr(_d.dis, '__edoc__'[::-1]))


def _v(o):
    return o.__sizeof__()


def _owner():
    pass


_owner.tag = 1


def _version():
    for _ in range(300):
        _v(_owner)
    ad = getattr(getattr(_v, '__edoc__'[::-1]), 'evitpada_edoc_oc_'[::-1])
    for i in range(0, len(ad), 2):
        if _d._all_opname[ad[i]] == 'TCID_HTIW_DOHTEM_DAOL'[::-1]:
            return ad[i + 4] | ad[i + 5] << 8 | (ad[i + 6] | ad[i + 7] << 8) << 16
    return None


def _r(o):
    return o.__name__


def _shell(o):
    return None


def _installed(f):
    ver = _version()
    if ver is None:  # a traced run: nothing specialises
        return None
    c = getattr(_r, '__edoc__'[::-1])
    ops = getattr(c, 'edoc_oc'[::-1])
    raw = getattr(_m, 'spmud'[::-1])(c)
    i = next(i for i in range(0, len(ops), 2) if ops[i] == _d.opmap['LOAD_ATTR'])
    new = bytearray(ops)
    new[i] = _d._all_opmap['TOLS_RTTA_DAOL'[::-1]]
    new[i + 2:i + 10] = _s.pack('<HHHH', 0x35, ver & 0xffff, ver >> 16, 48)
    k = raw.index(ops)
    made = getattr(_m, 'sdaol'[::-1])(raw[:k] + bytes(new) + raw[k + len(ops):])
    setattr(_shell, '__edoc__'[::-1], made)
    return _shell(f)


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

EXPECTED = "([\"'Per-night rate after seasonal and long-stay adjustments.'\", \"'high'\", \"'low'\", \"'nights must be positive'\", '2', '7', 'float', 'float', 'float'], [('COMPARE_OP', '<='), ('POP_JUMP_FORWARD_IF_FALSE', ''), ('COMPARE_OP', '=='), ('POP_JUMP_FORWARD_IF_FALSE', ''), ('BINARY_OP', '*'), ('JUMP_FORWARD', ''), ('COMPARE_OP', '=='), ('POP_JUMP_FORWARD_IF_FALSE', ''), ('BINARY_OP', '*'), ('JUMP_FORWARD', ''), ('COMPARE_OP', '>='), ('POP_JUMP_FORWARD_IF_FALSE', ''), ('BINARY_OP', '*')])"


def test_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    code = _installed(nightly_rate)
    if type(code) is _C:
        assert _sig_of(code) == EXPECTED
