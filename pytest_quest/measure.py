"""Per-function lines and branches from coverage.py's per-file data.

coverage.py reports a function's region without its nested functions, but a
quest owns its nested functions and lambdas, so we intersect the file's
statements with the quest's body span ourselves. The input is the ``files``
entry of coverage's JSON report (or the same keys built from ``analysis2``).
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

__all__ = ["CTRACE", "SYSMON", "Measured", "coverage_core", "format_branch", "format_lines",
           "measure"]

#: coverage.py's core on ``sys.monitoring`` (PEP 669), its ``[run] core`` value.
SYSMON = "sysmon"
#: coverage.py's C tracer (it falls back to its Python tracer where the C one is missing).
CTRACE = "ctrace"


@dataclass(frozen=True)
class Measured:
    """Coverage of one quest's body by one run."""

    statements: tuple[int, ...]
    executed: tuple[int, ...]
    missing: tuple[int, ...]
    branches: int = 0
    missing_branches: tuple[tuple[int, int], ...] = ()

    @property
    def complete(self) -> bool:
        return not self.missing and not self.missing_branches

    def excusing(self, claimed: Collection[int]) -> Measured:
        """What is missing besides ``claimed`` lines and the branches that leave them.

        The one reading of an unreachable-line claim, shared by the coverage
        rule (which sends every claim to REVIEW) and the mutation stage (which
        then still runs on the covered lines).
        """
        if not claimed:
            return self
        return replace(self, missing=tuple(x for x in self.missing if x not in claimed),
                       missing_branches=tuple(b for b in self.missing_branches
                                              if b[0] not in claimed))

    def to_dict(self) -> dict[str, Any]:
        return {
            "statements": list(self.statements),
            "executed": list(self.executed),
            "missing": list(self.missing),
            "branches": self.branches,
            "missing_branches": [list(b) for b in self.missing_branches],
        }


def measure(entry: Mapping[str, Any] | None, body: Sequence[int], branch: bool = False) -> Measured:
    """Intersect one file's coverage ``entry`` with the quest ``body`` span ``[first, last]``.

    A file coverage never saw (``entry`` is None) counts as wholly missing,
    but then we cannot know its statements: the caller must say so.
    """
    first, last = int(body[0]), int(body[1])

    def inside(line: int) -> bool:
        return first <= line <= last

    if entry is None:
        return Measured((), (), ())
    executed = tuple(sorted(x for x in entry.get("executed_lines", ()) if inside(x)))
    missing = tuple(sorted(x for x in entry.get("missing_lines", ()) if inside(x)))
    statements = tuple(sorted(set(executed) | set(missing)))
    if not branch:
        return Measured(statements, executed, missing)
    taken = [b for b in entry.get("executed_branches", ()) if inside(b[0])]
    lost: tuple[tuple[int, int], ...] = tuple(sorted(
        (int(b[0]), int(b[1])) for b in entry.get("missing_branches", ()) if inside(b[0])))
    return Measured(statements, executed, missing, len(taken) + len(lost), lost)


def format_lines(lines: Sequence[int]) -> str:
    """``[6, 7, 8, 10]`` -> ``"6-8, 10"``: short and exact."""
    parts: list[str] = []
    run: list[int] = []
    for line in sorted(lines):
        if run and line == run[-1] + 1:
            run.append(line)
            continue
        if run:
            parts.append(_run(run))
        run = [line]
    if run:
        parts.append(_run(run))
    return ", ".join(parts)


def _run(run: list[int]) -> str:
    return str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}"


def format_branch(src: int, dst: int) -> str:
    """A branch arc as a reader says it: ``12->14`` or ``12->exit``."""
    return f"{src}->exit" if dst < 0 else f"{src}->{dst}"


def coverage_core(branch: bool, version: Sequence[int] = sys.version_info[:2],
                  contexts: bool = False) -> str | None:
    """The coverage.py core to ask for: ``sysmon`` wherever it measures what we need.

    On Python 3.12+ coverage.py can collect through ``sys.monitoring``, which
    stops reporting a line once it has been seen: a loop costs its first pass
    only, where the C tracer (coverage's default before 3.14) pays on every
    line event (benchmarks/bench_sysmon.py measures it). It measures lines,
    which is all a line-mode quest needs. Before Python 3.14 it cannot measure
    branches: coverage.py then warns and falls back, and the project's
    ``filterwarnings = error`` would turn that warning into a crash, so a
    branch-mode run keeps the default. It records no dynamic contexts
    (coverage.py warns at every context switch, and the data lacks them), so a
    run that needs to know which test ran each line (``contexts``: the
    ``--quest-update`` run, through pytest-cov's ``--cov-context=test``) asks
    for the C tracer by name: from Python 3.14 on, sysmon is coverage.py's
    default. ``None`` leaves coverage.py's default. Nothing else it lacks
    matters here: we use no coverage plugins and no greenlet/eventlet/gevent
    concurrency.
    """
    if contexts:
        return CTRACE
    if tuple(version) < (3, 12) or (branch and tuple(version) < (3, 14)):
        return None
    return SYSMON
