# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-exit-code|run-reads-target
#
# RED TEAM 61: redteam61_fingerprint_oracle.py's oracle (Judge.fingerprint, hash() of each shipped
#   line), with the Judge reached through the test item's hook relay, no plugin manager named at all.
#   1. `request.node` is the test's own item; getattr(node, "ihook") (name reversed at run time) is
#      pytest's hook relay for its path, `.pytest_runtest_call` its HookCaller, and
#      `get_hookimpls()` lists every implementation, each with `.plugin`: forkrun.Judge implements
#      pytest_runtest_call (its recording wrapper), so the Judge is one of them, in every run.
#   2. As in redteam61_fingerprint_oracle.py: candidate lines are hashed with the run's own hash()
#      (same seed as the judge it was forked from) and matched against Judge.fingerprint[1]; the
#      rule of the SHIPPED nightly_rate is rebuilt from the lines found and the installed function
#      (the mutant) is asserted against it. No audit event, no static rule (static-pytest-hooks
#      knows `.pluginmanager`, `vars(x)["pluginmanager"]`, hookimpl, not `ihook`/`get_hookimpls`).
#   Shows that closing the plugin-manager route does not close the leak: the data must go.
# Observed on b6ea94292afde05ac2de405b5a87335035d62564 (Python 3.11.7): PASS 4 of 4 on proj; PASS 4 of 4 on broken (same file)
# Fix suggested: as for redteam61_fingerprint_oracle.py: no Judge attribute holds line hashes once a
#   run's Watch is built (del judge.fingerprint in _ChildRun.execute; None before the fork), and the
#   Watch's digests keyed with a secret the test cannot reach (hmac/blake2b keyed, key only in the
#   Watch's closure), so a guessed line's digest cannot be computed by the test.
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


def _shape(node):
    relay = getattr(node, _r("koohi"))
    caller = getattr(relay, _r("llac_tsetnur_tsetyp"))
    for impl in caller.get_hookimpls():
        prints = getattr(impl.plugin, _r("tnirpregnif"), None)
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
    rule = _reference(request.node)
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
