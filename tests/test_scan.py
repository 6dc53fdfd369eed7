"""The scan service: one quest per function, rescans that keep every PASS, the baseline lock."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_quest import ratchet
from pytest_quest.config import load_settings
from pytest_quest.ledger import Ledger, transaction
from pytest_quest.records import Evidence, EvidenceSource
from pytest_quest.scan import find_functions, scan
from pytest_quest.states import State

NOW = "2026-03-01T12:00:00Z"


def _project(root: Path, body: str) -> Path:
    (root / "pyproject.toml").write_text('[tool.pytest-quest]\nsources = ["pkg"]\n')
    (root / "pkg").mkdir(exist_ok=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "mod.py").write_text(body)
    return root


TWO = "def keep(x):\n    return x + 1\n\n\ndef gone(x):\n    return x - 1\n"


def test_find_functions_reports_files_and_parse_errors(tmp_path: Path) -> None:
    _project(tmp_path, TWO)
    (tmp_path / "pkg" / "broken.py").write_text("def f(:\n")
    found, errors, files = find_functions(load_settings(tmp_path))
    assert [f.id for f in found] == ["pkg/mod.py::keep", "pkg/mod.py::gone"]
    assert [e.path for e in errors] == ["pkg/broken.py"] and files == 3


def test_rescan_keeps_pass_adds_new_retires_and_revives(tmp_path: Path) -> None:
    root = _project(tmp_path, TWO)
    report, ledger = scan(load_settings(root), baseline=False)
    assert report.added == ["pkg/mod.py::keep", "pkg/mod.py::gone"] and ledger.remaining == 2
    with transaction(Ledger.for_root(root).path) as ledger:
        keep = ledger.get("pkg/mod.py::keep")
        ledger.put(ratchet.lock_pass(keep, Evidence.suite([2], keep.source_hash, NOW), NOW))

    (root / "pkg" / "mod.py").write_text("def keep(x):\n    return x + 2\n\n\ndef new(x):\n"
                                         "    return x\n")
    report, ledger = scan(load_settings(root), baseline=False)
    assert (report.added, report.retired) == (["pkg/mod.py::new"], ["pkg/mod.py::gone"])
    keep = ledger.get("pkg/mod.py::keep")
    assert keep.state is State.PASS and keep.evidence is not None
    assert keep.evidence.source_hash != keep.source_hash  # what --quest-check reports
    assert ledger.get("pkg/mod.py::gone").state is State.RETIRED

    (root / "pkg" / "mod.py").write_text(TWO)
    report, ledger = scan(load_settings(root), baseline=False)
    assert report.revived == ["pkg/mod.py::gone"]
    assert ledger.get("pkg/mod.py::gone").state is State.TODO
    assert [s["added"] for s in ledger.scans] == [2, 1, 1]


@pytest.mark.slow
def test_baseline_locks_what_the_suite_covers_with_the_functions_hash(tmp_path: Path) -> None:
    root = _project(tmp_path, TWO)
    (root / "tests").mkdir()
    (root / "tests" / "test_mod.py").write_text(
        "from pkg.mod import keep\n\ndef test_keep():\n    assert keep(1) == 2\n")
    report, ledger = scan(load_settings(root))
    assert report.locked == ["pkg/mod.py::keep"] and report.baseline["tests_passed"] == 1
    keep = ledger.get("pkg/mod.py::keep")
    assert keep.evidence is not None and keep.evidence.source == EvidenceSource.BASELINE
    assert keep.evidence.source_hash == keep.source_hash and keep.evidence.covered_lines == (2,)
    assert ledger.get("pkg/mod.py::gone").state is State.TODO


def test_a_failed_coverage_report_is_named_not_silent(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A suite that passed but whose coverage report failed locks nothing, and says why."""
    from pytest_quest import scan as scan_module
    from pytest_quest.sandbox import RunResult

    root = _project(tmp_path, TWO)
    events = [{"event": "start"},
              {"event": "report", "nodeid": "tests/test_mod.py::test_keep", "when": "call",
               "outcome": "passed"},
              {"event": "coverage", "files": {},
               "error": "Couldn't parse 'pkg/fast.pyx' as Python source"},
              {"event": "done", "exitstatus": 0}]
    monkeypatch.setattr(scan_module, "run_suite",
                        lambda *a, **k: RunResult(events, 0, False, 0.1))
    report, ledger = scan(load_settings(root))
    assert report.locked == [] and ledger.remaining == 2
    assert report.baseline["tests_passed"] == 1
    assert "pkg/fast.pyx" in report.baseline["note"]
    assert report.baseline["note"].endswith("nothing was locked")
