"""The shape of ``.quest/ledger.json``, checked in full before any command trusts it.

A ledger is edited by hand, merged by git and written by several versions of
this tool. A half-checked ledger lets a damaged value travel: a ``tries`` of
``"2"`` crashed ``status`` with a traceback, a ledger that lost its ``quests``
key in a bad merge was read as empty and the next ``scan`` rewrote it, losing
every PASS for good. So the whole document is checked on load, and the first
problem is named with its place (``quests[3].tries``); the caller refuses the
file and leaves it as it was.

Pure functions on the parsed JSON; no I/O.
"""

from __future__ import annotations

import json
import math
from datetime import datetime
from typing import Any

from pytest_quest.states import State

__all__ = ["loads", "validate"]

_STATES = frozenset(s.value for s in State)
_FACT_KEYS = ("rule", "level", "where", "expected", "actual")
#: Quest keys every record written by ``scan`` holds; a record without one is damaged.
_REQUIRED = ("id", "path", "qualname", "state", "tries", "lines", "body")


class _Bad(ValueError):
    """A value that is not what the ledger format says; the message names its place."""


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Bad(f"number {text} is not finite")
    return value


def _constant(name: str) -> Any:
    raise _Bad(f"{name} is not a number a ledger may hold")


def loads(text: str) -> Any:
    """``json.loads`` that refuses ``NaN``, ``Infinity`` and numbers too large for a float."""
    return json.loads(text, parse_float=_finite, parse_constant=_constant)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _bad(where: str, what: str, value: object) -> _Bad:
    return _Bad(f"{where}: expected {what}, got {repr(value)[:60]}")


def _expect(ok: bool, where: str, what: str, value: Any) -> None:
    if not ok:
        raise _bad(where, what, value)


def _text(value: object, where: str) -> str:
    """The value, checked to be non-empty text: narrowed for the caller, not only tested."""
    if isinstance(value, str) and value != "":
        return value
    raise _bad(where, "text", value)


def _time(value: Any, where: str) -> None:
    _expect(isinstance(value, str), where, "a time (ISO 8601 text)", value)
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise _Bad(f"{where}: expected a time (ISO 8601 text), got {value[:60]!r}") from None


def _span(value: Any, where: str) -> None:
    ok = (isinstance(value, list) and len(value) == 2 and all(_is_int(x) and x >= 0 for x in value)
          and value[0] <= value[1])
    _expect(ok, where, "[first, last] line numbers", value)


def _quest(item: Any, where: str) -> str:
    _expect(isinstance(item, dict), where, "an object", item)
    for key in _REQUIRED:
        if key not in item:
            raise _Bad(f"{where}: required key {key!r} is missing")
    ident = _text(item["id"], f"{where}.id")
    for key in ("path", "qualname"):
        _text(item[key], f"{where}.{key}")
    _expect(item["state"] in _STATES, f"{where}.state", f"one of {', '.join(sorted(_STATES))}",
            item["state"])
    _expect(_is_int(item["tries"]) and item["tries"] >= 0, f"{where}.tries",
            "a whole number >= 0", item["tries"])
    _span(item["lines"], f"{where}.lines")
    _span(item["body"], f"{where}.body")
    for key in ("kind", "source_hash", "added", "updated"):
        if key in item:
            _expect(isinstance(item[key], str), f"{where}.{key}", "text", item[key])
    for key in ("evidence", "decision", "lease", "extra"):
        if item.get(key) is not None:
            _expect(isinstance(item[key], dict), f"{where}.{key}", "an object", item[key])
    facts = item.get("facts", [])
    _expect(isinstance(facts, list), f"{where}.facts", "a list", facts)
    for n, fact in enumerate(facts):
        _expect(isinstance(fact, dict) and all(isinstance(fact.get(k), str) for k in _FACT_KEYS),
                f"{where}.facts[{n}]", "an object with text " + ", ".join(_FACT_KEYS), fact)
    lease = item.get("lease")
    if lease is not None:
        _expect(isinstance(lease.get("agent"), str), f"{where}.lease.agent", "text",
                lease.get("agent"))
        _time(lease.get("until"), f"{where}.lease.until")
    for place, missing in (("missing", item.get("missing")),
                           ("extra.missing", (item.get("extra") or {}).get("missing"))):
        if missing is not None:
            _expect(isinstance(missing, list) and all(_is_int(x) for x in missing),
                    f"{where}.{place}", "a list of line numbers", missing)
    return ident


_OPTIONAL_TEXT = ("kind", "source_hash", "added", "updated")
_OPTIONAL_OBJECTS = ("evidence", "decision", "extra")


def _sound_span(value: Any) -> bool:
    return (type(value) is list and len(value) == 2 and type(value[0]) is int
            and type(value[1]) is int and 0 <= value[0] <= value[1])


def _sound(item: Any) -> bool:
    """The common case fast: True when :func:`_quest` would accept ``item`` (no messages built)."""
    if type(item) is not dict:
        return False
    try:
        if not (type(item["id"]) is str and item["id"] and type(item["path"]) is str
                and item["path"] and type(item["qualname"]) is str and item["qualname"]
                and item["state"] in _STATES and type(item["tries"]) is int
                and item["tries"] >= 0 and _sound_span(item["lines"])
                and _sound_span(item["body"])):
            return False
    except (KeyError, TypeError):
        return False
    for key in _OPTIONAL_TEXT:
        if key in item and type(item[key]) is not str:
            return False
    for key in _OPTIONAL_OBJECTS:
        value = item.get(key)
        if value is not None and type(value) is not dict:
            return False
    facts = item.get("facts", ())
    if facts and (type(facts) is not list or not all(
        type(f) is dict and all(type(f.get(k)) is str for k in _FACT_KEYS) for f in facts
    )):
        return False
    if type(facts) not in (list, tuple):
        return False
    if item.get("lease") is not None:
        return False  # rare: checked in full by _quest (its time is parsed)
    for missing in (item.get("missing"), (item.get("extra") or {}).get("missing")):
        if missing is not None and not (
            type(missing) is list and all(type(x) is int for x in missing)
        ):
            return False
    return True


def validate(data: object) -> dict[str, Any]:
    """``data`` as a ledger document, or ``ValueError`` naming the first place where it is not.

    The schema version is checked by the caller (it has its own message).
    """
    if not isinstance(data, dict):
        raise _bad("top level", "an object", data)
    if "quests" not in data:
        raise _Bad("required key 'quests' is missing")
    quests = data["quests"]
    _expect(isinstance(quests, list), "quests", "a list", quests)
    seen: set[str] = set()
    for n, item in enumerate(quests):
        # The plain check runs per quest (10,000 of them on every command); the one that
        # names the place runs only for a record that fails it.
        quest_id = item["id"] if _sound(item) else _quest(item, f"quests[{n}]")
        if quest_id in seen:
            raise _Bad(f"quests[{n}].id: {quest_id!r} appears twice")
        seen.add(quest_id)
    for key, kind in (("settings", dict), ("snapshot", dict), ("scans", list), ("skipped", list)):
        if key in data:
            _expect(isinstance(data[key], kind), key, f"a{'n object' if kind is dict else ' list'}",
                    data[key])
    for rel, digest in data.get("snapshot", {}).items():
        _expect(isinstance(digest, str), f"snapshot[{rel!r}]", "a sha256 text", digest)
    for n, scan in enumerate(data.get("scans", [])):
        _expect(isinstance(scan, dict), f"scans[{n}]", "an object", scan)
    for n, entry in enumerate(data.get("skipped", [])):
        _expect(isinstance(entry, dict) and isinstance(entry.get("id"), str)
                and isinstance(entry.get("reason"), str), f"skipped[{n}]",
                "an object with text id and reason", entry)
    return data
