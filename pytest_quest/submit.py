"""The submit service: judge one test file for one quest and ratchet the ledger.

The ledger lock is held only to read the quest and to record the verdict,
never during the run, so parallel agents do not wait on each other. If
another agent locked the quest meanwhile, the ratchet refuses (exit 4).
"""

from __future__ import annotations

import platform
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_quest import __version__, ratchet
from pytest_quest.config import Settings
from pytest_quest.errors import EnvironmentFault, QuestLocked, UsageError
from pytest_quest.facts import Verdict
from pytest_quest.gate import evaluate
from pytest_quest.ledger import Ledger, append_attempt, now_iso, transaction
from pytest_quest.paths import default_test_path, project_relative
from pytest_quest.quest import Quest
from pytest_quest.rules import STAGES
from pytest_quest.rules.coverage import measured
from pytest_quest.sandbox import Sandbox, file_sha256, module_name, pytest_args, sha256
from pytest_quest.sandbox import run as run_sandbox
from pytest_quest.states import Outcome, State
from pytest_quest.submission import Claim, Submission

__all__ = ["Result", "submit", "target_spec"]


@dataclass(frozen=True)
class Result:
    """What the CLI prints: the verdict and the quest after the ratchet."""

    quest: Quest
    verdict: Verdict
    test_path: str
    seconds: float

    def to_dict(self, max_tries: int) -> dict[str, Any]:
        return {
            "quest": self.quest.id,
            "verdict": self.verdict.outcome.value,
            "state": self.quest.state.value,
            "tries": self.quest.tries,
            "max_tries": max_tries,
            "test_path": self.test_path,
            "facts": [f.to_dict() for f in self.verdict.facts],
            "root_cause": self.verdict.root_cause,
            "hint": self.verdict.hint,
            "seconds": round(self.seconds, 3),
            "evidence": self.verdict.evidence or None,
        }


def target_spec(quest: Quest, settings: Settings) -> dict[str, Any]:
    """How the harness finds the function object (for identity checks and mutation)."""
    qualname = quest.qualname.split("@", 1)[0]
    accessor = None
    parts = qualname.split(".")
    if parts[-1] in ("setter", "deleter") and len(parts) > 1:
        accessor = {"setter": "fset", "deleter": "fdel"}[parts.pop()]
    return {
        "file": quest.path,
        "module": module_name(quest.path, settings),
        "owner": parts[:-1],
        "name": parts[-1],
        "accessor": accessor,
        "qualname": quest.qualname,
        "body": list(quest.body),
        "lines": list(quest.lines),
    }


def _stray_files(settings: Settings, test_rel: str, locked: dict[str, str]) -> tuple[str, ...]:
    """Files in the quest folder that could change how tests run (conftests, helpers, configs)."""
    folder = settings.root / settings.test_dir
    if not folder.is_dir():
        return ()
    out = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        rel = path.relative_to(settings.root).as_posix()
        name = path.name
        if rel == test_rel or rel in locked or name == "__init__.py":
            continue
        if name == "conftest.py" or (name.endswith(".py") and not name.startswith("test_")) or (
            name.endswith((".pth", ".ini", ".cfg", ".toml"))
        ):
            out.append(rel)
    return tuple(out)


def locked_tests(ledger: Ledger) -> dict[str, str]:
    """Test files that lock PASS quests -> their sha256."""
    out = {}
    for quest in ledger.quests.values():
        ev = quest.evidence or {}
        if quest.state is State.PASS and ev.get("test") and ev.get("sha256"):
            out[ev["test"]] = ev["sha256"]
    return out


def submit(
    settings: Settings,
    quest_id: str,
    test: str | Path | None = None,
    claims: tuple[Claim, ...] = (),
    agent: str | None = None,
) -> Result:
    """Judge ``test`` for ``quest_id``.

    Raises a :class:`QuestError` for bad input or a broken environment; then
    nothing is recorded and no try is spent.
    """
    ledger = Ledger.load(Ledger.for_root(settings.root).path)
    quest = ledger.get(quest_id)
    if quest.state is not State.TODO:
        raise QuestLocked(f"{quest_id} is {quest.state.value}; it takes no more submissions")
    test_rel = project_relative(test, settings) if test else default_test_path(quest, settings)
    test_file = settings.root / test_rel
    if not test_file.is_file():
        raise UsageError(f"test file {test_rel} does not exist: write the test there first")
    data = test_file.read_bytes()
    locked = locked_tests(ledger)
    sub = Submission(
        settings=settings,
        quest=quest,
        test_rel=test_rel,
        test_bytes=data,
        snapshot=ledger.snapshot,
        locked_tests={k: v for k, v in locked.items() if k != test_rel},
        claims=claims,
    )
    started = now_iso()
    try:
        verdict = evaluate(STAGES, sub, prepare=_prepare)
    finally:
        if sub.sandbox is not None:
            sub.sandbox.cleanup()
    seconds = sub.run.seconds if sub.run else 0.0
    evidence = _evidence(sub, data, agent) if verdict.outcome is Outcome.PASS else {}
    verdict = Verdict(verdict.outcome, verdict.facts, verdict.root_cause, verdict.hint, evidence)
    return _record(settings, quest_id, sub, verdict, started, agent, seconds)


def _prepare(stage: str, sub: Submission) -> None:
    """Pay for each stage's inputs only when the gate reaches it."""
    settings = sub.settings
    if stage == "scope":
        # The copy is made here, hashing each protected file as it is copied, so the
        # scope rule judges exactly the bytes the test will run against.
        sub.sandbox = Sandbox.create(settings, {sub.test_rel: sub.test_bytes})
        sub.working_tree = dict(sub.sandbox.hashes)
        root = settings.root
        sub.extra["locked_now"] = {rel: file_sha256(root / rel) for rel in sub.locked_tests}
        sub.stray_files = _stray_files(settings, sub.test_rel, sub.locked_tests)
    elif stage == "run" and sub.sandbox is not None:
        sub.run = run_sandbox(
            sub.sandbox, settings, _spec(sub), settings.timeout, grace=settings.timeout * 2
        )
        _raise_env_fault(sub)


def _spec(sub: Submission) -> dict[str, Any]:
    settings = sub.settings
    args = pytest_args(sub.test_rel, "-q", "--tb=short",
                       "-W", "ignore::pytest.PytestUnraisableExceptionWarning")
    mutation = None
    if settings.mutation:
        mutation = {
            "threshold": settings.mutation_threshold,
            "max_mutants": settings.max_mutants,
            # Within the parent's grace of 2x timeout, leaving room for the reruns.
            "budget": settings.timeout * 1.5,
        }
    return {
        "mode": "submit",
        "pytest_args": args,
        "target": target_spec(sub.quest, settings),
        "measure_files": [sub.quest.path],
        "branch": settings.branch,
        "reruns": max(1, settings.reruns),
        "mutation": mutation,
        "limits": {
            "cpu": int(settings.timeout * 4) + 10,
            "memory_mb": settings.memory_mb,
            "fsize_mb": 512,
        },
    }


def _raise_env_fault(sub: Submission) -> None:
    run = sub.run
    assert run is not None
    env = run.first("env_error")
    if env is not None:
        raise EnvironmentFault(
            f"could not verify {sub.quest.id}: the unchanged project does not import in the "
            f"sandbox ({env['message']}); no try was spent"
        )
    if run.first("start") is None and not run.timed_out:
        tail = (run.output.strip().splitlines() or ["no output"])[-1]
        raise EnvironmentFault(
            f"could not verify {sub.quest.id}: the sandbox did not start ({tail}); no try was spent"
        )


def _evidence(sub: Submission, data: bytes, agent: str | None) -> dict[str, Any]:
    result = measured(sub)
    evidence: dict[str, Any] = {
        "source": "submit",
        "test": sub.test_rel,
        "sha256": sha256(data),
        "covered_lines": list(result.executed) if result else [],
        "tool": f"pytest-quest {__version__}",
        "python": platform.python_version(),
        "time": now_iso(),
    }
    if result is not None and sub.settings.branch:
        evidence["branches"] = result.branches
    if agent:
        evidence["agent"] = agent
    mutation = sub.extra.get("mutation")
    if mutation:
        evidence["mutation"] = mutation
    return evidence


def _record(
    settings: Settings,
    quest_id: str,
    sub: Submission,
    verdict: Verdict,
    started: str,
    agent: str | None,
    seconds: float,
) -> Result:
    with transaction(Ledger.for_root(settings.root).path) as ledger:
        current = ledger.get(quest_id)
        updated = ratchet.apply(current, verdict, now_iso(), settings.max_tries)
        result = measured(sub)
        if result is not None and updated.state is State.TODO:
            # `next` shows the agent exactly the lines its last test missed.
            updated = updated.with_(extra={**updated.extra, "missing": list(result.missing)})
        ledger.put(updated)
        append_attempt(
            ledger,
            {
                "kind": "submit",
                "quest": quest_id,
                "time": started,
                "agent": agent,
                "test": sub.test_rel,
                "sha256": sha256(sub.test_bytes),
                "verdict": verdict.outcome.value,
                "state": updated.state.value,
                "tries": updated.tries,
                "facts": [f.to_dict() for f in verdict.facts],
                "remaining": ledger.remaining,
            },
        )
    return Result(updated, verdict, sub.test_rel, seconds)
