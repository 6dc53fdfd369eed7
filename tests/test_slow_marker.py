"""The ``slow`` marker means one thing everywhere: the test starts a real process."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tests import conftest

REPO = Path(__file__).resolve().parent.parent


def test_the_guard_refuses_a_process_in_a_test_not_marked_slow(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(conftest._guarded, "test", "tests/test_x.py::test_fast")
    conftest._refuse_processes_in_fast_tests("open", ())  # not a process: allowed
    for event in sorted(conftest._SPAWN_EVENTS):
        monkeypatch.setitem(conftest._guarded, "test", "tests/test_x.py::test_fast")
        with pytest.raises(RuntimeError, match=r"test_fast starts a process .* not marked slow"):
            conftest._refuse_processes_in_fast_tests(event, ())
    monkeypatch.setitem(conftest._guarded, "test", None)  # a slow test: nothing guarded
    conftest._refuse_processes_in_fast_tests("subprocess.Popen", ())


def test_the_marker_is_declared_with_the_meaning_the_guard_enforces() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    markers = config["tool"]["pytest"]["ini_options"]["markers"]
    assert markers == ["slow: starts real processes (the sandbox harness, pytest, git, pip)"]
    assert '``slow`` means "starts real processes"' in (conftest.__doc__ or "")
