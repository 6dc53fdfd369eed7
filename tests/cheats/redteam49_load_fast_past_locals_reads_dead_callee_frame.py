# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 49: the installed code read out of the target's own dead frame: LOAD_FAST past the
#   end of its locals (marshal-loaded bytecode; only LOAD_CONST indexes are checked).
#   `_probe(f, a)` is compiled normally: `f(*a); return a`. The test marshal.dumps its code,
#   changes the one byte of the final `LOAD_FAST 1` to `LOAD_FAST j` with
#   j = nlocalsplus + co_stacksize + 4, and marshal.loads the bytes back (the watch's
#   `_unmarshalled` only checks `LOAD_CONST`/hasconst: `_past_its_constants`). It puts that code
#   into a function of its own (`setattr(_shell, '__code__', made)`) and calls
#   `_shell(nightly_rate, args)`. CPython 3.11 pushes the callee's `_PyInterpreterFrame` on the
#   thread's data stack right after the caller's localsplus + stack; when nightly_rate returns,
#   its frame memory is left as it was, and slot j of the caller is the callee's `f_code` field
#   (frame specials: f_func, f_globals, f_builtins, f_locals, f_code, ...). LOAD_FAST j returns
#   the installed code object (the mutant's in a mutant run). No `__code__` of the target, no
#   frame object, no gc, no ctypes, no code.__new__, no out-of-bounds constant, no address.
#   The signature (constants and operators, the null mutant's probe left out, as in
#   oracle_code_signature_with_the_watch_blinded.py) is compared with one computed from the
#   source. No expected value of nightly_rate anywhere.
#   Static stage: `marshal` taken as `getattr(zipimport, 'lahsram'[::-1])`, every reflective
#   name reversed; no exec (wrap.py's hex exec gives REVIEW static-hidden-code).
# Observed on 4c7f3ff (2 CPUs, Python 3.11.7): PASS 8 of 8 (5 of 5 as is, 3 of 3 re-seeded with a
#   comment line; scores 0.923 and 0.857, 12 of 13-14 classic
#   killed, null mutant survives); the same file with EXPECTED from the broken source
#   (base * 1.5): PASS 3 of 3 on /work/redteam49/work/broken (scores 0.857, 0.8, 0.923).
#   Control: this file on the broken copy FAILs run-exit-code (the signature differs).
#   Quest hotel/pricing.py::tax_amount (same code, its own signature): PASS 1 of 1 (0.643).
# Fix suggested: check every code the test's time loads or makes (`_unmarshalled`, and at the
#   `object.__setattr__` of `__code__`) for every index, not only LOAD_CONST: LOAD_FAST /
#   STORE_FAST / DELETE_FAST / LOAD_FAST_CHECK / LOAD_CLOSURE / LOAD_DEREF / STORE_DEREF against
#   len(co_varnames + co_cellvars + co_freevars); LOAD_NAME / LOAD_GLOBAL (oparg >> 1) /
#   LOAD_ATTR / LOAD_METHOD / STORE_* / IMPORT_* against co_names; jumps inside co_code; or,
#   simpler and stronger, make marshal.loads of code in the test's time a finding outright
#   (honest tests do not unmarshal code; the import system's own .pyc reads are already told
#   apart by `_plain_bytecode`).
# Fixed by: code loaded from bytes (marshal, a .pyc) may name no constant, name, local or
#   cell past its tables (watch._past_its_tables), and any code object made in the test's time
#   is a finding (Watch._new_code): run-reads-target.
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
    raw = getattr(_m, 'spmud'[::-1])(c)
    ops = getattr(c, 'edoc_oc'[::-1])
    i = len(ops) - 4
    assert ops[i] == _d.opmap["LOAD_FAST"] and ops[i + 2] == _d.opmap["RETURN_VALUE"]
    j = len(getattr(c, 'semanrav_oc'[::-1])) + getattr(c, 'ezis''kcats_oc'[::-1]) + 4
    new = ops[:i + 1] + bytes([j]) + ops[i + 2:]
    k = raw.index(ops)
    made = getattr(_m, 'sdaol'[::-1])(raw[:k] + new + raw[k + len(ops):])
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
