"""A run child hides the pristine code from its test (red team 2: 03, 07; red team 9: 01)."""

from __future__ import annotations

import linecache
import sys
import types

from pytest_quest.scrub import RunLoader, body_of, function_of, holds_body, scrub_run

FUNCTION = '''def rate(base, nights):
    """Per-night rate."""
    if nights >= 7:
        return base * 0.9
    return base'''


class FakePristine:
    def __init__(self) -> None:
        self.module_code = compile("X = 1", "m.py", "exec")
        self.code = self.module_code
        self.source = b"X = 1"
        self.text = "X = 1"
        self.path = "/nowhere/m.py"


def test_a_run_serves_only_its_own_code_and_no_source() -> None:
    installed = compile("X = 2", "m.py", "exec")
    seen: list[bool] = []
    loader = RunLoader("scrub_probe_mod", "/nowhere/m.py", installed, seen.append)
    pristine = FakePristine()
    sys.meta_path.insert(0, pristine)  # type: ignore[arg-type]
    old = types.ModuleType("scrub_probe_old")
    old.__loader__ = pristine  # type: ignore[assignment]
    sys.modules["scrub_probe_old"] = old
    try:
        scrub_run(pristine, loader, "scrub_probe_old")
        assert pristine not in sys.meta_path and sys.meta_path[0] is loader
        assert old.__loader__ is loader
        assert pristine.module_code is None and pristine.code is None and not pristine.text
        module = __import__("scrub_probe_mod")
        assert module.X == 2 and seen == [True, False]
        assert module.__loader__.get_source("scrub_probe_mod") is None
        assert "code" not in vars(loader) and "module_code" not in vars(loader)
    finally:
        sys.meta_path.remove(loader)
        sys.modules.pop("scrub_probe_mod", None)
        sys.modules.pop("scrub_probe_old", None)


def test_a_renamed_or_reindented_copy_of_the_body_is_recognised() -> None:
    body = body_of(FUNCTION)
    renamed = FUNCTION.replace("def rate(", "def reference(")
    reindented = "class K:\n" + "\n".join("    " + line for line in renamed.splitlines())
    assert holds_body(renamed, body) and holds_body(reindented, body)
    assert not holds_body("def rate(base, nights):\n    return base", body)
    assert body_of("def f(x):\n    return x") == ()  # too short to tell a copy by
    assert not holds_body("return x", ())


def test_a_copy_with_a_comment_on_every_line_is_recognised() -> None:
    """Red team 9, finding 01: ``"  # ref"`` after each line hid a copy from the watch."""
    body = body_of(FUNCTION)
    commented = "\n".join(line + "  # ref" for line in FUNCTION.splitlines())
    assert holds_body(commented, body) and holds_body(commented, function_of(FUNCTION))
    assert not holds_body(commented.replace("base * 0.9", "base * 0.8"), body)
    assert holds_body('x = "#"  # a hash in a string is no comment\n', function_of('x = "#"\n'))


def test_the_fingerprints_hold_no_text_of_the_function() -> None:
    """The watch lives in the run's memory: what it keeps must not rebuild the function."""
    kept = (*body_of(FUNCTION), *function_of(FUNCTION))
    assert kept and all(type(item) is int for item in kept)


def test_a_run_keeps_no_text_of_the_target_in_linecache() -> None:
    """Red team 9, finding 01: the run's linecache held the shipped text, read with no audit
    event; now the entry is there (nothing rereads the file) and empty."""
    pristine = FakePristine()
    linecache.cache[pristine.path] = (9, None, ["X = 1\n"], pristine.path)
    loader = RunLoader("scrub_probe_lc", pristine.path, pristine.module_code, lambda flag: None)
    try:
        scrub_run(pristine, loader, "scrub_probe_lc")
        assert linecache.getlines(pristine.path) == []
        assert linecache.cache[pristine.path][2] == []
    finally:
        sys.meta_path.remove(loader)
        linecache.cache.pop(pristine.path, None)
