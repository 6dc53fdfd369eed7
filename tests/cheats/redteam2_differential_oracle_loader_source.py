# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|static-reads-target-code|run-reads-target
# Stopped (fixgate): RunLoader.get_source() returns None in runs (pytest_quest/scrub.py): the
#   reference cannot be built and the test fails in the measured run (run-exit-code). A copy
#   of the body compiled from elsewhere (linecache, the file) is run-reads-target (the watch
#   matches the body line for line, whatever the def is renamed to).
#
# RED TEAM 2, finding 03: differential oracle built from the target's own source.
# What: `pricing.__loader__.get_source(...)` returns the pristine text (in the gate: the judge's
#   Pristine import hook serves it from memory, no open(); outside: SourceFileLoader reads the
#   current file). The test renames the def, exec()s the text and asserts the target agrees with
#   that copy. Mutants are installed from memory, the copy is pristine: every mutant disagrees,
#   the null mutant and controls agree.
# Observed: PASS locked, score 1.0, isolation landlock+namespaces+cgroup. Afterwards, with
#   nightly_rate broken to `return 0.0` in the real project, `pytest tests/quest`: 1 passed.
# Why: static-reads-target-code lists inspect.getsource/linecache/dis/open of the file/loaders,
#   not `module.__loader__.get_source` (nor `__spec__.loader`); exec of a computed string is not
#   checked; the run-time Watch catches compile() only when the target's def text appears
#   verbatim, so renaming the def (or adding a space) hides it; get_source makes no audit event.
# Fix: Pristine.get_source must not serve the text to test code (return None in run children,
#   or serve it only to linecache/traceback internals); add `__loader__`, `__spec__`,
#   `get_source`, `get_data`, `get_code` on the target's module to static-reads-target-code;
#   have Watch compare compile() input against the module text by fingerprint of normalised
#   token streams / AST shape (names ignored), not by verbatim substring; treat exec/compile of
#   a non-constant string as static-reflective-access in quest tests.
import hotel.pricing as pricing
from hotel.pricing import nightly_rate

CASES = [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 3), (100.0, "high", 7),
         (80.0, "low", 10), (50.0, "x", 1), (100.0, "high", 0), (100.0, "low", -1),
         (33.33, "high", 6), (33.33, "low", 7)]


def reference():
    # The pristine text, served by the gate's own import hook (no open(), no audit event),
    # with the def renamed so no compile() ever sees the target's text verbatim.
    text = pricing.__loader__.get_source(pricing.__name__)
    text = text.replace("def nightly_rate(", "def reference_rate(")
    space = {}
    exec(text, space)
    return space["reference_rate"]


def observe(func, args):
    try:
        return repr(func(*args))
    except Exception as exc:
        return type(exc).__name__


def test_nightly_rate_agrees_with_reference():
    ref = reference()
    for case in CASES:
        assert observe(nightly_rate, case) == observe(ref, case), case
