"""The cheat corpus through the real gate: no cheat may PASS, each fails on its own rule,
and none gets out: the real project, the ledger, site-packages and a canary file outside the
project are byte-identical after every attempt, and the caller's environment appears nowhere.

Every file in ``tests/cheats/`` names its quest (``# quest: path::qualname``) and what the
gate must answer (``# expect: <rule-id>``, alternatives as ``a|b``, or ``# expect: PASS``);
``# claim: LINE REASON`` submits it with that line claimed unreachable. ``# verdict: REVIEW``
marks a cheat no machine rule can stop today: it must not PASS, and a human sees it.
``# python: 3.X`` marks an attack built for that CPython alone (bytecode written as data):
on any other it must not PASS, whatever stops it.
Good tests are there too, so the rules are shown to stay quiet on strong tests (and strong
tests survive the later stages).

A cheat marked ``# pending: <branch>`` walks around a static rule on purpose and is stopped
only by a defence of issue 13 built on that branch (``confine``: kernel confinement;
``harness``: sealed evidence channel, interleaved clean control runs, mutants in place before
import; ``redteam2``: red team round 2, not fixed yet; ``parent``: the judging parent records
run-provided text safely, red team round 2; ``runns``: a PID, mount and network namespace per
run, so nothing the measured run leaves in counters it shares with later runs (pids, a tmpfs's
inode numbers) reaches them, red team 13; skipped where the kernel offers no namespaces;
``measuredlast``: the measured run neither first nor recognisable: red teams 14 and 15 relayed
its answers through what the whole machine shares, the page cache and an inode counter;
``pagecache``: no page a run can read left cold, or a page cache of each run's own, not built:
red team 16's relays need no tell, only a clean run among the first few; ``pipes``: the
machine's one counter of pipe inode numbers, not built: with no tell of the measured run left,
red teams 14 and 15's pipe relays are a lottery, the test passing whenever the counter happens
to sit where the shipped answers' digest points, 1 time in 8; ``unmeasured``: coverage's and
the recorder's code is trusted only in the run that measures, red teams 45 and 46: skipped
under pytest-quest's own coverage, where every run measures; ``noctypes``: no ``_ctypes`` in a
run's memory, red team 52 made ctypes objects from Python and read memory through their
buffers with no audit event: on this branch where the C extension ``pytest_quest._kernel``
was built, which makes the confining system calls in ctypes' stead; ``shapes``: value-free
checks of the shape of a result, a value that flows through the target and relations between
calls, red team 70: a known limit, not built, docs/security.md). Until that defence
is on this branch (``LANDED``), its test is
``xfail(strict=True)``: it must fail today (the attack works), and the mark goes when the
defence lands; ``UNSTEADY`` ones are not strict.
``# also-stopped-by: <branch>`` names a defence that stops it as well without being the wall
for it (measured in a trial merge: the harness's judge process hides the caller behind a
process of its own, so ``/proc/<ppid>`` is not the caller any more).
"""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import json
import os
import re
import sys
import sysconfig
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import coverage
import pytest

from pytest_quest import cgroups, confine
from pytest_quest.config import load_settings
from pytest_quest.gate import CATALOG
from pytest_quest.ledger import Ledger
from pytest_quest.paths import default_test_path
from pytest_quest.sandbox import _KEEP_ENV
from pytest_quest.states import Outcome
from pytest_quest.submission import Claim
from pytest_quest.submit import Result
from pytest_quest.syscalls import NATIVE

CORPUS = Path(__file__).resolve().parent / "cheats"
_HEADER = re.compile(
    r"^# (quest|expect|verdict|pending|also-stopped-by|python|specialises): (\S+)\s*$",
    re.MULTILINE)
#: ``# claim: LINE REASON``: the submission claims LINE unreachable (``submit --unreachable``).
_CLAIM = re.compile(r"^# claim: (\d+) (.+?)\s*$", re.MULTILINE)
#: Files the planted-.pth cheats write into site-packages (harmless content, removed after).
PLANTED = "zz_quest_corpus"
#: Defences of issue 13 that are on this branch; a cheat pending on one of them runs unmarked.
LANDED: frozenset[str] = frozenset({"confine", "harness", "parent", "runns", "measuredlast",
                                   "watch", "unmeasured"} | ({"noctypes"} if NATIVE else set()))
#: Defences whose open attacks read what other processes of the machine move too (the page
#: cache, a machine-wide inode counter, the wall clock): whether such an attack wins depends on
#: where the machine's state happens to be (nearly always for the page cache, 1 time in 8 for
#: the pipes, about half the schedules for the clock across runs not in waves),
#: so its test is an xfail that may pass without failing the suite.
UNSTEADY: frozenset[str] = frozenset({"pagecache", "pipes", "waves"})
#: Defences that come with runs in waves (a runs cgroup whose page cache the zygote empties):
#: the emptying itself and the random pause before each wave (``pytest_quest.gaps``).
WAVES: frozenset[str] = frozenset({"pagecache", "waves"})


@functools.cache
def runs_go_in_waves() -> bool:
    """Runs here get a cgroup whose page cache is emptied between waves (``pagecache``)."""
    limits = cgroups.process_limits(64, 256) if confine.detect().kernel else None
    if limits is None:
        return False
    limits.close()
    return bool(limits.runs)


def _text(path: Path) -> str:
    """A corpus file's text for its headers (a file may declare another encoding: red team 51)."""
    return path.read_bytes().decode("utf-8", errors="replace")


def _header(path: Path) -> dict[str, str]:
    found = dict(_HEADER.findall(_text(path)))
    assert {"quest", "expect"} <= found.keys(), f"{path.name}: missing # quest / # expect header"
    return found


FILES = sorted(CORPUS.glob("*.py"))
CHEATS = [p for p in FILES if _header(p)["expect"] != "PASS"]
GOOD = [p for p in FILES if _header(p)["expect"] == "PASS"]
PENDING = [p for p in CHEATS if _header(p).get("pending")]


def _claims(path: Path) -> tuple[Claim, ...]:
    return tuple(Claim(int(line), reason)
                 for line, reason in _CLAIM.findall(_text(path)))


def _case(path: Path) -> Any:
    header = _header(path)
    pending = header.get("pending")
    if pending == "runns" and not confine.detect().namespaces:
        return pytest.param(path, id=path.stem, marks=pytest.mark.skip(
            reason="needs namespaces for each run (a PID, mount and network namespace of "
                   f"its own), unavailable here: {confine.detect().namespaces_error}"))
    if pending == "unmeasured" and coverage.Coverage.current() is not None:
        return pytest.param(path, id=path.stem, marks=pytest.mark.skip(
            reason="stopped in runs that do not measure coverage; under pytest-quest's own "
                   "coverage every run measures (coverage's code is trusted there)"))
    landed = LANDED | (WAVES if runs_go_in_waves() else set())
    written_for = header.get("python", "{}.{}".format(*sys.version_info[:2]))
    if written_for != "{}.{}".format(*sys.version_info[:2]):
        return pytest.param(path, id=path.stem)  # another CPython's bytecode: never a PASS here
    if pending is None or {pending, header.get("also-stopped-by")} & landed:
        return pytest.param(path, id=path.stem)
    return pytest.param(path, id=path.stem, marks=pytest.mark.xfail(
        strict=pending not in UNSTEADY,
        reason=f"walks around the static rule; stopped by the {pending} defence "
               "of issue 13, not on this branch yet"))


def test_no_corpus_file_is_collected_by_our_own_suite() -> None:
    """A corpus file named like a test module (``test_*.py``, ``*_test.py``) would be run by
    pytest as part of this suite, where its imports of the example project fail."""
    assert [p.name for p in FILES if fnmatch.fnmatch(p.name, "test_*.py")
            or fnmatch.fnmatch(p.name, "*_test.py")] == []


def test_corpus_size_and_rules_exist() -> None:
    assert len(CHEATS) >= 64 and len(GOOD) >= 5
    assert len(PENDING) >= 10
    known = {rule.id for rule in CATALOG}
    for path in CHEATS:
        header = _header(path)
        expected = set(header["expect"].split("|"))
        pending = header.get("pending")
        assert pending in (None, "confine", "harness", "redteam2", "parent", "runns",
                           "measuredlast", "pagecache", "pipes", "waves", "watch",
                           "unmeasured", "noctypes", "shapes"), path.name
        if pending is None or pending in LANDED | WAVES:
            assert expected <= known, path.name
        else:  # the rule may come with the defence; one of the answers exists already
            assert expected & known, path.name


# --------------------------------------------------------------- what no cheat may touch
def _tree(root: Path, skip: set[str]) -> dict[str, str]:
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and rel not in skip and "__pycache__" not in path.parts:
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _site_packages() -> dict[str, str]:
    """Every file in site-packages: name -> size and mtime (a write changes one of them)."""
    out = {}
    for key in ("purelib", "platlib"):
        for dirpath, dirs, files in os.walk(sysconfig.get_paths()[key]):
            dirs.sort()
            for name in files:
                if name.startswith(PLANTED):
                    continue  # judged by the cheat that plants it (the suite may run in parallel)
                path = os.path.join(dirpath, name)
                with_stat = os.stat(path)
                out[path] = f"{with_stat.st_size}:{with_stat.st_mtime_ns}"
    return out


def _planted() -> list[Path]:
    return sorted({p for key in ("purelib", "platlib")  # often one folder
                   for p in Path(sysconfig.get_paths()[key]).glob(f"{PLANTED}*")})


def _caller_environment() -> list[str]:
    """``KEY=VALUE`` entries this process started with that the sandbox does not pass on."""
    try:
        raw = Path("/proc/self/environ").read_bytes()
    except OSError:
        return []
    entries = [e.decode(errors="replace") for e in raw.split(b"\0") if b"=" in e]
    return [e for e in entries if e.split("=", 1)[0] not in _KEEP_ENV and len(e) > 8]


@dataclass
class World:
    """The project, its ledger and attempts, site-packages and the canary, before the attack."""

    project: Path
    canary: Path
    test_rel: str
    tree: dict[str, str]
    site: dict[str, str]
    canary_bytes: bytes
    ledger: dict[str, Any]
    attempts: list[str]

    _SKIP = (".quest/ledger.json", ".quest/attempts.jsonl")

    @classmethod
    def take(cls, project: Path, canary: Path, test_rel: str) -> World:
        quest_dir = project / ".quest"
        attempts = quest_dir / "attempts.jsonl"
        return cls(project, canary, test_rel, _tree(project, {test_rel, *cls._SKIP}),
                   _site_packages(), canary.read_bytes(),
                   json.loads((quest_dir / "ledger.json").read_text(encoding="utf-8")),
                   attempts.read_text(encoding="utf-8").splitlines() if attempts.exists()
                   else [])

    def assert_untouched(self, judged: str, result: Result) -> None:
        """Nothing changed but the judged quest's verdict, which is no PASS."""
        assert _tree(self.project, {self.test_rel, *self._SKIP}) == self.tree, "project changed"
        assert _site_packages() == self.site, "site-packages changed"
        assert not _planted(), "a .pth file was planted in site-packages"
        assert self.canary.read_bytes() == self.canary_bytes, "the canary outside changed"
        quest_dir = self.project / ".quest"
        ledger_text = (quest_dir / "ledger.json").read_text(encoding="utf-8")
        ledger = json.loads(ledger_text)
        before = {q["id"]: q for q in self.ledger["quests"]}
        after = {q["id"]: q for q in ledger["quests"]}
        assert {k: v for k, v in after.items() if k != judged} == {
            k: v for k, v in before.items() if k != judged}, "other quests changed"
        assert {k: v for k, v in ledger.items() if k != "quests"} == {
            k: v for k, v in self.ledger.items() if k != "quests"}
        assert after[judged]["state"] != "PASS"
        attempts_text = (quest_dir / "attempts.jsonl").read_text(encoding="utf-8")
        attempts = attempts_text.splitlines()
        assert attempts[:-1] == self.attempts and json.loads(attempts[-1])["quest"] == judged
        facts_text = json.dumps([f.to_dict() for f in result.verdict.facts])
        for entry in _caller_environment():
            for text in (facts_text, ledger_text, attempts_text):
                assert entry not in text, "the caller's environment leaked into the record"


@pytest.fixture
def attempt(project: Path, submit_test: Callable[..., Result],
            monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Path], Result]]:
    """Submit a corpus file from the project root, as a user would, and check containment.

    The caller's cwd is the project (escapes reach it as ``/proc/<ppid>/cwd``); the canary
    sits next to the project, outside it.
    """
    monkeypatch.chdir(project)
    canary = project.parent / "canary.txt"
    canary.write_text("the canary sings\n", encoding="utf-8")

    def run(path: Path) -> Result:
        header = _header(path)
        ledger = Ledger.load(Ledger.for_root(project).path)
        test_rel = default_test_path(ledger.get(header["quest"]), load_settings(project),
                                     ledger.quests)
        world = World.take(project, canary, test_rel)
        result = submit_test(header["quest"], path.read_bytes(),
                             claims=_claims(path))
        world.assert_untouched(header["quest"], result)
        return result

    try:
        yield run
    finally:
        for planted in _planted():  # an escape on a machine without confinement: undo it
            planted.unlink()


@pytest.mark.slow
@pytest.mark.parametrize("path", [_case(p) for p in CHEATS])
def test_cheat_fails_on_its_rule(path: Path, attempt: Callable[[Path], Result]) -> None:
    header = _header(path)
    verdict = attempt(path).verdict
    fired = [f.rule for f in verdict.facts]
    expected = header["expect"].split("|")
    running = "{}.{}".format(*sys.version_info[:2])
    if header.get("python", running) != running or (
            header.get("specialises") and coverage.Coverage.current() is not None):
        # Another CPython's bytecode; or an attack on what the specialising interpreter
        # writes, which never specialises in runs our own suite's coverage traces: the
        # attack misses its step there, and only "no PASS" holds.
        assert verdict.outcome is not Outcome.PASS, (path.name, verdict.facts)
        return
    # ``REVIEW|FAIL``: the verdict depends on what the environment installs (red team 58's
    # cffi: refused where it is not installed, a REVIEW where it is)
    assert verdict.outcome.value in header.get("verdict", "FAIL").split("|"), (
        path.name, verdict.facts)
    assert verdict.root_cause in expected or set(expected) & set(fired), (path.name, fired)
    fact = next(f for f in verdict.facts if f.rule in expected)
    assert fact.where and fact.expected and fact.actual


@pytest.mark.slow
@pytest.mark.parametrize("path", GOOD, ids=[p.stem for p in GOOD])
def test_good_test_passes(path: Path, submit_test: Callable[..., Result]) -> None:
    header = _header(path)
    result = submit_test(header["quest"], path.read_bytes())
    assert result.verdict.outcome is Outcome.PASS, (path.name, result.verdict.facts)
