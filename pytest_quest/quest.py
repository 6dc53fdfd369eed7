"""The ledger record of one quest: one function or method of the target.

A plain frozen dataclass so the ratchet can stay a pure function
``(quest, verdict, now) -> quest`` and the ledger can serialise it
deterministically.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from pytest_quest.facts import Fact
from pytest_quest.records import Evidence
from pytest_quest.states import State

__all__ = ["Quest"]


@dataclass(frozen=True)
class Quest:
    """One function or method to be tested; its id is ``path::qualname``."""

    id: str
    path: str
    qualname: str
    kind: str = "function"
    #: ``[first, last]``: the ``def`` line (decorators excluded) to the last line.
    lines: tuple[int, int] = (0, 0)
    #: ``[first, last]`` of the body: the lines that must be executed.
    body: tuple[int, int] = (0, 0)
    source_hash: str = ""
    state: State = State.TODO
    tries: int = 0
    facts: tuple[Fact, ...] = ()
    #: Lines of the body the last measured submission did not execute (None: never measured).
    #: The one record of them: ``next`` hands them to the agent, the views mark them.
    missing: tuple[int, ...] | None = None
    #: Why a PASS is locked (None until then).
    evidence: Evidence | None = None
    decision: dict[str, Any] | None = None
    added: str = ""
    updated: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def with_(self, **changes: Any) -> Quest:
        """A copy with ``changes``; records are never mutated in place."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in _NAMES:
            value = getattr(self, name)
            if name == "facts":
                value = [fact.to_dict() for fact in value]
            elif name in ("lines", "body") or (name == "missing" and value is not None):
                value = list(value)
            elif name == "state":
                value = value.value
            elif name == "evidence" and value is not None:
                value = value.to_dict()
            if value is None or value == {} or (name == "facts" and not value):
                continue
            out[name] = value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Quest:
        kwargs = {k: v for k, v in data.items() if k in _KNOWN}
        kwargs["state"] = State(kwargs.get("state", "TODO"))
        kwargs["lines"] = tuple(kwargs.get("lines", (0, 0)))
        kwargs["body"] = tuple(kwargs.get("body", (0, 0)))
        kwargs["facts"] = tuple(Fact.from_dict(f) for f in kwargs.get("facts", ()))
        extra = kwargs.get("extra") or {}
        if "missing" in extra:  # where versions up to 0.1.0 kept it
            kwargs["extra"] = {k: v for k, v in extra.items() if k != "missing"}
            kwargs.setdefault("missing", extra["missing"])
        if kwargs.get("missing") is not None:
            kwargs["missing"] = tuple(map(int, kwargs["missing"]))
        if kwargs.get("evidence"):
            kwargs["evidence"] = Evidence.from_dict(kwargs["evidence"])
        else:
            kwargs.pop("evidence", None)
        return cls(**kwargs)


#: Field names, computed once: ``fields()`` per record costs a third of a 10,000-quest load.
_NAMES = tuple(f.name for f in fields(Quest))
_KNOWN = frozenset(_NAMES)
