"""The wire between the gate and the harness: the spec that goes in, the events that come out.

The harness (:mod:`pytest_quest.harness`) runs in the sandbox next to
untrusted test code, so everything it sends back is read as hostile input:
:func:`parse_events` checks the type and shape of every field of every
event, the order of the events and their size, and turns anything off into a
:class:`Tampering` (the rule ``run-report-tampered``), never an exception.
The same goes for what each forked run reports to the harness's judge
(:func:`parse_run_report`). Pure: no pytest, no coverage, only the standard
library, so both sides import it cheaply.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum
from typing import Any, Final

__all__ = [
    "DENIED_RECORD",
    "MAX_EVENT_BYTES",
    "MAX_REPORT_BYTES",
    "MAX_START_BRANCHES",
    "MAX_START_BYTES",
    "MAX_START_STATEMENTS",
    "READ_RECORD",
    "REPLACED_RECORD",
    "WORKER_COVERAGE_ENV",
    "EventKind",
    "HarnessSpec",
    "Limits",
    "MutationSpec",
    "ProtocolError",
    "RunReport",
    "RunStart",
    "Tampering",
    "TargetSpec",
    "encode_event",
    "parse_events",
    "parse_run_report",
    "parse_run_start",
    "split_run_answer",
    "validate_event",
]

#: Bound on everything the harness may send back to the gate (a baseline of a large
#: project reports coverage for thousands of files; 64 MiB is far above that).
MAX_EVENT_BYTES: Final = 64 * 1024 * 1024
#: Bound on what one forked run may send back to the judge.
MAX_REPORT_BYTES: Final = 32 * 1024 * 1024
#: How a run's code watch writes a finding to the answer pipe the moment it sees it, one line
#: each before the answer: this prefix, then the finding's UTF-8 text in hex (no JSON: a test
#: may have replaced the encoder's methods, and the watch must run none of its code).
READ_RECORD: Final = b"#read "
#: The same for the sandbox guard's refusals in the test's time.
DENIED_RECORD: Final = b"#denied "
#: The same for a test under which the target's ``__code__`` was replaced (its node id).
REPLACED_RECORD: Final = b"#replaced "
#: The code watch's finding for ctypes loaded for the test (the end of a read record's text):
#: the judge keeps ctypes out of runs, and once in, its objects read any memory unheard.
CTYPES_LOADED: Final = "loaded ctypes, whose objects read any memory with no audit event"
#: The baseline harness's measurement options (JSON) for its xdist workers (pytest_quest.workers).
WORKER_COVERAGE_ENV: Final = "PYTEST_QUEST_WORKER_COVERAGE"


class EventKind(StrEnum):
    """Every event the harness emits; nothing else is accepted."""

    START = "start"
    COLLECT_ERROR = "collect_error"
    COLLECTED = "collected"
    REPORT = "report"
    ROUND_DONE = "round_done"
    COVERAGE = "coverage"
    MUTATION = "mutation"
    DENIED = "denied"
    TARGET_REPLACED = "target_replaced"
    TARGET_MISSING = "target_missing"
    TARGET_READ = "target_read"
    ENV_ERROR = "env_error"
    #: The judge could not trust what a forked run answered (malformed, oversized).
    TAMPERED = "tampered"
    DONE = "done"
    #: Not sent by the harness: ``scan`` records the tests it deselected before its second run.
    DESELECTED = "deselected"


#: Kinds that may appear at most once in a run.
UNIQUE_KINDS: Final = frozenset({EventKind.START, EventKind.COLLECTED, EventKind.COVERAGE,
                                 EventKind.MUTATION, EventKind.DONE})
OUTCOMES: Final = ("passed", "failed", "skipped")
PHASES: Final = ("setup", "call", "teardown")
MUTANT_OUTCOMES: Final = ("killed", "survived", "timeout", "crashed", "error")


class ProtocolError(ValueError):
    """A message that is not what the protocol allows; carries where, expected and actual."""

    def __init__(self, where: str, expected: str, actual: str) -> None:
        super().__init__(f"{where}: expected {expected}, got {actual}")
        self.where = where
        self.expected = expected
        self.actual = actual


@dataclass(frozen=True)
class Tampering:
    """Why a run's report cannot be trusted: the fact ``run-report-tampered`` quotes it."""

    where: str
    expected: str
    actual: str


# ---------------------------------------------------------------------- the spec
@dataclass(frozen=True)
class TargetSpec:
    """How the harness finds the quest's function (module, owner chain, name)."""

    file: str
    module: str
    owner: tuple[str, ...]
    name: str
    accessor: str | None
    qualname: str
    body: tuple[int, int]
    lines: tuple[int, int]


@dataclass(frozen=True)
class MutationSpec:
    """What the mutation stage may spend and where it draws the line."""

    threshold: float = 0.6
    max_mutants: int = 20


@dataclass(frozen=True)
class Limits:
    """Resource limits of the harness process (0 or None: no limit)."""

    cpu: int | None = None
    memory_mb: int | None = None
    fsize_mb: int | None = None


@dataclass(frozen=True)
class HarnessSpec:
    """Everything ``python -m pytest_quest.harness`` needs; built in ``sandbox.harness_spec``.

    ``mode`` is ``"submit"`` (one test file judged: a measured run, clean
    control runs and mutants, each in its own forked child) or ``"suite"``
    (the project's own suite measured once, for the scan's baseline).
    """

    mode: str
    pytest_args: tuple[str, ...]
    sandbox: str
    private_dir: str
    allowed_write: tuple[str, ...]
    target: TargetSpec | None = None
    test_file: str | None = None
    measure_files: tuple[str, ...] = ()
    #: The suite's sources as coverage.py include patterns (``paths.coverage_include``).
    sources: tuple[str, ...] = ()
    branch: bool = False
    #: Clean runs wanted at least (the measured one included).
    reruns: int = 1
    #: Seconds for every run after the measured one (controls and mutants together).
    budget: float = 90.0
    mutation: MutationSpec | None = None
    limits: Limits = field(default_factory=Limits)
    guard: bool = True
    #: Lines of the target the agent claims unreachable (``submit --unreachable``). The claim
    #: sends the quest to a human anyway; here it only lets the mutation stage run on the
    #: covered rest when these lines (and branches from them) are all that is missing.
    claimed: tuple[int, ...] = ()
    #: Inherited descriptors on the runs cgroup (``cgroups.ProcessLimits.evictor``): its
    #: ``cgroup.procs``, which the zygote writes to join it (every run is then born there), and
    #: its ``memory.force_empty`` (cgroup v1) or ``memory.reclaim`` (v2), which the zygote writes
    #: before each wave of runs, so the page cache one wave faulted in is gone for the next.
    #: None where there is no runs cgroup.
    evict_fds: tuple[int, int] | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> HarnessSpec:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ProtocolError("spec", "an object", type(data).__name__)
        target = data.get("target")
        mutation = data.get("mutation")
        spec: HarnessSpec = _build(cls, data, {
            "target": None if target is None else _build(TargetSpec, target, {}),
            "mutation": None if mutation is None else _build(MutationSpec, mutation, {}),
            "limits": _build(Limits, data.get("limits", {}), {}),
        })
        return spec


def _build(cls: Any, data: Any, nested: dict[str, Any]) -> Any:
    """``cls(**data)`` with lists as tuples; unknown keys are refused, not ignored."""
    if not isinstance(data, dict):
        raise ProtocolError(cls.__name__, "an object", type(data).__name__)
    names = {f.name for f in fields(cls)}
    unknown = set(data) - names
    if unknown:
        raise ProtocolError(cls.__name__, f"only {sorted(names)}", f"unknown {sorted(unknown)}")
    values = {k: tuple(_tuples(v)) if isinstance(v, list) else v for k, v in data.items()}
    values.update({k: v for k, v in nested.items() if k in data})
    return cls(**values)


def _tuples(value: list[Any]) -> list[Any]:
    return [tuple(v) if isinstance(v, list) else v for v in value]


# -------------------------------------------------------------------- validators
Check = Callable[[Any, str], None]


def _fail(where: str, expected: str, value: Any) -> ProtocolError:
    text = repr(value)
    return ProtocolError(where, expected, text if len(text) <= 80 else text[:77] + "...")


def _int(value: Any, where: str) -> None:
    if type(value) is not int:
        raise _fail(where, "an integer", value)


def _number(value: Any, where: str) -> None:
    if type(value) not in (int, float) or not math.isfinite(value):
        raise _fail(where, "a finite number", value)


def _str(value: Any, where: str) -> None:
    if type(value) is not str:
        raise _fail(where, "a string", value)


def _bool(value: Any, where: str) -> None:
    if type(value) is not bool:
        raise _fail(where, "true or false", value)


def _optional(check: Check) -> Check:
    def run(value: Any, where: str) -> None:
        if value is not None:
            check(value, where)

    return run


def _one_of(*allowed: str) -> Check:
    def run(value: Any, where: str) -> None:
        if value not in allowed:
            raise _fail(where, f"one of {', '.join(allowed)}", value)

    return run


def _list(check: Check, limit: int = 1_000_000) -> Check:
    def run(value: Any, where: str) -> None:
        if type(value) is not list or len(value) > limit:
            raise _fail(where, "a list", value)
        for index, item in enumerate(value):
            check(item, f"{where}[{index}]")

    return run


def _pair(value: Any, where: str) -> None:
    _list(_int, 2)(value, where)
    if len(value) != 2:
        raise _fail(where, "a pair of line numbers", value)


def _dict_of(check: Check) -> Check:
    def run(value: Any, where: str) -> None:
        if type(value) is not dict:
            raise _fail(where, "an object", value)
        for key, item in value.items():
            check(item, f"{where}[{key!r}]")

    return run


def _shape(required: Mapping[str, Check], optional: Mapping[str, Check] = {}) -> Check:
    def run(value: Any, where: str) -> None:
        if type(value) is not dict:
            raise _fail(where, "an object", value)
        for key in value:
            if key not in required and key not in optional:
                raise _fail(f"{where}.{key}", "no such field", value[key])
        for key, check in required.items():
            if key not in value:
                raise ProtocolError(f"{where}.{key}", "a value", "nothing")
            check(value[key], f"{where}.{key}")
        for key, check in optional.items():
            if key in value:
                check(value[key], f"{where}.{key}")

    return run


_LINES = _list(_int)
FILE_COVERAGE: Final = _shape(
    {"executed_lines": _LINES, "missing_lines": _LINES},
    {"excluded_lines": _LINES, "executed_branches": _list(_pair), "missing_branches": _list(_pair)},
)
_PLACE = {"message": _str, "file": _optional(_str), "line": _optional(_int)}
_MUTANT = _shape(
    {"kind": _one_of("null", "extreme", "returns", "classic", "reach"), "line": _int,
     "description": _str,
     "outcome": _one_of(*MUTANT_OUTCOMES), "ms": _number},
    {"by": _str, "error": _str},
)
_MUTATION_FIELDS: dict[str, Check] = {
    "skipped": _str, "error": _str, "seconds": _number, "paused": _number, "mode": _str,
    "budget": _number,
    "null": _MUTANT, "zero_types": _list(_str, 16), "calls": _optional(_int),
    "candidates": _int, "equivalent": _int, "extreme_equivalent": _int, "incompatible": _int,
    "clean_seconds": _number, "timeout": _number, "import_time_only": _bool,
    "extreme": _list(_MUTANT, 64), "classic": _list(_MUTANT, 1000), "not_run": _int,
    "classic_skipped": _str, "seed": _str, "order": _list(_str, 10_000), "install": _str,
    "controls": _int, "reach": _list(_MUTANT, 1000), "stopped": _int, "reach_not_run": _int,
    "reach_only": _bool, "waves": _int, "left_out": _int, "whole_file": _str,
    "again": _list(_str, 10_000), "extreme_not_run": _int,
}
_EVENTS: dict[EventKind, Check] = {
    EventKind.START: _shape({"pid": _int, "time": _number}),
    EventKind.COLLECT_ERROR: _shape({"nodeid": _str, **_PLACE}),
    EventKind.COLLECTED: _shape({"count": _int, "nodeids": _list(_str)}, {"workers": _int}),
    EventKind.REPORT: _shape(
        {"round": _int, "nodeid": _str, "when": _one_of(*PHASES),
         "outcome": _one_of(*OUTCOMES), "duration": _number},
        {"xfail": _bool, **_PLACE},
    ),
    EventKind.ROUND_DONE: _shape({"round": _int}, {"outcomes": _dict_of(_one_of(*OUTCOMES)),
                                                   "problem": _str}),
    EventKind.COVERAGE: _shape({"files": _dict_of(FILE_COVERAGE)}, {"error": _str}),
    EventKind.MUTATION: _shape({"threshold": _number, "max_mutants": _int}, _MUTATION_FIELDS),
    EventKind.DENIED: _shape({"what": _str}, {"before_test": _bool}),
    EventKind.TARGET_REPLACED: _shape({"nodeid": _str}),
    EventKind.TARGET_MISSING: _shape({"module": _str, "qualname": _str}),
    EventKind.TARGET_READ: _shape({"what": _str}, {"nodeid": _str}),
    EventKind.ENV_ERROR: _shape({"message": _str}),
    EventKind.TAMPERED: _shape({"where": _str, "expected": _str, "actual": _str}),
    EventKind.DONE: _shape({"exitstatus": _int, "denied": _list(_str)}, {"page_cache": _bool}),
    EventKind.DESELECTED: _shape({"nodeids": _list(_str)}),
}


def validate_event(value: Any, where: str = "event") -> dict[str, Any]:
    """The event as a dict with a known ``event`` kind and well-typed fields, or ProtocolError."""
    if type(value) is not dict:
        raise _fail(where, "an object", value)
    kind = value.get("event")
    try:
        if type(kind) is not str:
            raise ValueError(kind)
        known = EventKind(kind)
    except ValueError:
        raise _fail(f"{where}.event", "a known event kind", kind) from None
    body = {k: v for k, v in value.items() if k != "event"}
    _EVENTS[known](body, f"{where} ({known.value})")
    return value


def encode_event(kind: EventKind, **data: Any) -> bytes:
    """One event as the harness sends it: a JSON object on one line."""
    return (json.dumps({"event": kind.value, **data}, allow_nan=False) + "\n").encode("utf-8")


def parse_events(data: bytes, *, truncated: bool = False, died: bool = False
                 ) -> tuple[list[dict[str, Any]], Tampering | None]:
    """Every event the harness sent, checked one by one and in sequence.

    ``truncated``: the reader stopped at :data:`MAX_EVENT_BYTES`. ``died``:
    the process was killed (timeout) so a last line cut short is expected.
    Returns the events read up to the first problem and the problem itself.
    """
    events: list[dict[str, Any]] = []
    if truncated:
        return events, Tampering("the harness report", f"at most {MAX_EVENT_BYTES} bytes",
                                 "more than that")
    lines = data.split(b"\n")
    last = lines.pop()  # b"" when the data ends with a newline
    seen: set[str] = set()
    round_no = 0
    for number, raw in enumerate(lines, start=1):
        where = f"harness report line {number}"
        try:
            event = validate_event(json.loads(raw.decode("utf-8")), where)
            _sequence(event, events, seen, round_no, where)
        except ProtocolError as exc:
            return events, Tampering(exc.where, exc.expected, exc.actual)
        except (ValueError, RecursionError):
            return events, Tampering(where, "one JSON object", _clip(raw))
        if event["event"] == EventKind.ROUND_DONE:
            round_no = event["round"]
        seen.add(event["event"])
        events.append(event)
    if last and not died:
        return events, Tampering(f"harness report line {len(lines) + 1}",
                                 "a complete line", _clip(last))
    return events, None


def _sequence(event: dict[str, Any], events: list[dict[str, Any]], seen: set[str],
              round_no: int, where: str) -> None:
    kind = event["event"]
    if not events and kind != EventKind.START:
        raise ProtocolError(where, "the start event first", kind)
    if EventKind.DONE in seen:
        raise ProtocolError(where, "nothing after done", kind)
    if kind in UNIQUE_KINDS and kind in seen:
        raise ProtocolError(where, f"one {kind} event", f"a second {kind}")
    if kind == EventKind.ROUND_DONE and event["round"] != round_no + 1:
        raise ProtocolError(where, f"round {round_no + 1}", f"round {event['round']}")
    if kind == EventKind.REPORT and event["round"] != 1:
        raise ProtocolError(where, "reports of the measured round only",
                            f"round {event['round']}")


def _clip(raw: bytes) -> str:
    text = raw[:80].decode("utf-8", errors="replace")
    return repr(text) + ("..." if len(raw) > 80 else "")


# --------------------------------------------------------- one forked run's answer
@dataclass(frozen=True)
class RunReport:
    """What one forked run tells the judge; read with :func:`parse_run_report`.

    Every field comes from a process that ran untrusted code, so the judge
    treats it as a claim: well-formed or tampered, never trusted further
    than its shape (which outcome a run had is cross-checked by the
    schedule: controls must pass, the null mutant must survive).
    """

    collected: tuple[str, ...] = ()
    collect_errors: tuple[dict[str, Any], ...] = ()
    #: Per-phase reports (the measuring run only).
    reports: tuple[dict[str, Any], ...] = ()
    #: First failing nodeid (every run but the measuring run stops there).
    failed: str | None = None
    coverage: dict[str, Any] | None = None
    coverage_error: str | None = None
    #: What the measuring run executed of each measured file, as coverage.py recorded it:
    #: ``lines`` (or ``arcs`` in branch mode). The judge turns it into ``coverage`` (a report
    #: needs the target's text, which no run may hold).
    executed: dict[str, Any] | None = None
    types: tuple[str, ...] = ()
    calls: int | None = None
    denied: tuple[str, ...] = ()
    #: Refused before the test module was imported: the project's or a plugin's doing. Never
    #: part of the answer (test code could forge it): the judge copies it from the RunStart.
    denied_early: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    replaced: tuple[str, ...] = ()
    missing: bool = False
    #: The target's import failed before the test and again once the test module was collected.
    import_error: str | None = None
    #: The machinery failed in the child before test code ran (not a kill); valid only from a
    #: run that sent no :class:`RunStart` (the judge checks).
    error: str | None = None
    exitstatus: int = 0


_REPORT = _shape({}, {
    "collected": _list(_str), "collect_errors": _list(_shape({"nodeid": _str, **_PLACE})),
    "reports": _list(_EVENTS[EventKind.REPORT]), "failed": _optional(_str),
    "coverage": _optional(_dict_of(FILE_COVERAGE)), "coverage_error": _optional(_str),
    "executed": _optional(_dict_of(_shape({}, {"lines": _LINES, "arcs": _list(_pair)}))),
    "types": _list(_str, 16), "calls": _optional(_int), "denied": _list(_str, 1000),
    "reads": _list(_str, 1000), "replaced": _list(_str), "missing": _bool,
    "import_error": _optional(_str), "error": _optional(_str), "exitstatus": _int,
})


class _KeyTwice(ValueError):
    """A JSON object names a key twice: never ours (red team 26 padded an answer that way)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _KeyTwice(key)
        found[key] = value
    return found


def _bounded_json(data: bytes, limit: int, where: str) -> Any:
    """What a run sent on one of its pipes, decoded, or ProtocolError (oversized, not JSON,
    a key named twice)."""
    if len(data) > limit:
        raise ProtocolError(where, f"at most {limit} bytes", f"{len(data)} bytes")
    try:
        return json.loads(data.decode("utf-8"), object_pairs_hook=_unique_keys)
    except _KeyTwice as twice:
        raise ProtocolError(where, "a JSON object naming each key once",
                            f"{str(twice)[:80]!r} twice") from None
    except (ValueError, RecursionError):
        raise ProtocolError(where, "one JSON object", _clip(data)) from None


def split_run_answer(data: bytes, where: str) -> tuple[dict[str, tuple[str, ...]], bytes]:
    """What the run's hooks wrote as they saw it (:data:`READ_RECORD`, :data:`DENIED_RECORD`,
    :data:`REPLACED_RECORD` lines), by the answer field it adds to, and the answer after them.

    Any other line before the answer is tampering: nothing but the hooks write lines there.
    """
    *lines, answer = data.split(b"\n")
    found: dict[bytes, dict[str, None]] = {prefix: {} for prefix in _RECORDS}
    for number, line in enumerate(lines, start=1):
        try:
            prefix = next(p for p in found if line.startswith(p))
            found[prefix][bytes.fromhex(line[len(prefix):].decode("ascii")).decode(
                "utf-8", "replace")] = None
        except (StopIteration, ValueError):
            raise ProtocolError(where, "the run's findings, one per line, then one answer",
                                f"line {number} of {len(line)} bytes is neither") from None
    return {_RECORDS[prefix]: tuple(texts) for prefix, texts in found.items() if texts}, answer


#: Each record's prefix and the answer field it adds to.
_RECORDS: Final = {READ_RECORD: "reads", DENIED_RECORD: "denied", REPLACED_RECORD: "replaced"}


def parse_run_report(data: bytes, where: str) -> RunReport:
    """The run's answer, or ProtocolError (malformed, oversized, unknown fields)."""
    value = _bounded_json(data, MAX_REPORT_BYTES, where)
    _REPORT(value, where)
    fields_: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v
                               for k, v in value.items()}
    return RunReport(**fields_)


# ------------------------------------------- one forked run's "test code starts now"
#: Bound on the start record (it goes through a pipe nobody reads until the run ended).
MAX_START_BYTES: Final = 32 * 1024


@dataclass(frozen=True)
class RunStart:
    """What a run child knew before any test code ran, sent on a pipe closed right after.

    Written by pytest-quest's own code between the fork and the collection of
    the test file, so nothing of the test could have shaped it: only these
    facts may make a run "the environment's fault" (no try spent). Their text
    is the project's (its import, its conftests), never the test's.
    """

    #: The first import of the target module failed (the run retries once collected).
    import_error: str | None = None
    #: What the sandbox refused while the project was imported.
    denied_early: tuple[str, ...] = ()
    #: The target function was not found on the imported module.
    missing: bool = False
    #: The measuring run only: the target's file and the statements of its body as coverage
    #: knew them before the test (coverage worked then).
    #: The answer's coverage must list them, executed or missing: a report without them was
    #: broken by the test (red team 3, finding 01: a free REVIEW, ``coverage-no-data``).
    coverage: tuple[str, tuple[int, ...]] | None = None
    #: Branch mode: the body's branch arcs as coverage knew them before the test, which the
    #: answer must list too, executed or missing (red team 5, finding 03: an answer that left
    #: a missing arc out was full branch coverage).
    branches: tuple[tuple[int, int], ...] = ()
    #: ``time.monotonic()`` as test code began (one clock for the whole machine, so the judge
    #: can read it): how long a run's test code ran sets the pause before the next wave
    #: (:mod:`pytest_quest.gaps`). None from a run that never got to test code.
    clock: float | None = None


#: Statements of the body sent in the start record at most (a subset still proves the point;
#: the judge checks the answer against its own whole list, red team 6, finding 03).
MAX_START_STATEMENTS: Final = 1000
#: Branch arcs of the body sent in the start record at most (branch mode), so the record stays
#: under ``MAX_START_BYTES`` beside the statements; the judge's own list has them all.
MAX_START_BRANCHES: Final = 600

_START = _shape({"import_error": _optional(_str), "denied_early": _list(_str, 20),
                 "missing": _bool},
                {"clock": _number,
                 "coverage": _optional(_shape({"file": _str, "statements": _list(
                     _int, MAX_START_STATEMENTS)}, {"branches": _list(
                         _pair, MAX_START_BRANCHES)}))})


def parse_run_start(data: bytes, where: str) -> RunStart | None:
    """The start record, None when the run never got to test code, or ProtocolError."""
    if not data:
        return None
    value = _bounded_json(data, MAX_START_BYTES, where)
    _START(value, where)
    seen = value.get("coverage")
    coverage = None if seen is None else (seen["file"], tuple(seen["statements"]))
    branches = () if seen is None else tuple(
        (int(a), int(b)) for a, b in seen.get("branches", ()))
    return RunStart(value["import_error"], tuple(value["denied_early"]), value["missing"],
                    coverage, branches, value.get("clock"))
