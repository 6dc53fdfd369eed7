"""The in-sandbox harness pieces that can be exercised without a subprocess."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_quest.harness import Emitter, Guard, _outcome, _short_repr


def _guard(tmp_path: Path) -> tuple[Guard, io.StringIO]:
    stream = io.StringIO()
    (tmp_path / "box").mkdir()
    return Guard([str(tmp_path / "box")], Emitter(stream)), stream


def test_emitter_writes_one_json_object_per_line() -> None:
    stream = io.StringIO()
    emit = Emitter(stream)
    emit("start", pid=1)
    emit("done", exitstatus=0, path=Path("/x"))
    lines = [json.loads(x) for x in stream.getvalue().splitlines()]
    assert lines == [{"event": "start", "pid": 1}, {"event": "done", "exitstatus": 0, "path": "/x"}]


def test_guard_allows_reads_and_writes_inside(tmp_path: Path) -> None:
    guard, _ = _guard(tmp_path)
    guard("open", (str(tmp_path / "outside.txt"), "r", os.O_RDONLY))
    guard("open", (str(tmp_path / "box" / "a.txt"), "w", os.O_WRONLY | os.O_CREAT))
    guard("open", (os.devnull, "w", os.O_WRONLY))
    guard("open", (3, "w", os.O_WRONLY))  # an already open descriptor
    guard("os.remove", (str(tmp_path / "box" / "a.txt"),))
    guard("socket.connect", (None, ("127.0.0.1", 8000)))
    guard("socket.connect", (None, ("::1", 8000, 0, 0)))
    guard("socket.connect", (None, "/tmp/app.sock"))
    assert guard.denied == []


@pytest.mark.parametrize(
    ("event", "args"),
    [
        ("open", ("{out}", "w", os.O_WRONLY | os.O_CREAT)),
        ("open", ("{out}", None, os.O_RDWR)),
        ("open", ("{out}", "a", os.O_APPEND)),
        ("os.remove", ("{out}",)),
        ("os.rename", ("{box}", "{out}")),
        ("shutil.rmtree", ("{out}",)),
        ("subprocess.Popen", ("sh", ["sh"], None, None)),
        ("os.system", (b"echo",)),
        ("os.fork", ()),
        ("sys.addaudithook", ()),
        ("socket.connect", (None, ("93.184.216.34", 443))),
        ("socket.sendto", (None, ("10.0.0.1", 53))),
    ],
)
def test_guard_refuses_escapes(tmp_path: Path, event: str, args: tuple[object, ...]) -> None:
    guard, stream = _guard(tmp_path)
    out, box = str(tmp_path / "real_repo.py"), str(tmp_path / "box" / "x")
    filled = tuple(a.format(out=out, box=box) if isinstance(a, str) else a for a in args)
    with pytest.raises(PermissionError, match="pytest-quest sandbox"):
        guard(event, filled)
    assert guard.denied and json.loads(stream.getvalue())["event"] == "denied"


def test_guard_refuses_symlink_tricks(tmp_path: Path) -> None:
    guard, _ = _guard(tmp_path)
    link = tmp_path / "box" / "link"
    link.symlink_to(tmp_path)
    with pytest.raises(PermissionError):
        guard("open", (str(link / "escaped.txt"), "w", os.O_WRONLY | os.O_CREAT))


def test_trusted_lets_pytest_quest_itself_write(tmp_path: Path) -> None:
    guard, _ = _guard(tmp_path)
    with guard.trusted():
        guard("open", (str(tmp_path / "report.json"), "w", os.O_WRONLY))
    with pytest.raises(PermissionError):
        guard("open", (str(tmp_path / "report.json"), "w", os.O_WRONLY))


def test_short_repr_of_reports() -> None:
    crash = SimpleNamespace(message="assert 1 == 2", path="t.py", lineno=4)
    failed = SimpleNamespace(longrepr=SimpleNamespace(reprcrash=crash))
    assert _short_repr(failed) == {"message": "assert 1 == 2", "file": "t.py", "line": 4}
    skipped = SimpleNamespace(longrepr=("t.py", 3, "Skipped: later"))
    assert _short_repr(skipped) == {"message": "Skipped: later", "file": "t.py", "line": 3}
    text = SimpleNamespace(longrepr="E   boom")
    assert _short_repr(text)["message"] == "E   boom"


def test_outcome_of_a_rerun() -> None:
    def rep(failed: bool = False, skipped: bool = False) -> SimpleNamespace:
        return SimpleNamespace(failed=failed, skipped=skipped)

    assert _outcome([rep(), rep(), rep()]) == "passed"
    assert _outcome([rep(), rep(failed=True), rep()]) == "failed"
    assert _outcome([rep(skipped=True)]) == "skipped"
