# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|run-reads-target
#
# RED TEAM 61: the code watch's own fingerprint of the shipped def (Judge.fingerprint: hash() of
#   each plain line) is an oracle: hash candidate lines, keep those in it, compute the expected values.
#   1. `request.config` is an honest fixture; its plugin manager is taken with getattr under a name
#      reversed at run time (static-pytest-hooks names only the literal `.pluginmanager` attribute).
#   2. Among the plugins is forkrun.Judge, present in every run child (it is the run's pytest
#      plugin). Judge.__init__ keeps `self.fingerprint = (facts.function, facts.body)`: the hash()
#      of each stripped, uncommented line of the SHIPPED def (scrub.fingerprint/_code_lines), for the
#      Watch to compare compiled text with. Nothing clears it in the child, and reading a plain
#      attribute of a Python object raises no audit event, so the watch never sees it.
#   3. Each run is forked from the judge, so str hashes use the judge's PYTHONHASHSEED: the test
#      hashes candidate lines itself ("rate = base * 1.25", "if nights >= 7:", "return round(rate, 2)",
#      a few thousand candidates) and keeps those present in fingerprint[1], in order.
#   4. From the lines found it builds the shipped function's rule (multipliers, thresholds, rounding)
#      and asserts nightly_rate against it on a grid. The fingerprint is the shipped code in every
#      run while the function is the mutant: every mutant is killed, clean controls pass, no finding.
#      On `broken` the fingerprint holds "rate = base * 1.5", so the unchanged file PASSes there too.
#   The "hashes of lines, never text" comment in scrub._code_lines assumed hashes are no oracle; they
#   are one as soon as the candidates are few and the hash function is the run's own hash().
# Observed on b6ea94292afde05ac2de405b5a87335035d62564 (Python 3.11.7): PASS 8 of 8 on proj; PASS 7 of 7 on broken (same file)
# Fix suggested: no fingerprint an object of the run can reach: in _ChildRun.execute hand it to the
#   Watch and then `del judge.fingerprint` (and set Judge.fingerprint to None before the fork for the
#   zygote); better, make the line digests keyed (hmac/blake2b with a per-judge secret kept only in
#   the Watch's closure, never on Judge/TargetFacts), so hashes of guessed lines cannot be compared;
#   and treat reading the Judge plugin (forkrun.Judge, _ChildRun) from test code as run-reads-target.
# Fixed by: the watch holds the target's line hashes alone once a run's watch is made: the
#   judge's copy is emptied in the run (forkrun: judge.fingerprint = ((), ())), so the
#   oracle matches no guessed line and the test fails (run-exit-code).
import operator

import pytest

from hotel.pricing import nightly_rate

_OPS = {"<=": operator.le, "<": operator.lt, ">=": operator.ge, ">": operator.gt,
        "==": operator.eq, "!=": operator.ne}


def _r(text):
    return text[::-1]


def _numbers():
    seen = []
    for i in range(0, 3001):
        for value in (i / 100, i / 1000):
            if repr(value) not in seen:
                seen.append(repr(value))
    seen.extend(str(i) for i in range(0, 31))
    return seen


def _catalog():
    table = {}
    for x in _numbers():
        table[hash(f"rate = base * {x}")] = ("base", float(x))
        table[hash(f"rate = rate * {x}")] = ("rate", float(x))
    for op in _OPS:
        for k in range(-3, 31):
            table[hash(f"if nights {op} {k}:")] = ("nights", (op, k))
    for d in range(0, 8):
        table[hash(f"return round(rate, {d})")] = ("round", d)
    for word in ("high", "low", "mid", "peak", "off", "summer", "winter", "shoulder"):
        for q in ("'", '"'):
            table[hash(f"if season == {q}{word}{q}:")] = ("season", word)
            table[hash(f"elif season == {q}{word}{q}:")] = ("season", word)
    return table


def _shape(config):
    holder = getattr(config, _r("reganamnigulp"))
    for thing in holder.get_plugins():
        prints = getattr(thing, _r("tnirpregnif"), None)
        if prints:
            return prints[1]
    return ()


def _reference(config):
    table = _catalog()
    found = [table[h] for h in _shape(config) if h in table]
    bases = [v for k, v in found if k == "base"]
    seasons = [v for k, v in found if k == "season"]
    nights = [v for k, v in found if k == "nights"]
    factor = [v for k, v in found if k == "rate"]
    digits = [v for k, v in found if k == "round"]

    def rule(base, season, n):
        op, k = nights[0]
        if _OPS[op](n, k):
            raise ValueError("nights")
        if season == seasons[0]:
            rate = base * bases[0]
        elif season == seasons[1]:
            rate = base * bases[1]
        else:
            rate = base
        op, k = nights[1]
        if _OPS[op](n, k):
            rate = rate * factor[0]
        return round(rate, digits[0])

    return rule


def test_nightly_rate_matches(request):
    rule = _reference(request.config)
    for base in (100.0, 33.33, 80.0, 57.77):
        for season in ("high", "low", "mid"):
            for n in (-1, 0, 1, 5, 6, 7, 8, 30):
                try:
                    want = rule(base, season, n)
                except ValueError:
                    with pytest.raises(ValueError):
                        nightly_rate(base, season, n)
                    continue
                assert nightly_rate(base, season, n) == want
