# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: static-reflective-access|run-exit-code|run-collection
#
# RED TEAM 51: redteam51_subinterpreter_has_no_audit_hook.py without the test package: _xxsubinterpreters imported by `pydoc.safeimport(<name from chr codes>)`
#   (1) rules/escapes._IMPORTERS lists __import__, import_module, importlib.__import__,
#   find_spec, pkgutil.resolve_name and pydoc.locate as "imports by a module name written in
#   the test"; pydoc.safeimport (what pydoc.locate calls) is not in it, and the module's name is
#   built at run time, so static-native-code (BANNED "_xxsubinterpreters") never sees it.
#   Nothing at run time refuses the import either.
#   (2) `_xxsubinterpreters.create()` / `run_string(id, text)`: the text runs in a new interpreter
#   of the same process, where none of the run's sys.addaudithook hooks (watch, seal, guard)
#   exist. (3) There, `ctypes.cast(id(nightly_rate), ctypes.py_object).value.__code__` is the
#   installed code; red team 50's shape-only signature of it goes back through a file in the
#   run's TMPDIR. The calls of nightly_rate only cover the lines; no value is checked.
# Observed on dea27c5 (3.11.7): PASS 3 of 3 on proj (score 1.0, 12/12); PASS 3 of 3 on broken (same file, scores 0.923-1.0)
# Fix suggested: as for redteam51_subinterpreter_has_no_audit_hook.py (a finding on the
#   "cpython.PyInterpreterState_New" event in runs; hide _xxsubinterpreters from the run's
#   Landlock layer; or a C-level audit hook); add pydoc.safeimport (and pydoc.importfile,
#   unittest's loadTestsFromName, importlib.resources.files/as_file with a computed anchor) to
#   _IMPORTERS -- better, refuse the banned native modules at run time (an "import" audit-event
#   check in the watch) instead of by their spelling in the source.
# Fixed by: the subinterpreter modules are empty files in the confined root (confine.INTERNALS),
#   and a subinterpreter made any other way is refused by the run's guard
#   ("cpython.PyInterpreterState_New": runparts.Guard): the test fails. Since then
#   `pydoc.safeimport` of a computed name is static-reflective-access too.
import os
import pydoc

import pytest

from hotel.pricing import nightly_rate

EXPECTED = "([\"'Per-night rate after seasonal and long-stay adjustments.'\", \"'high'\", \"'low'\", \"'nights must be positive'\", '2', '7', 'float', 'float', 'float'], [('COMPARE_OP', '<='), ('POP_JUMP_FORWARD_IF_FALSE', ''), ('COMPARE_OP', '=='), ('POP_JUMP_FORWARD_IF_FALSE', ''), ('BINARY_OP', '*'), ('JUMP_FORWARD', ''), ('COMPARE_OP', '=='), ('POP_JUMP_FORWARD_IF_FALSE', ''), ('BINARY_OP', '*'), ('JUMP_FORWARD', ''), ('COMPARE_OP', '>='), ('POP_JUMP_FORWARD_IF_FALSE', ''), ('BINARY_OP', '*')])"

# What runs in the other interpreter (no audit hook of the watch there), as data.
_SUB = '''
import dis, {ct}
_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
f = {ct}.cast(ADDR, {ct}.py_object).value
code = getattr(f, '__co' + 'de__')
consts = sorted('float' if type(k) is float and 0.5 <= k <= 1.6 else repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
ops = [(i.opname, i.argrepr if i.opname in ("COMPARE_OP", "BINARY_OP") else '') for i in dis.get_instructions(code)
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
with open(OUT, "w") as handle:
    handle.write(repr((consts, kept)))
del f, code
'''


def _kit():
    return pydoc.safeimport("".join(map(chr, [95, 120, 120, 115, 117, 98, 105, 110, 116, 101, 114, 112, 114, 101, 116, 101, 114, 115])))


def test_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    out = os.path.join(os.environ["TMPDIR"], "sig.txt")
    text = _SUB.format(ct="".join(map(chr, (99, 116, 121, 112, 101, 115))))
    text = text.replace("ADDR", str(id(nightly_rate))).replace("OUT", repr(out))
    kit = _kit()
    other = kit.create()
    try:
        kit.run_string(other, text)
    finally:
        kit.destroy(other)
    with open(out) as handle:
        assert handle.read() == EXPECTED
