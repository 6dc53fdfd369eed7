"""The ledger across history: is a later ledger a monotone successor of an earlier one?

One set of rules, used from two sides:

- :func:`judge` compares a head ledger with a base ledger (``pytest --quest-check
  --quest-base=REF``): every way the head moved backwards is a violation fact,
  every allowed backward step (a deleted function, a logged reopen) a notice;
- :func:`merge` is the git merge driver's three-way merge of two ledgers that
  grew from one base: it picks per quest what :func:`judge` accepts against
  both sides, so a merged ledger never fails the check its branches passed.

Pure: ledgers are the parsed JSON documents (plain dicts, read tolerantly,
since quest records grow fields), the function lookup is injected, and the
attempts logs are lists of their lines. No git, no pytest, no file access.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from pytest_quest.config import Settings
from pytest_quest.facts import FAIL, Fact
from pytest_quest.records import json_lines

__all__ = [
    "NOTICE",
    "SCOPE_KEYS",
    "HistoryReport",
    "MergeReport",
    "judge",
    "merge",
    "scope_settings",
]

#: The level of a fact that is reported but never fails the run.
NOTICE = "notice"

PASS_LOST = "history-pass-lost"
VANISHED = "history-quest-vanished"
TRIES = "history-tries-lowered"
STATE = "history-state-moved"
EVIDENCE = "history-evidence-changed"
ATTEMPTS = "history-attempts-lost"
SCOPE = "history-scope-narrowed"
RETIRED_NOTICE = "history-retired"
DECISION_NOTICE = "history-decision"

#: Settings whose change can shrink what the ratchet holds, in report order.
SCOPE_KEYS = ("sources", "exclude", "exclude_quests", "test_dir", "branch", "mutation",
              "mutation_threshold", "max_tries")
#: How "far" a state is; the merge keeps the further one, PASS first.
_RANK = {"PASS": 4, "REVIEW": 3, "DONE": 2, "TODO": 1, "RETIRED": 0}
#: The review actions that may move a quest out of each state.
_MOVES = {"PASS": {"reopen"}, "REVIEW": {"approve", "reject", "close"}, "DONE": set()}
#: Quest fields that describe one verdict and travel together in a merge.
_STATUS = ("state", "evidence", "decision", "facts")

Exists = Callable[[str, str], bool]


@dataclass
class HistoryReport:
    """The verdict of one base -> head comparison: violations fail, notices inform."""

    violations: list[Fact] = field(default_factory=list)
    notices: list[Fact] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "violations": [f.to_dict() for f in self.violations],
            "notices": [f.to_dict() for f in self.notices],
        }


@dataclass
class MergeReport:
    """What a three-way merge decided where both sides moved the same quest."""

    ledger: dict[str, Any]
    #: quest id -> the PASS evidence that lost the deterministic pick (kept in the quest too).
    contradictions: dict[str, Any] = field(default_factory=dict)


# ------------------------------------------------------------------ reading
def _quests(ledger: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for item in (ledger or {}).get("quests") or ():
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            out[item["id"]] = item
    return out


def _state(quest: Mapping[str, Any]) -> str:
    state = quest.get("state", "TODO")
    return state if state in _RANK else "TODO"


def _tries(quest: Mapping[str, Any]) -> int:
    value = quest.get("tries", 0)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def scope_settings(recorded: Mapping[str, Any] | None,
                   table: Mapping[str, Any] | None) -> dict[str, Any]:
    """The settings that bound the ratchet's scope, as the commands would resolve them.

    ``recorded`` is the ledger's ``settings`` (what the last scan used),
    ``table`` the ``[tool.pytest-quest]`` table of ``pyproject.toml``, which
    wins, as in :func:`pytest_quest.config.load_settings`. Keys neither names
    take the defaults; sources left to auto-detection stay ``[]``.
    """
    defaults = {f.name: f.default for f in fields(Settings)}
    given = {str(k).replace("-", "_"): v for k, v in (table or {}).items()}
    out: dict[str, Any] = {}
    for key in SCOPE_KEYS:
        if key in given:
            value = given[key]
        elif recorded and key in recorded:
            value = recorded[key]
        else:
            value = defaults.get(key, ())
        if isinstance(value, list | tuple):
            value = sorted(str(v).strip("/") or "." for v in value)
        out[key] = value
    return out


# ------------------------------------------------------------------ judging
def _fact(rule: str, where: str, expected: str, actual: str, level: str = FAIL) -> Fact:
    return Fact(rule=rule, level=level, where=where, expected=expected, actual=actual)


def _covers(outer: str, inner: str) -> bool:
    """True when folder ``outer`` holds ``inner`` (or is it); ``.`` holds everything."""
    return outer == "." or inner == outer or inner.startswith(outer.rstrip("/") + "/")


def _scope_facts(base: Mapping[str, Any], head: Mapping[str, Any]) -> list[Fact]:
    out: list[Fact] = []

    def narrowed(key: str, why: str) -> None:
        out.append(_fact(SCOPE, f"[tool.pytest-quest] {key}",
                         f"{key} no narrower than at base ({base[key]!r})",
                         f"{key}: {base[key]!r} -> {head[key]!r} ({why})"))

    old_src, new_src = list(base["sources"]), list(head["sources"])
    if old_src and new_src and any(not any(_covers(n, o) for n in new_src) for o in old_src):
        narrowed("sources", "folders left out of the scan")
    elif old_src and not new_src:
        narrowed("sources", "explicit sources replaced by auto-detection")
    for key in ("exclude", "exclude_quests"):
        old, new = list(base.get(key) or ()), list(head.get(key) or ())
        if any(not any(_covers(o, n) for o in old) for n in new):
            narrowed(key, "more left out")
    if base["test_dir"] != head["test_dir"]:
        narrowed("test_dir", "the quest test folder moved; files under it are never scanned")
    for key in ("branch", "mutation"):
        if base[key] is True and head[key] is not True:
            narrowed(key, "turned off")
    for key in ("mutation_threshold", "max_tries"):
        old, new = base[key], head[key]
        if isinstance(old, int | float) and isinstance(new, int | float) and new < old:
            narrowed(key, "lowered")
    return out


def _logged(head_log: Sequence[str], base_log: Sequence[str]) -> set[tuple[str, str, str]]:
    """What was logged at head but not at base.

    (quest, action, time) of each review decision and (quest, "recheck",
    sha256) of each test the gate judged again and relocked.
    """
    known = Counter(base_log)
    fresh = []
    for line in head_log:
        if known[line] > 0:
            known[line] -= 1
        else:
            fresh.append(line)
    out = set()
    for r in json_lines(fresh):
        if r.get("kind") == "review":
            out.add((str(r.get("quest")), str(r.get("action")), str(r.get("time"))))
        elif r.get("kind") == "recheck" and r.get("verdict") == "PASS":
            out.add((str(r.get("quest")), "recheck", str(r.get("sha256"))))
    return out


def _decided(quest: Mapping[str, Any], allowed: set[str],
             logged: set[tuple[str, str, str]]) -> dict[str, Any] | None:
    """The quest's decision when it is one of ``allowed`` and logged at head."""
    decision = quest.get("decision")
    if not isinstance(decision, dict):
        return None
    key = (str(quest.get("id")), str(decision.get("action")), str(decision.get("time")))
    if decision.get("action") in allowed and key in logged:
        return decision
    return None


def _attempt_facts(base_log: Sequence[str], head_log: Sequence[str]) -> list[Fact]:
    missing = Counter(line for line in base_log if line.strip())
    missing.subtract(Counter(head_log))
    lost = [line for line, n in missing.items() if n > 0 for _ in range(n)]
    if not lost:
        return []
    first = (json_lines(lost[:1]) or [{}])[0]
    what = f"quest {first.get('quest')} at {first.get('time')}" if first else lost[0][:80]
    return [_fact(ATTEMPTS, ".quest/attempts.jsonl",
                  "every attempt recorded at base is still in the log (it is append-only)",
                  f"{len(lost)} line(s) removed or rewritten, the first: {what}")]


def _evidence_facts(qid: str, old: Mapping[str, Any], new: Mapping[str, Any],
                    logged: set[tuple[str, str, str]], report: HistoryReport) -> None:
    """A PASS keeps the test that earned it, unless the gate relocked it (a logged recheck).

    Rewriting the locked test and its sha256 in the ledger together would
    otherwise pass the ratchet, which only compares the two.
    """
    before, after = old.get("evidence"), new.get("evidence")
    if not isinstance(before, dict) or not isinstance(after, dict):
        return
    was = (before.get("test"), before.get("sha256"))
    now = (after.get("test"), after.get("sha256"))
    if was == now or was == (None, None):
        return
    extra = new.get("extra")
    kept = extra.get("other_pass_evidence") if isinstance(extra, dict) else None
    if (qid, "recheck", str(now[1])) in logged or kept == before:
        return
    report.violations.append(_fact(
        EVIDENCE, qid, f"the PASS keeps its locked test {was[0]} (sha256 {was[1]}) unless "
        "`pytest-quest recheck` relocked it",
        f"evidence changed to {now[0]} (sha256 {now[1]}) with no recheck logged in "
        ".quest/attempts.jsonl"))


def _quest_facts(qid: str, old: Mapping[str, Any], new: Mapping[str, Any] | None,
                 exists: Exists, logged: set[tuple[str, str, str]], max_tries: Any,
                 report: HistoryReport) -> None:
    before = _state(old)
    path, qualname = str(old.get("path", qid.split("::")[0])), str(
        old.get("qualname", qid.split("::")[-1]))
    # Asked only where the answer matters: the lookup parses the file.
    if new is None:
        if exists(path, qualname):
            report.violations.append(_fact(
                VANISHED, qid, "the quest stays in the ledger while its function exists",
                f"the quest ({before}) is missing from the ledger; {qualname} is still "
                f"defined in {path}"))
        elif before == "PASS":
            report.notices.append(_fact(
                RETIRED_NOTICE, qid, "a PASS stays PASS while its function exists",
                f"the function is gone from {path}: dropped", NOTICE))
        return
    after = _state(new)
    if before == after == "PASS":
        _evidence_facts(qid, old, new, logged, report)
    if _tries(new) < _tries(old) and not (before == "RETIRED" and after == "TODO"):
        report.violations.append(_fact(
            TRIES, qid, f"tries never go down (at base: {_tries(old)})",
            f"tries {_tries(old)} -> {_tries(new)}"))
    if after == "RETIRED" and before != "RETIRED":
        if exists(path, qualname):
            report.violations.append(_fact(
                PASS_LOST if before == "PASS" else VANISHED, qid,
                f"a {before} quest is retired only when its function is gone",
                f"{before} -> RETIRED while {qualname} is still defined in {path}"))
        elif before == "PASS":
            report.notices.append(_fact(
                RETIRED_NOTICE, qid, "a PASS stays PASS while its function exists",
                f"PASS -> RETIRED: the function is gone from {path}", NOTICE))
        return
    if after == before or before in ("TODO", "RETIRED"):
        if before == "TODO" and after == "DONE" and isinstance(max_tries, int) and (
                _tries(new) < max_tries and _decided(new, {"close"}, logged) is None):
            report.violations.append(_fact(
                STATE, qid, f"DONE after {max_tries} tries or a logged close decision",
                f"TODO -> DONE with {_tries(new)} tries and no logged decision"))
        return
    decision = _decided(new, _MOVES.get(before, set()), logged)
    if decision is not None:
        report.notices.append(_fact(
            DECISION_NOTICE, qid, f"{before} is moved only by a logged review decision",
            f"{before} -> {after}: {decision.get('action')} by {decision.get('by')} "
            f"at {decision.get('time')}: {decision.get('note')}", NOTICE))
        return
    rule = PASS_LOST if before == "PASS" else STATE
    report.violations.append(_fact(
        rule, qid, f"{before} stays {before} (or moves by a logged review decision)",
        f"{before} -> {after} with no review decision logged in .quest/attempts.jsonl"))


def judge(base: Mapping[str, Any] | None, head: Mapping[str, Any] | None, exists: Exists,
          base_log: Sequence[str] = (), head_log: Sequence[str] = (),
          base_table: Mapping[str, Any] | None = None,
          head_table: Mapping[str, Any] | None = None) -> HistoryReport:
    """Every way ``head`` moved backwards from ``base``, as facts.

    ``exists(path, qualname)`` says whether the function is defined in the
    head's files (whatever the configured sources: narrowing them must not
    make a function look deleted). ``*_log`` are the lines of each side's
    ``.quest/attempts.jsonl``; ``*_table`` each side's ``[tool.pytest-quest]``.
    """
    report = HistoryReport()
    if base is None:
        return report
    old_scope = scope_settings(base.get("settings"), base_table)
    new_scope = scope_settings((head or {}).get("settings"), head_table)
    report.violations.extend(_scope_facts(old_scope, new_scope))
    report.violations.extend(_attempt_facts(base_log, head_log))
    logged = _logged(head_log, base_log)
    now = _quests(head)
    for qid, old in sorted(_quests(base).items()):
        new = now.get(qid)
        if new != old:  # an unchanged quest cannot have gone back (most of them)
            _quest_facts(qid, old, new, exists, logged, new_scope["max_tries"], report)
    return report


# ------------------------------------------------------------------ merging
def _pick(ours: Mapping[str, Any], theirs: Mapping[str, Any]) -> Mapping[str, Any]:
    """The side whose status wins: the further state, then more tries, then a stable order."""
    def key(q: Mapping[str, Any]) -> tuple[int, int, str]:
        return (_RANK[_state(q)], _tries(q), _canon({k: q.get(k) for k in _STATUS}))
    return ours if key(ours) >= key(theirs) else theirs


def _first_lock(a: Any, b: Any) -> tuple[Any, Any]:
    """Two different PASS evidences: the earlier lock wins (then the smaller JSON)."""
    def key(e: Any) -> tuple[str, str]:
        return (str(e.get("time", "")) if isinstance(e, dict) else "", _canon(e))
    return (a, b) if key(a) <= key(b) else (b, a)


def _merge_quest(qid: str, base: Mapping[str, Any] | None, ours: Mapping[str, Any],
                 theirs: Mapping[str, Any], report: MergeReport) -> dict[str, Any]:
    base = base or {}

    def changed(side: Mapping[str, Any], keys: Iterable[str]) -> bool:
        return any(side.get(k) != base.get(k) for k in keys)

    merged: dict[str, Any] = {}
    for key in sorted(set(ours) | set(theirs) | set(base)):
        if key in _STATUS or key == "tries":
            continue
        o_diff, t_diff = ours.get(key) != base.get(key), theirs.get(key) != base.get(key)
        value = theirs.get(key) if (t_diff and not o_diff) else ours.get(key)
        if key == "updated":
            value = max(str(ours.get(key, "")), str(theirs.get(key, ""))) or None
        if value is not None:
            merged[key] = value
    o_moved, t_moved = changed(ours, _STATUS), changed(theirs, _STATUS)
    # Only one side moved the verdict: take its move (a logged reopen stays a reopen).
    status = _pick(ours, theirs) if o_moved and t_moved else (theirs if t_moved else ours)
    for key in _STATUS:
        if status.get(key) is not None:
            merged[key] = status[key]
    if _state(ours) == "PASS" and _state(theirs) == "PASS" and o_moved and t_moved:
        kept, other = _first_lock(ours.get("evidence"), theirs.get("evidence"))
        if _canon(kept) != _canon(other):
            merged["evidence"] = kept
            extra = dict(merged.get("extra") or {})
            extra["other_pass_evidence"] = other
            merged["extra"] = extra
            report.contradictions[qid] = other
    merged["tries"] = max(_tries(ours), _tries(theirs), _tries(base))
    return merged


def _merge_map(base: Mapping[str, Any], ours: Mapping[str, Any],
               theirs: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in sorted(set(ours) | set(theirs)):
        if key in theirs and (key not in ours or (theirs[key] != base.get(key)
                                                  and ours.get(key) == base.get(key))):
            out[key] = theirs[key]
        elif key in ours and not (key not in theirs and key in base and ours[key] == base[key]):
            out[key] = ours[key]
    return out


def merge(base: Mapping[str, Any] | None, ours: Mapping[str, Any],
          theirs: Mapping[str, Any]) -> MergeReport:
    """Three-way merge of two ledgers, quest by quest, with :func:`judge`'s rules.

    A side that left a quest as it was at ``base`` takes the other side's
    change (a logged reopen stays a reopen); where both moved it, the further
    state wins (PASS first), tries take the maximum, and two different PASS
    evidences keep the earlier lock with the other one beside it in
    ``extra["other_pass_evidence"]``. A quest one side dropped stays.
    """
    base = base or {}
    report = MergeReport(ledger={})
    b, o, t = _quests(base), _quests(ours), _quests(theirs)
    quests = []
    for qid in sorted(set(o) | set(t)):
        if qid not in o or qid not in t:
            quests.append(dict(o.get(qid) or t[qid]))
        elif o[qid] == t[qid] or t[qid] == b.get(qid):
            quests.append(dict(o[qid]))  # the same on both sides, or only ours moved it
        elif o[qid] == b.get(qid):
            quests.append(dict(t[qid]))
        else:
            quests.append(_merge_quest(qid, b.get(qid), o[qid], t[qid], report))
    merged = _merge_map(base, ours, theirs)
    merged["settings"] = _merge_map(base.get("settings") or {}, ours.get("settings") or {},
                                    theirs.get("settings") or {})
    merged["snapshot"] = _merge_map(base.get("snapshot") or {}, ours.get("snapshot") or {},
                                    theirs.get("snapshot") or {})
    scans = {_canon(s): s for s in [*(ours.get("scans") or ()), *(theirs.get("scans") or ())]}
    merged["scans"] = sorted(scans.values(), key=lambda s: (str(s.get("time", "")), _canon(s)))
    merged["quests"] = quests
    report.ledger = merged
    return report
