"""Bug 8: the right error kinds and words, on real projects.

A missing ledger is ``NoLedger``; an unknown id offers the closest ones; the
baseline counts tests, not subtest reports; counted nouns agree; mutation
survivors read top to bottom; ``review --approve`` on a PASS says so first;
a long baseline reports progress.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

from pytest_quest.cli import cli
from pytest_quest.config import load_settings
from pytest_quest.measure import measure
from pytest_quest.progress import Tally
from pytest_quest.scan import scan
from pytest_quest.words import plural
from tests.test_rules_mutation import NULL_OK
from tests.test_rules_mutation import _sub as mutation_sub


def invoke(root: Path, *args: str) -> Any:
    return CliRunner().invoke(cli, [*args, "--root", str(root)])


def test_a_missing_ledger_is_no_ledger_not_corrupt(tmp_path: Path) -> None:
    result = invoke(tmp_path, "status", "--json")
    assert result.exit_code == 2
    assert json.loads(result.stdout)["kind"] == "NoLedger"
    assert "run `pytest-quest scan`" in result.stderr and "corrupt" not in result.stderr


def test_an_unknown_id_offers_the_closest(project: Path) -> None:
    result = invoke(project, "show", "hotel/pricing.py::nightly_rat")
    assert result.exit_code == 2
    assert "did you mean hotel/pricing.py::nightly_rate" in result.stderr
    moved = invoke(project, "show", "hotel/booking.py::nightly_rate")  # right name, wrong file
    assert "did you mean hotel/pricing.py::nightly_rate" in moved.stderr
    nothing = invoke(project, "show", "zzz")
    assert "`pytest-quest status --all` lists every id" in nothing.stderr


@pytest.mark.slow
def test_the_baseline_counts_tests_not_subtests(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "__init__.py").write_text("")
    (tmp_path / "lib" / "m.py").write_text("def double(x):\n    return x * 2\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_m.py").write_text(textwrap.dedent('''
        from lib.m import double


        def test_many(subtests):
            for n in range(3):
                with subtests.test(n=n):
                    assert double(n) == n * 2


        def test_one():
            assert double(2) == 4
    '''))
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    report, ledger = scan(load_settings(tmp_path))
    assert (report.baseline["tests_passed"], report.baseline["tests_failed"]) == (2, 0)
    assert ledger.quests["lib/m.py::double"].state.value == "PASS"


def test_counted_nouns_agree() -> None:
    assert [plural(n, "line") for n in (0, 1, 2)] == ["0 lines", "1 line", "2 lines"]
    assert plural(1, "branch") == "1 branch" and plural(3, "branch") == "3 branches"
    from pytest_quest.rules import coverage

    def sub(executed: list[int], missing: list[int]) -> Any:
        entry = {"executed_lines": executed, "missing_lines": missing}
        return SimpleNamespace(run=SimpleNamespace(), claims=(),
                               quest=SimpleNamespace(path="m.py", body=(2, 5)),
                               measured=measure(entry, (2, 5)))

    (one,) = coverage.check(sub([2, 3, 4], [5]))
    assert one.actual == "not executed: line 5 (1 of 4 lines)"
    (alone,) = coverage.check(sub([], [5]))
    assert alone.actual == "not executed: line 5 (1 of 1 line)"
    (two,) = coverage.check(sub([2, 3], [4, 5]))
    assert two.actual == "not executed: lines 4-5 (2 of 4 lines)"


def test_mutation_survivors_are_sorted_by_line() -> None:
    from pytest_quest.rules import mutation

    classic = [{"line": line, "description": f"m{line}", "outcome": outcome}
               for line, outcome in ((9, "survived"), (3, "killed"), (7, "survived"),
                                     (4, "survived"), (5, "killed"))]
    event = {"null": NULL_OK, "extreme": [{"outcome": "killed"}], "classic": classic}
    facts = list(mutation.check(mutation_sub(event, threshold=0.9)))
    assert [f.where for f in facts] == ["m.py", "m.py:4", "m.py:7", "m.py:9"]
    assert list(mutation.check(mutation_sub(event, threshold=0.4))) == []
    assert mutation.summary(event, 0.4)["survivors"] == [
        "line 4: m4 survived", "line 7: m7 survived", "line 9: m9 survived"]


def test_approving_a_pass_quest_says_it_is_pass_before_asking_for_a_note(project: Path) -> None:
    result = invoke(project, "review", "hotel/pricing.py::apply_discount", "--approve",
                    "--by", "ann")
    assert result.exit_code == 4
    assert "already PASS" in result.stderr and "--note" not in result.stderr
    todo = invoke(project, "review", "hotel/pricing.py::nightly_rate", "--approve", "--by", "a")
    assert todo.exit_code == 2 and "only REVIEW quests" in todo.stderr


def test_progress_is_counted_from_the_events_as_they_stream() -> None:
    tally = Tally()
    assert tally.counts() == (0, None)
    lines = [{"event": "start"}, {"event": "collected", "count": 3},
             {"event": "report", "nodeid": "a", "when": "setup", "outcome": "passed"},
             {"event": "report", "nodeid": "a", "when": "call", "outcome": "passed"},
             {"event": "report", "nodeid": "b", "when": "setup", "outcome": "failed"}]
    stream = ("\n".join(json.dumps(e) for e in lines) + '\n{"event": "rep').encode()
    for start in range(0, len(stream), 7):  # chunks split lines anywhere
        tally.feed(stream[start:start + 7])
    assert tally.counts() == (2, 3)
    tally.feed(b'ort", "nodeid": "c", "when": "call", "outcome": "passed"}\n')
    assert tally.counts() == (3, 3)
    tally.feed(b'{"event": "report", ' + b"[" * 100_000 + b"\n")  # garbage counts nothing
    tally.feed(b'{"event": "collected", "count": 2}\n')  # the rerun without failures
    assert tally.counts() == (0, 2)


@pytest.mark.slow
def test_a_long_baseline_reports_progress(tmp_path: Path) -> None:
    (tmp_path / "slow.py").write_text("def f(x):\n    return x\n")
    (tmp_path / "tests").mkdir()
    body = "\n\n".join(f"def test_{n}():\n    time.sleep(0.5)\n    assert f({n}) == {n}"
                       for n in range(5))
    (tmp_path / "tests" / "test_slow.py").write_text(f"import time\n\nfrom slow import f\n\n\n"
                                                     f"{body}\n")
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    heard: list[str] = []
    scan(load_settings(tmp_path), progress=heard.append)
    counts = [m for m in heard if m.startswith("running the existing suite: ")]
    assert counts, heard
    assert any(re.search(r" of 5 tests( on \d+ xdist workers)?, ", m) for m in counts)
