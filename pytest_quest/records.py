"""The ledger's records of what happened: the evidence that locked a PASS, and each attempt.

Both used to be dicts assembled wherever they were needed, four shapes of
evidence (baseline, suite, submit, review) and three of attempts (submit,
review, suite-lock), and that hid a bug: the evidence of a submit carried no
``source_hash``, so "the function changed since it was locked" could never
be said for it. Here each shape is built by one named constructor, serialised
with a fixed set of keys (the ledger sorts them), and read back tolerantly:
a key an older ledger lacks takes its default, a key a newer one adds is kept
as it was (``other``) so a round trip through this version loses nothing.

Pure: no I/O, nothing but the core.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any

from pytest_quest import __version__
from pytest_quest.facts import Fact

__all__ = ["TOOL", "Attempt", "AttemptKind", "Evidence", "EvidenceSource", "json_lines"]

#: Which pytest-quest wrote a record.
TOOL = f"pytest-quest {__version__}"


class EvidenceSource(StrEnum):
    """Who locked a PASS."""

    BASELINE = "baseline"  # the project's suite at a scan
    SUITE = "suite"  # the project's suite under ``pytest --quest-update``
    SUBMIT = "submit"  # the gate, for an agent's test file
    REVIEW = "review"  # a maintainer approving a REVIEW quest


@dataclass(frozen=True)
class Evidence:
    """Why a quest is PASS: what was measured, on which function, by which test."""

    source: str
    time: str
    tool: str = TOOL
    #: The function's source hash when it was locked (AST, positions excluded).
    source_hash: str = ""
    covered_lines: tuple[int, ...] = ()
    #: Branch count of the function, when measured in branch mode.
    branches: int | None = None
    #: The test file that locked it (submit, review) and its sha256.
    test: str | None = None
    sha256: str | None = None
    python: str | None = None
    agent: str | None = None
    #: The mutation figures of a submit (see ``rules.mutation.summary``).
    mutation: Mapping[str, Any] | None = None
    #: The human decision that approved it (review).
    decision: Mapping[str, str] | None = None
    #: What confined the run that measured it ("landlock+namespaces" ... "python-audit").
    isolation: str | None = None
    #: The function's ``def`` line at the lock: ``covered_lines`` are read relative to it.
    def_line: int | None = None
    #: Unreachable-line claims an approval accepted: ``{line, offset, text, reason}`` each.
    unreachable: tuple[Mapping[str, Any], ...] = ()
    #: The sha256 of the locked test before ``pytest-quest recheck`` relocked a changed one.
    rechecked_from: str | None = None
    #: Keys this version does not know (written by a newer one), kept as they were.
    other: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def baseline(cls, covered: Iterable[int], source_hash: str, time: str,
                 isolation: str | None = None, def_line: int | None = None) -> Evidence:
        """The project's suite covered the function fully at a scan."""
        return cls(EvidenceSource.BASELINE.value, time, source_hash=source_hash,
                   covered_lines=tuple(covered), isolation=isolation, def_line=def_line)

    @classmethod
    def suite(cls, covered: Iterable[int], source_hash: str, time: str,
              branches: int | None = None, def_line: int | None = None) -> Evidence:
        """The project's suite covered the function fully under ``--quest-update``."""
        return cls(EvidenceSource.SUITE.value, time, source_hash=source_hash,
                   covered_lines=tuple(covered), branches=branches, def_line=def_line)

    @classmethod
    def submitted(cls, test: str, sha256: str, covered: Iterable[int], source_hash: str,
                  time: str, branches: int | None = None, agent: str | None = None,
                  mutation: Mapping[str, Any] | None = None,
                  isolation: str | None = None, def_line: int | None = None) -> Evidence:
        """The gate passed an agent's test file."""
        import platform  # here, not at import: `next --json` reads records and never builds one

        return cls(EvidenceSource.SUBMIT.value, time, source_hash=source_hash,
                   covered_lines=tuple(covered), branches=branches, test=test, sha256=sha256,
                   python=platform.python_version(), agent=agent,
                   mutation=dict(mutation) if mutation else None, isolation=isolation,
                   def_line=def_line)

    @classmethod
    def approved(cls, test: str, sha256: str, source_hash: str, time: str,
                 decision: Mapping[str, str], unreachable: Iterable[Mapping[str, Any]] = (),
                 def_line: int | None = None,
                 mutation: Mapping[str, Any] | None = None) -> Evidence:
        """A maintainer approved the reviewed test file of a REVIEW quest (and its claims).

        ``mutation``: the figures of the reviewed submission's mutation stage, if it ran.
        """
        return cls(EvidenceSource.REVIEW.value, time, source_hash=source_hash, test=test,
                   sha256=sha256, decision=dict(decision),
                   unreachable=tuple(dict(c) for c in unreachable), def_line=def_line,
                   mutation=dict(mutation) if mutation else None)

    def to_dict(self) -> dict[str, Any]:
        """The ledger form: ``source`` and ``time`` always, other keys when they carry something."""
        out: dict[str, Any] = dict(self.other)
        out.update(source=self.source, time=self.time)
        for name in _EVIDENCE_OPTIONAL:
            value = getattr(self, name)
            if value is None or value == "" or value == () or value == {}:
                continue
            if isinstance(value, tuple):
                value = [dict(v) if isinstance(v, Mapping) else v for v in value]
            elif isinstance(value, Mapping):
                value = dict(value)
            out[name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Evidence:
        """Read a ledger's evidence, whichever version wrote it.

        Called for every PASS when a ledger loads, so it avoids per-key helper calls.
        """
        get = data.get
        branches, mutation, decision = get("branches"), get("mutation"), get("decision")
        test, sha, python, agent = get("test"), get("sha256"), get("python"), get("agent")
        def_line, claims, rechecked = get("def_line"), get("unreachable"), get("rechecked_from")
        unknown = data.keys() - _EVIDENCE_KEYS
        return cls(
            source=str(get("source") or ""),
            time=str(get("time") or ""),
            tool=str(get("tool") or ""),
            source_hash=str(get("source_hash") or ""),
            covered_lines=tuple(map(int, get("covered_lines") or ())),
            branches=branches if isinstance(branches, int) else None,
            test=None if test is None else str(test),
            sha256=None if sha is None else str(sha),
            python=None if python is None else str(python),
            agent=None if agent is None else str(agent),
            mutation=mutation if isinstance(mutation, Mapping) else None,
            decision=decision if isinstance(decision, Mapping) else None,
            isolation=None if get("isolation") is None else str(get("isolation")),
            def_line=def_line if isinstance(def_line, int) else None,
            unreachable=tuple(c for c in claims if isinstance(c, Mapping))
            if isinstance(claims, list) else (),
            rechecked_from=None if rechecked is None else str(rechecked),
            other={k: data[k] for k in unknown} if unknown else {},
        )


class AttemptKind(StrEnum):
    """What an attempts-log line records."""

    SUBMIT = "submit"  # a verdict of the gate
    REVIEW = "review"  # a maintainer's decision
    SUITE_LOCK = "suite-lock"  # ``pytest --quest-update`` locked a quest
    AGENT = "agent"  # ``pytest-quest loop``: the agent failed; no test judged, no try spent
    RECHECK = "recheck"  # the gate judged a changed locked test again
    SKIP = "skip"  # ``pytest-quest skip``: put off to the back of the queue, no try spent


@dataclass(frozen=True)
class Attempt:
    """One line of the append-only ``.quest/attempts.jsonl``."""

    kind: str
    quest: str
    time: str
    verdict: str | None = None
    #: The quest's state and tries after the attempt.
    state: str | None = None
    tries: int | None = None
    facts: tuple[Fact, ...] = ()
    #: Quests remaining after the attempt (the burn-down reads it).
    remaining: int | None = None
    agent: str | None = None
    test: str | None = None
    sha256: str | None = None
    covered_lines: tuple[int, ...] = ()
    # --- a review decision
    by: str | None = None
    action: str | None = None
    note: str | None = None
    #: The state the decision moved the quest from.
    from_state: str | None = None
    #: What confined the run that judged a submission ("not-run" when no run was needed).
    isolation: str | None = None
    other: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def submitted(cls, quest: str, time: str, agent: str | None, test: str, sha256: str,
                  verdict: str, state: str, tries: int, facts: Iterable[Fact],
                  remaining: int, isolation: str | None = None) -> Attempt:
        """A verdict of the gate; ``time`` is when the submission started."""
        return cls(AttemptKind.SUBMIT.value, quest, time, verdict=verdict, state=state,
                   tries=tries, facts=tuple(facts), remaining=remaining, agent=agent, test=test,
                   sha256=sha256, isolation=isolation)

    @classmethod
    def reviewed(cls, quest: str, time: str, by: str, action: str, note: str, from_state: str,
                 state: str, tries: int, facts: Iterable[Fact], remaining: int) -> Attempt:
        """A maintainer's decision on a REVIEW quest."""
        return cls(AttemptKind.REVIEW.value, quest, time, state=state, tries=tries,
                   facts=tuple(facts), remaining=remaining, by=by, action=action, note=note,
                   from_state=from_state)

    @classmethod
    def suite_locked(cls, quest: str, time: str, covered: Iterable[int], tries: int,
                     remaining: int) -> Attempt:
        """``pytest --quest-update`` locked a TODO quest the suite covers fully.

        It carries state, tries, facts and remaining like every other line, so
        the burn-down and a reader of the log need no special case for it.
        """
        return cls(AttemptKind.SUITE_LOCK.value, quest, time, verdict="PASS", state="PASS",
                   tries=tries, remaining=remaining, covered_lines=tuple(covered))

    @classmethod
    def agent_failed(cls, quest: str, time: str, agent: str, outcome: str,
                     exit_code: int | None, seconds: float, error: str | None = None) -> Attempt:
        """An agent run by ``loop`` that gave no test to judge (``outcome`` says why)."""
        details: dict[str, Any] = {"outcome": outcome, "exit_code": exit_code, "seconds": seconds}
        if error:
            details["error"] = error
        return cls(AttemptKind.AGENT.value, quest, time, agent=agent, other=details)

    @classmethod
    def rechecked(cls, quest: str, time: str, test: str, sha256: str | None, previous: str,
                  verdict: str, state: str, tries: int, facts: Iterable[Fact],
                  remaining: int) -> Attempt:
        """``pytest-quest recheck`` judged a changed locked test (``previous``: its old hash)."""
        return cls(AttemptKind.RECHECK.value, quest, time, verdict=verdict, state=state,
                   tries=tries, facts=tuple(facts), remaining=remaining, test=test,
                   sha256=sha256, other={"previous_sha256": previous})

    def to_dict(self) -> dict[str, Any]:
        """The log form: each kind's keys, always all of them (``agent`` may be null)."""
        values: dict[str, Any] = {
            "kind": self.kind, "quest": self.quest, "time": self.time, "verdict": self.verdict,
            "state": self.state, "tries": self.tries,
            "facts": [f.to_dict() for f in self.facts], "remaining": self.remaining,
            "agent": self.agent, "test": self.test, "sha256": self.sha256,
            "covered_lines": list(self.covered_lines), "by": self.by, "action": self.action,
            "note": self.note, "from": self.from_state, "isolation": self.isolation,
        }
        keys = _ATTEMPT_KEYS.get(self.kind)
        if keys is None:  # a kind this version does not know: whatever it carries
            keys = tuple(k for k, v in values.items() if v not in (None, []))
        out = dict(self.other)
        out.update((k, values[k]) for k in keys)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Attempt:
        """Read a log line, whichever version wrote it (no ``kind``: an early submit)."""
        tries, remaining = data.get("tries"), data.get("remaining")
        facts = data.get("facts") or ()
        return cls(
            kind=str(data.get("kind") or AttemptKind.SUBMIT.value),
            quest=str(data.get("quest") or ""),
            time=str(data.get("time") or ""),
            verdict=_str_or_none(data.get("verdict")),
            state=_str_or_none(data.get("state")),
            tries=tries if isinstance(tries, int) else None,
            facts=tuple(Fact.from_dict(f) for f in facts if isinstance(f, Mapping)),
            remaining=remaining if isinstance(remaining, int) else None,
            agent=_str_or_none(data.get("agent")),
            test=_str_or_none(data.get("test")),
            sha256=_str_or_none(data.get("sha256")),
            covered_lines=tuple(int(n) for n in data.get("covered_lines") or ()),
            by=_str_or_none(data.get("by")),
            action=_str_or_none(data.get("action")),
            note=_str_or_none(data.get("note")),
            from_state=_str_or_none(data.get("from")),
            isolation=_str_or_none(data.get("isolation")),
            other={k: v for k, v in data.items() if k not in _ATTEMPT_ALL},
        )


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


#: The keys a ledger's evidence may carry besides ``source`` and ``time``, in field order.
_EVIDENCE_OPTIONAL = tuple(f.name for f in fields(Evidence) if f.name not in
                           ("source", "time", "other"))
_EVIDENCE_KEYS = frozenset({"source", "time", *_EVIDENCE_OPTIONAL})
_ATTEMPT_KEYS: dict[str, tuple[str, ...]] = {
    AttemptKind.SUBMIT.value: ("kind", "quest", "time", "agent", "test", "sha256", "verdict",
                               "state", "tries", "facts", "remaining", "isolation"),
    AttemptKind.REVIEW.value: ("kind", "quest", "time", "agent", "by", "action", "note", "from",
                               "state", "tries", "facts", "remaining"),
    AttemptKind.SUITE_LOCK.value: ("kind", "quest", "time", "verdict", "state", "tries", "facts",
                                   "remaining", "covered_lines"),
    AttemptKind.SKIP.value: ("kind", "quest", "time", "agent", "state", "tries", "facts",
                             "remaining"),
    AttemptKind.AGENT.value: ("kind", "quest", "time", "agent"),  # and outcome, ... in other
    AttemptKind.RECHECK.value: ("kind", "quest", "time", "test", "sha256", "verdict", "state",
                                "tries", "facts", "remaining"),
}
_ATTEMPT_ALL = frozenset({
    "kind", "quest", "time", "verdict", "state", "tries", "facts", "remaining", "agent", "test",
    "sha256", "covered_lines", "by", "action", "note", "from", "isolation",
})


def json_lines(lines: Iterable[str]) -> list[dict[str, Any]]:
    """The JSON objects of an append-only log, one per line.

    A line that does not parse is skipped, not fatal: the last line of a log
    whose writer was killed is torn, and the attempts log is merged by git
    (its merge driver reads both sides with this too). Anything but an object
    is skipped the same way.
    """
    out = []
    for line in lines:
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(record, dict):
            out.append(record)
    return out
