# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target
#
# RED TEAM 30: redteam30_probe_compiled_under_a_library_file_name.py taken to the end: the
#   whole test (probe, signature, test_rate) is a string literal compiled as
#   "/opt/quest-helpers/probes.py" and made functions with `type(lambda: None)(code, globals())`;
#   pytest collects `test_rate` from the module's globals. While the test runs, no frame of the
#   test file is on the stack at all (pytest -> test_rate -> target -> probe, all "a library"),
#   so a fix that judges frame hand-outs by the whole stack ("is a frame of the test file below
#   the reader?") does not close this one; only telling the test's code by identity does.
#   A failure is even reported at /opt/quest-helpers/probes.py:33.
#   - the oracle: the code signature of oracle_code_signature_with_the_watch_blinded.py.
# Observed on 1c018e6 (2 CPUs, Python 3.11.7): PASS 4/4 (score 0.8 or 1.0, by schedule); broken copy
#   (base * 1.5, EXPECTED with 1.5): PASS 1/1; control: that EXPECTED on the unbroken project
#   FAILs run-exit-code 1/1 ("AssertionError at /opt/quest-helpers/probes.py:33").
# Suggested fix: as the library-file-name file: every code object not loaded by the import
#   system before the test's time is the test's (by identity), whatever its co_filename; and
#   the test's items must be functions whose code the test file's own compile made (pytest's
#   rewrite of the file: one code object tree), else a fact.
# Fixed by: code compiled in the test's time under any file name is the test's
#   (the import system's compile of a module's file aside); compile() under a name that is
#   not <...> and type(lambda: None)(...) are static-hidden-code.
import dis

import pytest
from hotel.pricing import nightly_rate

_BACK = "_".join(("f", "back"))
_CODE = "_".join(("f", "code"))
_GF = "_".join(("gi", "frame"))
_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')
_SEEN = []

# The whole test, written here in full; compiled under a library-looking file name, so no
# frame of the test file is on the stack while it runs.
_HELPERS = compile('''
def probe(self, other):
    box = []

    def gen():
        yield getattr(getattr(box[0], _GF), _BACK)

    g = gen()
    box.append(g)
    here = next(g)
    _SEEN.append(getattr(getattr(here, _BACK), _CODE))
    raise RuntimeError("probe")


def sig(f):
    _SEEN.clear()
    try:
        f(_Probe(), _Probe(), _Probe())
    except RuntimeError:
        pass
    code = _SEEN[0]
    consts = sorted(repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    ops = [(i.opname, i.argrepr.removeprefix("bool(").removesuffix(")")) for i in dis.get_instructions(code) if i.opname in ("COMPARE_OP", "BINARY_OP")]
    ops = [op for op in ops if op[1] != "!="]
    return repr((consts, ops))


def test_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    assert sig(nightly_rate) == EXPECTED
''', "/opt/quest-helpers/probes.py", "exec")
_FUNCTION = type(lambda: None)
_MADE = {c.co_name: _FUNCTION(c, globals()) for c in _HELPERS.co_consts if hasattr(c, "co_name")}
sig = _MADE["sig"]
test_rate = _MADE["test_rate"]


class _Probe:
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _MADE["probe"]
    __hash__ = object.__hash__


EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'
