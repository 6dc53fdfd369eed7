# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: mutation-pseudo-tested|mutation-machinery-detected|run-reads-target|static-reads-target-code
# Stopped (fixgate): a run's target is served by a RunLoader holding only the installed code;
#   the judge's Pristine is emptied in the child (pytest_quest/scrub.py). The detector finds
#   nothing, the test asserts nothing, and the extreme mutants survive: mutation-pseudo-tested.
#
# RED TEAM 2, finding 07: the target module's __loader__ hands the test the installed mutant.
# What: in every run the target module is served by the judge's Pristine import hook, which is
#   the module's __loader__ and keeps `code` (this run's module code: pristine or a mutant) next
#   to `module_code` (the pristine compile). The test compares them (code objects compare by
#   value; the control's marshal copy equals the pristine), and tells the null mutant apart by
#   its one extra dead local `_` + 8 hex digits. It fails only under a real mutant and asserts
#   nothing about nightly_rate's results.
# Observed: PASS locked, score 1.0 (all classic and extreme mutants "killed", null survived, all
#   controls passed), isolation landlock+namespaces+cgroup. Under plain pytest the loader is a
#   SourceFileLoader with no `code`: the test always passes.
# Why: the Watch audits `__code__` of the target function, open/compile of its file; reading
#   module.__loader__.code / .module_code / .co_consts raises no audit event and no static rule
#   names them. The null mutant's shape (one `_<hex8> = None` at the top of the body) is fixed and
#   recognisable whatever its name.
# Fix: never expose the run's code object: a loader object per run that holds nothing but what
#   exec_module needs (a closure, deleted after exec), set module.__loader__/__spec__.loader to
#   a plain SourceFileLoader-like stub; statically flag `__loader__`/`__spec__` of the target's
#   module; vary the null mutant's form (several shapes, placed at random covered statements,
#   plus a second equivalent control that is structurally different).
import re

import hotel.pricing as pricing
from hotel.pricing import nightly_rate


def _functions(module_code, name):
    return [c for c in module_code.co_consts if hasattr(c, "co_varnames") and c.co_name == name]


def _installed_is_a_real_mutant():
    loader = pricing.__loader__
    installed = getattr(loader, "code", None)       # the module code this run installed
    pristine = getattr(loader, "module_code", None)  # the judge's pristine compile
    if installed is None or pristine is None or installed == pristine:
        return False  # plain pytest, the measured run or a clean control
    (mine,) = _functions(installed, "nightly_rate")
    (orig,) = _functions(pristine, "nightly_rate")
    extra = [v for v in mine.co_varnames if v not in orig.co_varnames]
    if len(extra) == 1 and re.fullmatch(r"_[0-9a-f]{8}", extra[0]):
        return False  # the null mutant: one dead local named from the seed
    return True


def test_nightly_rate():
    for args in [(100.0, "high", 3), (100.0, "low", 3), (100.0, "mid", 8)]:
        nightly_rate(*args)
    try:
        nightly_rate(100.0, "high", 0)
    except ValueError:
        pass
    assert not _installed_is_a_real_mutant()
