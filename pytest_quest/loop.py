"""``pytest-quest loop``: drive any agent command through the quests, one attempt at a time.

Each worker (``-j N`` of them) is a named agent, ``NAME/1`` .. ``NAME/N``. For
one attempt it takes a lease (:func:`~pytest_quest.handout.hand_out`), writes
the prompt to a file, runs the agent command, and judges the test file the
command wrote with the same :func:`~pytest_quest.submit.submit` as the CLI.
A FAIL keeps the lease and goes again with the new facts; PASS, REVIEW and
DONE free it and take the next quest.

Why it can be killed at any moment:

- The ledger is the only memory. Nothing is judged until ``submit`` records
  it under the ledger lock, and the loop decides from the ledger, not from
  what it remembers.
- Workers keep their names across runs, and a name gets its live lease back
  first, so a restarted loop resumes the very quests it held.
- A test file whose bytes were already judged for that quest (the attempts
  log holds every judged sha256) is never submitted again; when the agent
  submitted it itself, its verdict is taken, not repeated.
- An agent that exits non-zero, times out or writes no new test spends no
  try: the attempt is logged (``kind: agent``), the lease is freed and this
  run skips that quest, so the pool goes on.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_quest import confine
from pytest_quest.errors import QuestError, QuestLocked, UsageError
from pytest_quest.handout import Handout, hand_out
from pytest_quest.ledger import Ledger, append_attempt, now_iso, read_attempts, read_document
from pytest_quest.pool import Leases, Shard, release, settle
from pytest_quest.records import Attempt, AttemptKind

__all__ = ["PLACEHOLDERS", "Loop", "LoopOptions", "agent_command"]

#: ``{name}`` in the agent command -> what it becomes (shell-quoted).
PLACEHOLDERS = ("quest", "test_path", "prompt_file", "root", "path", "qualname", "tries")

_RUNS = Path("runs") / "loop"


@dataclass(frozen=True)
class LoopOptions:
    """What ``pytest-quest loop`` was asked to do."""

    root: Path
    command: str
    jobs: int = 1
    name: str = "loop"
    shard: Shard | None = None
    max_quests: int | None = None
    max_seconds: float | None = None
    agent_timeout: float = 900.0
    #: Stop after this many agent failures in a row (a broken command fails every quest).
    max_agent_failures: int = 3


def agent_command(template: str, values: dict[str, str]) -> str:
    """``template`` with each ``{placeholder}`` replaced by its shell-quoted value.

    Only the known placeholders are replaced, so shell syntax such as
    ``${QUEST_ID}`` or ``awk '{print}'`` passes through untouched.
    """
    out = template
    for key in PLACEHOLDERS:
        out = out.replace("{" + key + "}", shlex.quote(values[key]))
    return out


@dataclass
class _Tally:
    attempts: int = 0
    verdicts: dict[str, int] = field(default_factory=lambda: {"PASS": 0, "FAIL": 0, "REVIEW": 0})
    done: int = 0
    agent_failures: int = 0
    quests: int = 0


class Loop:
    """The driver; :meth:`run` blocks until no quest is left or a limit is reached."""

    def __init__(self, options: LoopOptions, emit: Callable[[dict[str, Any]], None]) -> None:
        self.options = options
        #: Called with each event, always from the thread that called :meth:`run`.
        self.on_event = emit
        self._events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.root = options.root
        self.ledger_dir = Ledger.for_root(options.root).directory
        self.stop_reason: str | None = None
        self.tally = _Tally()
        #: slot -> what it is doing now (for the live display).
        self.current: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._failures_in_a_row = 0
        self._skipped: set[str] = set()
        self._processes: dict[str, subprocess.Popen[bytes]] = {}
        self._started = time.monotonic()

    # ---------------------------------------------------------------- control
    def stop(self, reason: str) -> None:
        """Start no new attempt; kill running agents (their quests go back to the pool)."""
        with self._lock:
            if self.stop_reason is None:
                self.stop_reason = reason
            processes = list(self._processes.values())
        self._stopping.set()
        for process in processes:
            _kill(process)

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    def snapshot(self) -> list[tuple[str, dict[str, Any]]]:
        """What each agent is doing now, for a display (a copy: workers keep changing it)."""
        with self._lock:
            return sorted((agent, dict(entry)) for agent, entry in self.current.items())

    def elapsed(self) -> float:
        return time.monotonic() - self._started

    def emit(self, event: dict[str, Any]) -> None:
        """Queue an event; workers never print, the thread in :meth:`run` does."""
        self._events.put(event)

    def run(self, tick: Callable[[], None] | None = None) -> str:
        """Run the workers to the end and return why it ended.

        ``tick`` is called a few times a second (the CLI redraws there). The
        first Ctrl-C stops the loop gently: agents are killed, their quests go
        back to the pool, submissions already running are judged and recorded.
        A second Ctrl-C abandons those too (nothing half-recorded: the ledger
        is written atomically).
        """
        if self.options.jobs < 1:
            raise UsageError("-j takes a number of agents >= 1")
        read_document(Ledger.for_root(self.root).path)  # no ledger, no loop: say so once
        # The kernel probe forks (once per process): here, before any worker thread exists.
        # A fork while another thread holds the ledger's lock in mid-change is refused by
        # filelock (RuntimeError), and a forked child would inherit that half-changed state.
        confine.detect()
        with _single_loop(self.ledger_dir, self.options.name):
            self._free_extra_workers()
            self.emit({"event": "start", "agents": self.options.jobs, "name": self.options.name,
                       "shard": str(self.options.shard) if self.options.shard else None})
            workers = [
                threading.Thread(target=self._work, args=(f"{self.options.name}/{i}",),
                                 name=f"quest-loop-{i}", daemon=True)
                for i in range(1, self.options.jobs + 1)
            ]
            for worker in workers:
                worker.start()
            self._wait_for(workers, tick)
            reason = self.stop_reason or "no quest left"
            counts = Ledger.load(Ledger.for_root(self.root).path).counts()
            self.emit({"event": "end", "reason": reason, "counts": counts,
                       "remaining": counts["TODO"], "seconds": round(self.elapsed(), 1),
                       "skipped": sorted(self._skipped), **self.summary()})
            self._drain()
        return reason

    def _free_extra_workers(self) -> None:
        """Free the leases of workers this run will not start (a rerun with a smaller -j).

        Nobody else can be using those names: this process holds the loop's lock.
        """
        prefix = f"{self.options.name}/"
        with Leases(self.ledger_dir).edit() as table:
            for quest_id, lease in list(table.items()):
                agent = str(lease.get("agent", ""))
                index = agent[len(prefix):]
                if agent.startswith(prefix) and index.isdigit() and int(index) > self.options.jobs:
                    del table[quest_id]

    def _wait_for(self, workers: list[threading.Thread], tick: Callable[[], None] | None) -> None:
        interrupted = False
        while any(w.is_alive() for w in workers):
            try:
                time.sleep(0.2)
                limit = self.options.max_seconds
                if limit is not None and self.elapsed() >= limit and not self.stopping:
                    self.stop("max-seconds")
                self._drain()
                if tick is not None:
                    tick()
            except KeyboardInterrupt:
                if interrupted:
                    raise
                interrupted = True
                self.stop("interrupted")
                self.emit({"event": "stopping", "reason": "interrupted",
                           "judging": sum(1 for _, c in self.snapshot()
                                          if c.get("phase") == "judging")})

    def _drain(self) -> None:
        while True:
            try:
                event = self._events.get_nowait()
            except queue.Empty:
                return
            self.on_event(event)

    def summary(self) -> dict[str, int]:
        t = self.tally
        return {"attempts": t.attempts, "quests": t.quests, "pass": t.verdicts["PASS"],
                "fail": t.verdicts["FAIL"], "review": t.verdicts["REVIEW"], "done": t.done,
                "agent_failures": t.agent_failures}

    # ---------------------------------------------------------------- workers
    def _work(self, agent: str) -> None:
        holding: str | None = None
        try:
            while not self.stopping:
                limit = self.options.max_seconds
                if limit is not None and self.elapsed() >= limit:
                    self.stop("max-seconds")
                    break
                with self._lock:
                    skipped = set(self._skipped)
                out = hand_out(self.root, agent, self.options.shard, skipped)
                if out.brief is None:
                    break
                quest_id = out.brief.quest.id
                if quest_id != holding and not self._count_quest():
                    release(self.ledger_dir, quest_id, agent)
                    break
                holding = quest_id
                self._attempt(agent, out)
        except QuestError as exc:  # a broken ledger or settings: every worker would hit it
            self.emit({"event": "error", "agent": agent, "kind": type(exc).__name__,
                       "error": str(exc)})
            self.stop("error")
        except Exception as exc:  # a fault of ours: said and stopped on, never a silent worker
            where = traceback.extract_tb(exc.__traceback__)[-1]
            self.emit({"event": "error", "agent": agent, "kind": type(exc).__name__,
                       "error": f"{exc} (at {Path(where.filename).name}:{where.lineno})"})
            self.stop("error")
        finally:
            with self._lock:
                self.current.pop(agent, None)
            if holding is not None and self.stopping:
                release(self.ledger_dir, holding, agent)

    def _count_quest(self) -> bool:
        """Take one more quest unless ``--max-quests`` is reached."""
        with self._lock:
            limit = self.options.max_quests
            if limit is not None and self.tally.quests >= limit:
                if self.stop_reason is None:
                    self.stop_reason = "max-quests"
                return False
            self.tally.quests += 1
            return True

    def _attempt(self, agent: str, out: Handout) -> None:
        assert out.brief is not None
        item = out.brief
        quest = item.quest
        test_file = self.root / item.test_path
        prompt_file = self._write_prompt(agent, item.text())
        judged_before = _judged(self.root, quest.id)
        self._show(agent, quest=quest.id, tries=quest.tries, max_tries=item.max_tries,
                   phase="agent")
        self.emit({"event": "attempt", "agent": agent, "quest": quest.id, "tries": quest.tries,
                   "max_tries": item.max_tries, "test_path": item.test_path,
                   "prompt_file": str(prompt_file)})
        values = {"quest": quest.id, "test_path": item.test_path,
                  "prompt_file": str(prompt_file), "root": str(self.root), "path": quest.path,
                  "qualname": quest.qualname, "tries": str(quest.tries)}
        started = time.monotonic()
        outcome, code = self._run_agent(agent, values, out.settings.lease_seconds)
        seconds = round(time.monotonic() - started, 2)
        if outcome == "ok":
            outcome = _written(test_file, judged_before, _judged(self.root, quest.id))
        if outcome == "submitted":
            self._adopt(agent, quest.id, seconds, out.settings.lease_seconds)
            return
        if outcome != "ok":
            if self.stopping and outcome in ("killed", "timeout"):
                return  # stopped by us: not the agent's failure, nothing to record
            self._agent_failed(agent, quest.id, outcome, code, seconds)
            return
        self.emit({"event": "agent", "agent": agent, "quest": quest.id, "outcome": "ok",
                   "seconds": seconds})
        with self._lock:
            self._failures_in_a_row = 0
        self._submit(agent, quest.id, test_file, out)

    def _write_prompt(self, agent: str, text: str) -> Path:
        folder = self.ledger_dir / _RUNS
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{_slug(agent)}.prompt.md"
        note = ("\n\nYou run inside `pytest-quest loop`: write the test file and exit; the loop "
                "submits it for you and calls you again with the facts if it fails.\n")
        path.write_text(text + note, encoding="utf-8")
        return path

    def _run_agent(self, agent: str, values: dict[str, str],
                   lease_seconds: int) -> tuple[str, int | None]:
        """Run the agent command; ``("ok", 0)``, ``("exit", code)``, ``("timeout", None)``."""
        env = dict(os.environ, QUEST_ID=values["quest"], QUEST_TEST_PATH=values["test_path"],
                   QUEST_PROMPT_FILE=values["prompt_file"], QUEST_ROOT=values["root"],
                   QUEST_SOURCE_PATH=values["path"], QUEST_QUALNAME=values["qualname"],
                   QUEST_TRIES=values["tries"], QUEST_AGENT=agent)
        log_path = self.ledger_dir / _RUNS / f"{_slug(agent)}.log"
        command = agent_command(self.options.command, values)
        with open(log_path, "ab") as log:
            log.write(f"\n=== {now_iso()} {values['quest']}: {command}\n".encode())
            log.flush()
            with self._lock:
                if self.stopping:
                    return "killed", None
                process = subprocess.Popen(
                    command, shell=True, cwd=self.root, env=env, stdin=subprocess.DEVNULL,
                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                )
                self._processes[agent] = process
            try:
                return self._wait(agent, process, values["quest"], lease_seconds)
            finally:
                with self._lock:
                    self._processes.pop(agent, None)

    def _wait(self, agent: str, process: subprocess.Popen[bytes], quest_id: str,
              lease_seconds: int) -> tuple[str, int | None]:
        deadline = time.monotonic() + self.options.agent_timeout
        renew_every = max(1.0, lease_seconds / 3)
        renewed = time.monotonic()
        while True:
            try:
                code = process.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                now = time.monotonic()
                if now >= deadline:
                    _kill(process)
                    return "timeout", None
                if now - renewed >= renew_every:  # a slow agent keeps its quest
                    settle(self.ledger_dir, quest_id, agent, "TODO", lease_seconds)
                    renewed = now
                continue
            if self.stopping and code != 0:
                return "killed", code
            return ("ok", 0) if code == 0 else ("exit", code)

    def _agent_failed(self, agent: str, quest_id: str, outcome: str, code: int | None,
                      seconds: float, error: str | None = None) -> None:
        append_attempt(Ledger.for_root(self.root),
                       Attempt.agent_failed(quest_id, now_iso(), agent, outcome, code, seconds,
                                            error))
        release(self.ledger_dir, quest_id, agent)
        with self._lock:
            self._skipped.add(quest_id)
            self.tally.agent_failures += 1
            self._failures_in_a_row += 1
            too_many = self._failures_in_a_row >= self.options.max_agent_failures
        self.emit({"event": "agent", "agent": agent, "quest": quest_id, "outcome": outcome,
                   "exit_code": code, "seconds": seconds, "error": error,
                   "spent_try": False})
        if too_many:
            self.stop("agent-failures")

    def _submit(self, agent: str, quest_id: str, test_file: Path, out: Handout) -> None:
        from pytest_quest.submit import submit

        self._show(agent, phase="judging")
        settings = out.settings
        started = time.monotonic()
        try:
            result = submit(settings, quest_id, test_file, (), agent)
        except QuestLocked:
            release(self.ledger_dir, quest_id, agent)
            return  # another agent finished it meanwhile: nothing of ours was judged
        except QuestError as exc:  # an environment fault or a bad file: spends no try
            self._agent_failed(agent, quest_id, "submit-error", None,
                               round(time.monotonic() - started, 2),
                               f"{type(exc).__name__}: {exc}")
            return
        state = result.quest.state.value
        settle(self.ledger_dir, quest_id, agent, state, settings.lease_seconds)
        self._count_verdict(result.verdict.outcome.value, state)
        self.emit({"event": "verdict", "agent": agent,
                   **result.to_dict(settings.max_tries)})

    def _adopt(self, agent: str, quest_id: str, seconds: float, lease_seconds: int) -> None:
        """The agent ran ``submit`` itself: take that verdict instead of judging again."""
        record = [r for r in read_attempts(Ledger.for_root(self.root), quest_id)
                  if r.kind == AttemptKind.SUBMIT][-1]
        state, verdict = str(record.state), str(record.verdict)
        settle(self.ledger_dir, quest_id, agent, state, lease_seconds)
        with self._lock:
            self._failures_in_a_row = 0
        self._count_verdict(verdict, state)
        self.emit({"event": "agent", "agent": agent, "quest": quest_id, "outcome": "submitted",
                   "seconds": seconds})
        self.emit({"event": "verdict", "agent": agent, "quest": quest_id,
                   "verdict": verdict, "state": state, "tries": record.tries,
                   "facts": [f.to_dict() for f in record.facts], "test_path": record.test,
                   "by_agent": True})

    def _count_verdict(self, verdict: str, state: str) -> None:
        with self._lock:
            self.tally.attempts += 1
            self.tally.verdicts[verdict] = self.tally.verdicts.get(verdict, 0) + 1
            if state == "DONE":
                self.tally.done += 1

    def _show(self, agent: str, **changes: Any) -> None:
        with self._lock:
            entry = self.current.setdefault(agent, {})
            entry.update(changes, since=time.monotonic())


def _judged(root: Path, quest_id: str) -> list[str]:
    """sha256 of every test file judged for ``quest_id``, oldest first."""
    return [r.sha256 or "" for r in read_attempts(Ledger.for_root(root), quest_id)
            if r.kind == AttemptKind.SUBMIT]


def _written(test_file: Path, before: list[str], after: list[str]) -> str:
    """``ok`` for a new test to judge; ``submitted`` when the agent judged it itself."""
    from pytest_quest.sandbox import file_sha256

    if not test_file.is_file():
        return "no-test"
    digest = file_sha256(test_file)
    if len(after) > len(before) and after[-1] == digest:
        return "submitted"
    return "unchanged" if digest in after else "ok"


def _slug(agent: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in agent)


def _kill(process: subprocess.Popen[bytes]) -> None:
    """End the agent and everything it started (it runs in its own session)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=3)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)


@contextlib.contextmanager
def _single_loop(directory: Path, name: str) -> Iterator[None]:
    """One running loop per name and project: two would share agent names and leases."""
    import fcntl

    folder = directory / _RUNS
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / f"{_slug(name)}.lock", os.O_RDWR | os.O_CREAT, 0o666)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UsageError(
                f"a loop named {name!r} is already running in this project: "
                "give this one another --name"
            ) from None
        yield
    finally:
        os.close(fd)
