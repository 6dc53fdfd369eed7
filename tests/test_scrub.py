"""A run child hides the pristine code from its test (red team 2: 03, 07)."""

from __future__ import annotations

import sys
import types

from pytest_quest.scrub import RunLoader, body_of, holds_body, scrub_run

FUNCTION = '''def rate(base, nights):
    """Per-night rate."""
    if nights >= 7:
        return base * 0.9
    return base'''


class FakePristine:
    def __init__(self) -> None:
        self.module_code = compile("X = 1", "m.py", "exec")
        self.code = self.module_code
        self.watch = object()
        self.source = b"X = 1"
        self.text = "X = 1"


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
    assert body_of("def f(x):\n    return x") == ""  # too short to tell a copy by
    assert not holds_body("return x", "")
