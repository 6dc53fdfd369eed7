"""What the judge learns of the target's text in a child, so that no run inherits the text."""

from __future__ import annotations

import sys
from pathlib import Path

import coverage
import pytest

from pytest_quest import targetfacts
from pytest_quest.protocol import MAX_START_BRANCHES
from pytest_quest.scrub import fingerprint, holds_body
from pytest_quest.targetfacts import TargetFacts, body_coverage, learn, read_apart

SOURCE = '''import json
import os.path


def rate(base, nights):
    """Per-night rate."""
    if nights >= 7:
        return base * 0.9
    return base
'''


def _cov(path: Path) -> coverage.Coverage:
    return coverage.Coverage(data_file=None, config_file=False, branch=True,
                             include=[str(path)])


def test_learn_gives_names_and_numbers_of_the_def(tmp_path: Path) -> None:
    path = tmp_path / "shop.py"
    path.write_text(SOURCE)
    facts = learn(SOURCE, str(path), (5, 9), (6, 9), str(tmp_path), True, _cov(path))
    assert (facts.name, facts.first_line) == ("rate", 5)
    assert facts.imports == ("json", "os.path")
    assert facts.known == ((7, 8, 9), ((7, 8), (7, 9)))  # a docstring is no statement
    function, body = facts.function, facts.body
    assert all(type(n) is int for n in (*function, *body))
    copy = SOURCE.replace("def rate(", "def reference(")
    assert holds_body(copy, body) and (function, body) == fingerprint(
        "".join(SOURCE.splitlines(keepends=True)[4:9]))


def test_learn_without_a_def_at_the_line_gives_no_name(tmp_path: Path) -> None:
    path = tmp_path / "shop.py"
    path.write_text(SOURCE)
    facts = learn(SOURCE, str(path), (1, 2), (1, 2), str(tmp_path), False, _cov(path))
    assert (facts.name, facts.first_line) == ("", 0)


@pytest.mark.slow
def test_read_apart_answers_what_learn_does_without_reading_here(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The child reads the file and answers; the judge's own ``learn`` never runs."""
    path = tmp_path / "shop.py"
    path.write_text(SOURCE)
    expected = learn(SOURCE, str(path), (5, 9), (6, 9), str(tmp_path), True, _cov(path))
    calls: list[str] = []
    real_learn = targetfacts.learn

    def counted(*args: object) -> TargetFacts:
        calls.append("learn")
        return real_learn(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(targetfacts, "learn", counted)
    facts = read_apart(str(path), (5, 9), (6, 9), str(tmp_path), True, _cov(path))
    assert facts == expected
    assert calls == []  # called in the child only (its memory is not this process's)


@pytest.mark.slow
def test_read_apart_fails_in_the_judge_as_the_file_would(tmp_path: Path) -> None:
    """A child that cannot answer leaves it to the judge: the same error, from the same place."""
    with pytest.raises(FileNotFoundError):
        read_apart(str(tmp_path / "absent.py"), (1, 2), (1, 2), str(tmp_path), False,
                   _cov(tmp_path / "absent.py"))
    (tmp_path / "broken.py").write_text("def f(:\n")
    with pytest.raises(SyntaxError):
        read_apart(str(tmp_path / "broken.py"), (1, 1), (1, 1), str(tmp_path), False,
                   _cov(tmp_path / "broken.py"))


def test_third_party_imports_are_found_statically(tmp_path: Path) -> None:
    (tmp_path / "local_helper.py").write_text("")
    sys.path.insert(0, str(tmp_path))
    try:
        source = ("import json, local_helper\nfrom collections import abc\nfrom . import sib\n"
                  "import not_installed_anywhere\nfrom os import path\n")
        found = targetfacts.third_party_imports(source, str(tmp_path))
    finally:
        sys.path.remove(str(tmp_path))
    assert found == ["json", "collections", "os"]


def test_the_judge_lists_a_whole_body_past_the_caps(tmp_path: Path) -> None:
    """``targetfacts.body_coverage`` is static (nothing of the file ran) and uncapped."""
    lines = ["def f(flags):", "    total = 0"]
    for i in range(305):
        lines += [f"    if flags[{i}]:", f"        total += {i + 1}"]
    lines.append("    return total")
    path = tmp_path / "calc.py"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cov = coverage.Coverage(data_file=None, config_file=False, branch=True,
                            include=[str(path)])
    known = body_coverage(cov, str(path), (2, len(lines)), True)
    assert known is not None
    statements, arcs = known
    assert statements == tuple(range(2, len(lines) + 1))
    assert len(arcs) == 610 > MAX_START_BRANCHES and (611, 613) in arcs
    assert body_coverage(cov, str(path), (2, len(lines)), False) == (statements, ())
    assert body_coverage(cov, str(tmp_path / "absent.py"), (1, 3), True) is None
