# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 49: the same dead-frame read as
#   redteam49_load_fast_past_locals_reads_dead_callee_frame.py, but the crafted code is loaded
#   by the import system from a .pyc the test wrote: no marshal.loads / code.__new__ / exec by
#   the test. `_probe2()` (from hotel.pricing import nightly_rate as f; f(...); RESULT = f) is
#   marshal.dumps'd; the `LOAD_FAST f` before `STORE_GLOBAL RESULT` becomes
#   `LOAD_FAST nlocalsplus + co_stacksize + 4`; the bytes get a .pyc header
#   (MAGIC_NUMBER + 12 zero bytes) and go to tmp_path/rt49gadget.pyc; the file is run with
#   `_bootstrap_external.SourcelessFileLoader(name, path).load_module(name)` (reached as
#   zipimport._bootstrap_external, names reversed). The code runs as the module's code (a
#   function's code run by exec in the module's namespace, fast locals and all): after the call
#   of nightly_rate, the dead callee frame's `f_code` slot is read into RESULT: the installed code.
#   `_compile_bytecode` raises marshal.loads; the .pyc is in a writable folder, so it is not
#   "plain", and `_unmarshalled` checks only LOAD_CONST indexes.
# Observed on 4c7f3ff (2 CPUs, Python 3.11.7): PASS 4 of 4 (score 0.857, 12 of 14 classic
#   killed); EXPECTED from the broken source: PASS 2 of 2 on /work/redteam49/work/broken (0.857,
#   0.8). Static stage: nothing (spec_from_file_location / module_from_spec / exec_module give
#   REVIEW static-hidden-code; getattr of importlib.util gives static-reflective-access;
#   getattr of zipimport is not flagged).
# Fix suggested: as for the marshal file: check every index of code loaded from bytes (LOAD_FAST
#   and the other localsplus, names, jump indexes), or make code loaded from a .pyc the test's
#   time wrote (any marshal.loads whose bytes are not a shipped .pyc's) a finding; static: a
#   `.pyc` name built by reversal, SourcelessFileLoader, load_module.
# Fixed by: code loaded from bytes (marshal, a .pyc) may name no constant, name, local or
#   cell past its tables (watch._past_its_tables), and any code object made in the test's time
#   is a finding (Watch._new_code): run-reads-target.
import pytest
from hotel.pricing import nightly_rate
import dis as _d
import zipimport as _z
_m = getattr(_z, 'lahsram'[::-1])
_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')


def _probe2():
    global RESULT
    from hotel.pricing import nightly_rate as f
    f(100.0, "high", 3)
    RESULT = f


def _stale_code_via_pyc(folder):
    import sys as _s
    c = getattr(_probe2, '__edoc__'[::-1])
    raw = getattr(_m, 'spmud'[::-1])(c)
    ops = getattr(c, 'edoc_oc'[::-1])
    i = next(n for n in range(0, len(ops) - 2, 2)
             if ops[n] == _d.opmap["LOAD_FAST"] and ops[n + 2] == _d.opmap["STORE_GLOBAL"])
    assert ops[i] == _d.opmap["LOAD_FAST"] and ops[i + 2] == _d.opmap["STORE_GLOBAL"], list(ops)
    j = len(getattr(c, 'semanrav_oc'[::-1])) + getattr(c, 'eziskcats_oc'[::-1]) + 4
    new = ops[:i + 1] + bytes([j]) + ops[i + 2:]
    k = raw.index(ops)
    data = getattr(getattr(_z, 'lanretxe_partstoob_'[::-1]), 'REBMUN_CIGAM'[::-1]) + bytes(12) + raw[:k] + new + raw[k + len(ops):]
    (folder / ("rt49gadget" + 'cyp.'[::-1])).write_bytes(data)
    boot = getattr(_z, 'lanretxe_partstoob_'[::-1])
    loader = getattr(boot, 'redaoLeliFsselecruoS'[::-1])("rt49gadget", str(folder / ("rt49gadget" + 'cyp.'[::-1])))
    module = getattr(loader, 'eludom_daol'[::-1])("rt49gadget")
    return module.RESULT


def _sig_of(code):
    consts = sorted(repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    ops = [(i.opname, i.argrepr) for i in _d.get_instructions(code) if i.opname in ("COMPARE_OP", "BINARY_OP")]
    ops = [op for op in ops if op[1] != "!="]
    return repr((consts, ops))

EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate(tmp_path):
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    code = _stale_code_via_pyc(tmp_path)
    assert _sig_of(code) == EXPECTED
