"""``pytest-quest export``: JSON Lines, CSV, HTML; never over a project file; fast at 10,000."""

from __future__ import annotations

import csv
import io
import json
import time
from pathlib import Path

import pytest

from pytest_quest.export import CSV_COLUMNS, check_output, dumps, is_export
from pytest_quest.ledger import Ledger
from tests.test_cli_status import build_ledger, invoke, status_json, time_budget


def test_jsonl_is_the_default_one_quest_per_line(tmp_path: Path) -> None:
    ledger = build_ledger(tmp_path, 50)
    result = invoke(tmp_path, "export")
    assert result.exit_code == 0
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["id"] for r in rows] == ledger.ordered_ids()
    passed = next(r for r in rows if r["state"] == "PASS")
    assert passed["evidence"]["mutation"]["score"] == 0.8 and passed["test"]
    assert passed["coverage"] == "full (3 lines)"
    assert {r["state"] for r in rows} == {"TODO", "PASS", "REVIEW", "DONE", "RETIRED"}


def test_csv_has_a_header_and_one_row_per_quest(tmp_path: Path) -> None:
    ledger = build_ledger(tmp_path, 50)
    out = invoke(tmp_path, "export", "--format", "csv").stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [r["id"] for r in rows] == ledger.ordered_ids()
    todo = next(r for r in rows if r["facts"])
    assert "[coverage-lines]" in todo["facts"] and todo["coverage"] == "missing 1 line"
    passed = next(r for r in rows if r["state"] == "PASS")
    assert passed["covered_lines"] and passed["mutation"].startswith("score 0.8")


def test_csv_defuses_spreadsheet_formulas(tmp_path: Path) -> None:
    build_ledger(tmp_path, 10)
    ledger = Ledger.load(Ledger.for_root(tmp_path).path)
    ledger.put(ledger.get("pkg/mod_0000.py::func_9").with_(
        decision={"action": "close", "by": "=HYPERLINK(\"x\")", "note": "+1", "time": "t"}))
    ledger.save()
    rows = list(csv.DictReader(io.StringIO(invoke(tmp_path, "export", "--format", "csv").stdout)))
    row = next(r for r in rows if r["id"] == "pkg/mod_0000.py::func_9")
    assert row["decision_by"].startswith("'=") and row["decision_note"] == "'+1"


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "html"])
def test_output_file(tmp_path: Path, fmt: str) -> None:
    build_ledger(tmp_path, 20)
    target = tmp_path / "out" / f"report.{fmt}"
    result = invoke(tmp_path, "export", "--format", fmt, "-o", str(target))
    assert result.exit_code == 0 and result.stdout == ""
    assert "wrote 20 quests" in result.stderr
    assert target.read_text() == invoke(tmp_path, "export", "--format", fmt).stdout or fmt == "html"


def test_empty_ledger_exports(tmp_path: Path) -> None:
    Ledger.for_root(tmp_path).save()
    assert invoke(tmp_path, "export").stdout == ""
    assert invoke(tmp_path, "export", "--format", "csv").stdout.strip() == ",".join(CSV_COLUMNS)
    html = invoke(tmp_path, "export", "--format", "html").stdout
    assert "No quests yet" in html and 'data-count="total">0<' in html


@pytest.mark.parametrize("rel", [
    "pkg/new_module.py",  # any .py, even one that does not exist yet
    "pkg/mod_0000.py",  # a source in the snapshot
    "pyproject.toml",  # a protected config (added to the snapshot below)
    ".quest/ledger.json",
    ".quest/attempts.jsonl",
    "tests/quest/test_6.py",  # a locked quest test
])
def test_refuses_to_overwrite_protected_files(tmp_path: Path, rel: str) -> None:
    build_ledger(tmp_path, 10)
    ledger = Ledger.load(Ledger.for_root(tmp_path).path)
    ledger.snapshot["pyproject.toml"] = "00" * 32
    ledger.save()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    target = tmp_path / rel
    before = target.read_bytes() if target.exists() else None
    result = invoke(tmp_path, "export", "--format", "csv", "-o", str(target))
    assert result.exit_code == 2, result.stdout
    assert "refusing" in result.stderr
    assert (target.read_bytes() if target.exists() else None) == before


def test_refuses_a_symlink_onto_a_source(tmp_path: Path) -> None:
    build_ledger(tmp_path, 10)
    link = tmp_path / "report.csv"
    link.symlink_to(tmp_path / "pkg" / "mod_0000.py")
    result = invoke(tmp_path, "export", "--format", "csv", "-o", str(link))
    assert result.exit_code == 2
    assert (tmp_path / "pkg" / "mod_0000.py").read_text().startswith("def func_0")


def test_refuses_a_folder(tmp_path: Path) -> None:
    ledger = build_ledger(tmp_path, 3)
    with pytest.raises(Exception, match="folder"):
        check_output(tmp_path / "pkg", ledger)


def test_outside_the_project_needs_force(tmp_path: Path,
                                         tmp_path_factory: pytest.TempPathFactory) -> None:
    build_ledger(tmp_path, 3)
    elsewhere = tmp_path_factory.mktemp("reports") / "r.csv"
    refused = invoke(tmp_path, "export", "--format", "csv", "-o", str(elsewhere))
    assert refused.exit_code == 2 and "outside the project" in refused.stderr
    assert "--force" in refused.stderr and not elsewhere.exists()
    forced = invoke(tmp_path, "export", "--format", "csv", "-o", str(elsewhere), "--force")
    assert forced.exit_code == 0 and elsewhere.read_text().startswith("id,")


@pytest.mark.parametrize("name", ["README.md", "data/prices.csv", "notes.html"])
def test_refuses_an_existing_file_that_is_not_an_export(tmp_path: Path, name: str) -> None:
    build_ledger(tmp_path, 3)
    target = tmp_path / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("written by a person\n")
    refused = invoke(tmp_path, "export", "--format", "csv", "-o", str(target))
    assert refused.exit_code == 2 and "not an earlier pytest-quest export" in refused.stderr
    assert target.read_text() == "written by a person\n"
    assert invoke(tmp_path, "export", "--format", "csv", "-o", str(target),
                  "--force").exit_code == 0
    assert target.read_text().startswith("id,")


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "html"])
def test_an_earlier_export_is_replaced(tmp_path: Path, fmt: str) -> None:
    build_ledger(tmp_path, 3)
    target = tmp_path / f"report.{fmt}"
    assert invoke(tmp_path, "export", "--format", fmt, "-o", str(target)).exit_code == 0
    target.write_text(target.read_text() + "\n")  # an earlier export, not this one
    assert invoke(tmp_path, "export", "--format", fmt, "-o", str(target)).exit_code == 0
    assert not target.read_text().endswith("\n\n")


def test_force_never_writes_over_a_protected_file(tmp_path: Path) -> None:
    build_ledger(tmp_path, 3)
    source = tmp_path / "pkg" / "mod_0000.py"
    before = source.read_bytes()
    ledger_file = tmp_path / ".quest" / "ledger.json"
    for target in (source, ledger_file):
        result = invoke(tmp_path, "export", "--format", "csv", "-o", str(target), "--force")
        assert result.exit_code == 2
    assert source.read_bytes() == before and ledger_file.read_text().startswith("{")


def test_is_export_reads_content_not_names(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    json_rows = tmp_path / "rows.txt"
    json_rows.write_text('{"id": "a.py::f", "qualname": "f", "state": "TODO", "tries": 0}\n')
    other_json = tmp_path / "config.jsonl"
    other_json.write_text('{"id": 1}\n')
    page = tmp_path / "page.html"
    page.write_text("<!DOCTYPE html>\n<p>a page someone wrote</p>")
    assert is_export(empty) and is_export(json_rows)
    assert not is_export(other_json) and not is_export(page)
    assert not is_export(tmp_path / "missing.csv")


def test_unknown_format_is_a_usage_error(tmp_path: Path) -> None:
    build_ledger(tmp_path, 3)
    assert invoke(tmp_path, "export", "--format", "xml").exit_code == 2


def test_dumps_is_json_with_one_item_per_line(tmp_path: Path) -> None:
    build_ledger(tmp_path, 30)
    data = status_json(tmp_path)
    text = dumps(data)
    assert json.loads(text) == data
    quest_lines = [line for line in text.splitlines() if line.startswith('    {"coverage"')]
    assert len(quest_lines) == 30


def test_ten_thousand_quests_under_a_second(tmp_path: Path) -> None:
    """CPU time of the whole command in-process; benchmarks/bench_views.py shows wall time."""
    build_ledger(tmp_path, 10_000)
    for fmt in ("jsonl", "csv", "html"):
        target = tmp_path / f"r.{fmt}"
        started = time.process_time()
        result = invoke(tmp_path, "export", "--format", fmt, "-o", str(target))
        elapsed = time.process_time() - started
        assert result.exit_code == 0
        assert elapsed < time_budget(), f"{fmt}: {elapsed:.2f} s"
    assert sum(1 for _ in (tmp_path / "r.jsonl").open()) == 10_000
