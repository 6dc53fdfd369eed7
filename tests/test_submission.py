"""The read-only submission and the preparations that fill it, stage by stage."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_quest import safeio
from pytest_quest import submission as submission_module
from pytest_quest.config import load_settings
from pytest_quest.errors import EnvironmentFault
from pytest_quest.quest import Quest
from pytest_quest.sandbox import RunResult, file_sha256, harness_spec
from pytest_quest.submission import Submission, copy_project, parse, run_tests, stray_files

EXAMPLE = Path(__file__).resolve().parent.parent / "example_project"
TEST = "tests/quest/test_hotel_pricing__nightly_rate.py"
QUEST = Quest(id="hotel/pricing.py::nightly_rate", path="hotel/pricing.py",
              qualname="nightly_rate", lines=(4, 16), body=(6, 16))


def make(root: Path, source: bytes = b"def test_x():\n    assert 1\n", **kw: Any) -> Submission:
    settings = load_settings(root)
    kw.setdefault("spec", harness_spec(settings, QUEST, TEST))
    return Submission(settings=settings, quest=QUEST, test_rel=TEST,
                      test_bytes=source, snapshot={}, **kw)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    target = tmp_path / "example_project"
    shutil.copytree(EXAMPLE, target, ignore=shutil.ignore_patterns(".quest", "__pycache__"))
    return target


def test_rules_cannot_write_to_a_submission() -> None:
    sub = make(EXAMPLE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        sub.run = None  # type: ignore[misc]


def test_parse_fills_the_tree_or_the_syntax_error() -> None:
    parsed = parse(make(EXAMPLE))
    assert parsed.tree is not None and parsed.syntax_error is None
    broken = parse(make(EXAMPLE, b"def test_x(:\n"))
    assert broken.tree is None and broken.syntax_error is not None
    assert broken.syntax_error.lineno == 1
    nul = parse(make(EXAMPLE, b"x = 1\x00\n"))
    assert nul.tree is None and nul.syntax_error is not None  # ValueError before 3.12


def test_copy_project_fills_what_the_scope_rule_reads(root: Path) -> None:
    locked = "tests/quest/test_locked.py"
    (root / "tests" / "quest").mkdir(parents=True, exist_ok=True)
    (root / locked).write_text("def test_y():\n    assert 2\n")
    (root / "tests" / "quest" / "conftest.py").write_text("")
    sub = make(root, locked_tests={locked: "0" * 64, "tests/quest/test_gone.py": "1" * 64})
    copied = copy_project(sub)
    assert sub.sandbox is None  # the original is untouched
    assert copied.sandbox is not None and (copied.sandbox.path / TEST).is_file()
    assert copied.working_tree["hotel/pricing.py"] == file_sha256(root / "hotel/pricing.py")
    assert copied.locked_now == {locked: file_sha256(root / locked),
                                 "tests/quest/test_gone.py": None}
    assert copied.stray_files == ("tests/quest/conftest.py",)
    sandbox = copied.sandbox.path
    sub.resources.close()  # the caller's exit stack removes the copy
    assert not sandbox.exists()


def test_stray_files_are_what_could_change_a_run(root: Path) -> None:
    folder = root / "tests" / "quest"
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("helper.py", "test_other.py", "__init__.py", "setup.cfg", "notes.txt"):
        (folder / name).write_text("")
    settings = load_settings(root)
    assert stray_files(settings, TEST, {}) == ("tests/quest/helper.py", "tests/quest/setup.cfg")
    shutil.rmtree(folder)
    assert stray_files(settings, TEST, {}) == ()


def test_a_folder_nested_too_deep_in_the_quest_folder_is_a_stray_not_a_crash(
        root: Path, deep_tree: Callable[[Path], None]) -> None:
    """Red team 2 finding 13's tree, left where agents write: rglob raised RecursionError."""
    folder = root / "tests" / "quest"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "helper.py").write_text("")
    deep_tree(folder)
    deep = "tests/quest/" + "/".join(["d"] * 100)
    try:
        assert stray_files(load_settings(root), TEST, {}) == ("tests/quest/helper.py", deep)
    finally:
        assert safeio.remove_tree(folder / "d") == []  # pytest's own cleanup would recurse


def _run(events: list[dict[str, Any]], output: str = "") -> RunResult:
    return RunResult(events, 0, False, 0.5, output)


def test_run_tests_fills_the_run_and_the_measurement(root: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    cov = {"hotel/pricing.py": {"executed_lines": [6, 7], "missing_lines": [8]}}
    seen: list[dict[str, Any]] = []

    def fake(box: object, settings: object, spec: dict[str, Any], *a: object, **k: object
             ) -> RunResult:
        seen.append(spec)
        return _run([{"event": "start"}, {"event": "coverage", "files": cov}])

    monkeypatch.setattr(submission_module, "run_sandbox", fake)
    spec = harness_spec(load_settings(root), QUEST, TEST)
    copied = copy_project(make(root, spec=spec))
    ran = run_tests(copied)
    copied.resources.close()
    assert seen == [spec] and ran.run is not None
    assert ran.measured is not None and ran.measured.missing == (8,)
    assert run_tests(make(root)).run is None  # no sandbox (scope never ran): nothing to run


@pytest.mark.parametrize(("events", "message"), [
    ([{"event": "start"}, {"event": "env_error", "message": "No module named x"}],
     "does not import"),
    ([], "did not start"),
])
def test_an_environment_fault_spends_no_try(root: Path, monkeypatch: pytest.MonkeyPatch,
                                            events: list[dict[str, Any]], message: str) -> None:
    monkeypatch.setattr(submission_module, "run_sandbox",
                        lambda *a, **k: _run(events, "Traceback\nboom"))
    copied = copy_project(make(root))
    try:
        with pytest.raises(EnvironmentFault, match=message):
            run_tests(copied)
    finally:
        copied.resources.close()
