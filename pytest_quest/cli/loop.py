"""``pytest-quest loop --agent CMD``: run an agent command quest after quest until none is left."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import click

from pytest_quest.cli.options import json_option, root_option
from pytest_quest.cli.terminal import Terminal

__all__ = ["command"]

#: Exit codes: 0 the pool is empty or a limit was reached, 1 the agent kept failing, 130 Ctrl-C.
_EXIT = {"agent-failures": 1, "error": 2, "interrupted": 130}
_STYLE = {"PASS": "pass", "FAIL": "fail", "REVIEW": "review"}


@click.command("loop")
@click.option("--agent", "agent_cmd", required=True, metavar="CMD",
              help="Shell command run once per attempt. Placeholders {quest} {test_path} "
                   "{prompt_file} {root} {path} {qualname} {tries}; env QUEST_ID, "
                   "QUEST_TEST_PATH, QUEST_PROMPT_FILE.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Agents working in parallel, each on its own quest.")
@click.option("--shard", default=None, metavar="K/N", help="Only quests of shard K of N.")
@click.option("--max-quests", type=click.IntRange(min=1), default=None,
              help="Take at most this many quests (each is carried to its end).")
@click.option("--max-seconds", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Stop after this long: running agents are stopped, their quests freed.")
@click.option("--agent-timeout", type=click.FloatRange(min=0, min_open=True), default=900.0,
              show_default=True, help="Seconds one agent run may take; longer spends no try.")
@click.option("--max-agent-failures", type=click.IntRange(min=1), default=3, show_default=True,
              help="Stop after this many agent failures in a row (a broken command).")
@click.option("--name", default="loop", show_default=True,
              help="Agents are NAME/1..NAME/N; a rerun with the same name resumes their quests.")
@root_option
@json_option
def command(agent_cmd: str, jobs: int, shard: str | None, max_quests: int | None,
            max_seconds: float | None, agent_timeout: float, max_agent_failures: int,
            name: str, root: Path | None, as_json: bool) -> None:
    """Lease a quest, run CMD to write its test, submit it, repeat until no quest is left.

    An agent that exits non-zero, times out or writes no new test spends no
    try: it is logged and the quest goes back to the pool. Kill the loop at
    any moment and run it again: nothing is lost or judged twice.
    """
    from pytest_quest.config import find_root
    from pytest_quest.loop import Loop, LoopOptions
    from pytest_quest.pool import Shard

    options = LoopOptions(
        root=find_root(root), command=agent_cmd, jobs=jobs, name=name,
        shard=Shard.parse(shard) if shard else None, max_quests=max_quests,
        max_seconds=max_seconds, agent_timeout=agent_timeout,
        max_agent_failures=max_agent_failures,
    )
    term = Terminal()
    if as_json:
        loop = Loop(options, _print_json)
        reason = _run(loop, None)
    else:
        view = _View(term)
        loop = Loop(options, view.event)
        view.loop = loop
        with term.live() as update:
            view.update = update
            reason = _run(loop, view.draw if update else None)
    raise SystemExit(_EXIT.get(reason, 0))


def _run(loop: Any, tick: Any) -> str:
    try:
        return str(loop.run(tick))
    except KeyboardInterrupt:  # the second Ctrl-C: abandon the running submissions
        return "interrupted"


def _print_json(event: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(event, sort_keys=True, ensure_ascii=False) + "\n")
    sys.stdout.flush()


class _View:
    """The human view: a live block on a terminal, one line per event in a log."""

    def __init__(self, term: Terminal) -> None:
        self.term = term
        self.loop: Any = None
        self.update: Any = None

    def event(self, event: dict[str, Any]) -> None:
        kind = event["event"]
        esc = self.term.escape
        if kind == "verdict":
            verdict, state = event["verdict"], event["state"]
            style = _STYLE.get(verdict, "bold")
            tail = f" -> {state}" if state not in ("TODO", verdict) else ""
            fact = event["facts"][0] if event.get("facts") else None
            why = f"  [muted]{esc(fact['rule'])}: {esc(fact['where'])}[/muted]" if fact else ""
            self._line(f"[{style}]{verdict}[/{style}] {esc(event['quest'])}{tail} "
                       f"(tries {event['tries']}){why}")
        elif kind == "agent" and event["outcome"] not in ("ok", "submitted"):
            code = f" {event['exit_code']}" if event.get("exit_code") is not None else ""
            extra = f": {esc(event['error'])}" if event.get("error") else ""
            self._line(f"[review]agent {esc(event['outcome'])}{code}[/review] "
                       f"{esc(event['quest'])} ({event['seconds']} s, no try spent){extra}")
        elif kind == "error":
            self._line(f"[fail]error[/fail] {esc(event['error'])}")
        elif kind == "stopping":
            self._line("[muted]stopping: agents stopped, running submissions finish "
                       "(Ctrl-C again to abandon them)[/muted]")
        elif kind == "end":
            counts = event["counts"]
            self._line(
                f"[bold]loop ended[/bold] ({event['reason']}) after {event['seconds']} s: "
                f"{event['attempts']} attempts, [pass]PASS {event['pass']}[/pass] "
                f"[fail]FAIL {event['fail']}[/fail] [review]REVIEW {event['review']}[/review] "
                f"[done]DONE {event['done']}[/done], {event['agent_failures']} agent failures; "
                f"{counts['TODO']} quests remain")
            if event["skipped"]:
                self._line(f"[muted]{len(event['skipped'])} left alone after an agent failure "
                           "in this run: run the loop again to retry them[/muted]")
        elif kind == "attempt" and self.update is None:
            self.term.info(f"{event['agent']}: {event['quest']} "
                           f"(tries {event['tries']}/{event['max_tries']})")

    def _line(self, markup: str) -> None:
        self.term.print(markup, err=True)

    def draw(self) -> None:
        """Redraw the live block: totals, then what each agent is doing."""
        loop = self.loop
        s = loop.summary()
        lines = [
            f"[bold]{s['quests']}[/bold] quests taken, {s['attempts']} judged: "
            f"[pass]PASS {s['pass']}[/pass]  [fail]FAIL {s['fail']}[/fail]  "
            f"[review]REVIEW {s['review']}[/review]  [done]DONE {s['done']}[/done]  "
            f"agent failures {s['agent_failures']}   [muted]{loop.elapsed():.0f} s[/muted]"
        ]
        now = time.monotonic()
        for agent, entry in loop.snapshot():
            if "quest" not in entry:
                continue
            lines.append(
                f"  [muted]{self.term.escape(agent)}[/muted]  {self.term.escape(entry['quest'])}"
                f"  try {entry['tries'] + 1}/{entry['max_tries']}  {entry.get('phase', '')} "
                f"{now - entry['since']:.0f} s")
        self.update("\n".join(lines))
