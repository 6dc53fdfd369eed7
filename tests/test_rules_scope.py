"""Stage 2 rules: one test file in the quest folder, nothing protected touched."""

from __future__ import annotations

from dataclasses import replace

from pytest_quest.rules import scope
from tests.test_rules_run import TEST, rules, sub


def test_scope_location_rules() -> None:
    assert rules(scope.check(sub(test_rel="tests/test_elsewhere.py"))) == ["scope-test-location"]
    assert rules(scope.check(sub(test_rel="tests/quest/helper.py"))) == ["scope-test-location"]
    locked = sub(locked_tests={TEST: "abc"})
    assert rules(scope.check(locked)) == ["scope-test-location"]
    # The same file on a case-insensitive file system (macOS): refused too (red team 4).
    upper = sub(test_rel=TEST.replace("m__f", "M__F"), locked_tests={TEST: "abc"})
    assert upper.test_rel != TEST and rules(scope.check(upper)) == ["scope-test-location"]
    # ... and a name in another Unicode normalization: macOS compares NFC "é" and NFD "e" plus
    # a combining accent as one file name (red team 5, finding 05).
    composed = TEST.replace("test_", "test_caf\u00e9_")
    nfd = sub(test_rel=composed.replace("\u00e9", "e\u0301"), locked_tests={composed: "abc"})
    assert nfd.test_rel != composed and rules(scope.check(nfd)) == ["scope-test-location"]
    assert rules(scope.check(sub(test_rel=TEST.replace("test_", "test_cafe_"),
                                 locked_tests={composed: "abc"}))) == []
    assert list(scope.check(sub())) == []


def test_scope_protected_files() -> None:
    s = sub(snapshot={"m.py": "a" * 64, "gone.py": "b" * 64},
            locked_tests={"tests/quest/t.py": "c"}, stray_files=("tests/quest/conftest.py",))
    s = replace(s, working_tree={"m.py": "d" * 64, "new.py": "e" * 64,
                                 "tests/resources/out.txt": "f" * 64},
                data_files=frozenset({"tests/resources/out.txt"}),
                locked_now={"tests/quest/t.py": None})
    facts = list(scope.check(s))
    assert [(f.where, f.actual) for f in facts] == [
        ("gone.py", "deleted"),
        ("m.py", "changed (dddddddddddd)"),
        ("new.py", "a new file"),
        ("tests/quest/t.py", "deleted"),
        ("tests/quest/conftest.py", "another file in the quest test folder"),
    ]


def test_a_new_file_counts_when_it_can_change_how_tests_run() -> None:
    # A data file the project's own suite left under tests/ was "a new file" for the next
    # submission (calibration of aiofiles): only code, configuration and native code count.
    from pytest_quest.sandbox import runs_code

    for rel in ("tests/helpers.py", "tests/pytest.ini", "tests/conftest.py", "tests/x.pth",
                "src/pkg/_speedups.so", "tests/setup.cfg", "pyproject.toml", "tests/x.pyx"):
        assert runs_code(rel, b"")
    assert runs_code("tests/data/blob.bin", b"\x7fELF")  # native code by any name
    for rel in ("tests/resources/out.txt", "tests/data/golden.json", "tests/img.png"):
        assert not runs_code(rel, b"data")
