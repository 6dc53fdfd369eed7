"""Unit tests of the name resolver (pytest_quest/rules/names.py): what a test's names refer to."""

from __future__ import annotations

import ast

import pytest

from pytest_quest.rules.names import (
    Names,
    const_str,
    expand,
    folded_strings,
    in_tmp,
    rooted,
    truthiness,
)


def _resolve(source: str) -> str | None:
    """What the last line's expression of ``source`` resolves to."""
    tree = ast.parse(source)
    last = tree.body[-1]
    assert isinstance(last, ast.Expr)
    return Names(tree).resolve(last.value)


@pytest.mark.parametrize(("source", "name"), [
    ("import os as o\no._exit", "os._exit"),
    ("from os import _exit as e\ne", "os._exit"),
    ("import sys\nleave = sys.exit\nleave", "sys.exit"),
    ("getattr(__import__('os'), '_ex' + 'it')", "os._exit"),
    ("import importlib\nimportlib.import_module('o' + 's').kill", "os.kill"),
    ("import sys\nsys.modules['__main__']", "__main__"),
    ("import os\nvars(os)['_exit']", "os._exit"),
    ("import os\nos.__dict__['_e' + 'xit']", "os._exit"),
    ("import sys\nglobals()['sys'].exit", "sys.exit"),
])
def test_resolves_through_aliases_and_lookups(source: str, name: str) -> None:
    assert _resolve(source) == name


@pytest.mark.parametrize(("source", "name"), [
    # red team 37: a well-known module reached as another module's attribute is that module
    ("import timeit\ntimeit.gc.callbacks", "gc.callbacks"),
    ("import a.b\na.b.sys.modules", "sys.modules"),
    ("from tracemalloc import pickle\npickle.loads", "pickle.loads"),
    ("from tracemalloc.pickle import loads\nloads", "pickle.loads"),
    ("import timeit\ntimeit.sys.modules['os']", "os"),
    ("import timeit\nx = timeit.gc\nx.callbacks", "gc.callbacks"),
    ("import timeit\ngetattr(timeit, 'gc').callbacks", "gc.callbacks"),
    ("import subprocess\nsubprocess.signal", "signal"),  # handed on, not called
    ("import asyncio\nasyncio.subprocess.subprocess.signal", "signal"),
    ("import timeit\ntimeit.timeit", "timeit.timeit"),  # the module's own function
    ("import socket\nsocket.socket", "socket.socket"),
    ("import scipy.signal\nscipy.signal.butter", "scipy.signal.butter"),
    ("import os\nos.path.join", "os.path.join"),
    ("import logging\nlogging.getLogger", "logging.getLogger"),
    ("import hotel.pricing\nhotel.pricing", "hotel.pricing"),
])
def test_a_well_known_module_is_rooted_where_it_is_reached(source: str, name: str) -> None:
    assert _resolve(source) == name


def test_a_well_known_name_called_last_is_no_module() -> None:
    tree = ast.parse("import blinker\nblinker.signal('booked')\nblinker.signal.connect")
    names = Names(tree)
    call, attr = (s.value for s in tree.body[1:] if isinstance(s, ast.Expr))
    assert isinstance(call, ast.Call)
    assert names.resolve(call.func) == "blinker.signal"
    assert names.resolve(attr) == "signal.connect"  # an attribute of it: the module
    assert rooted("blinker.signal", end=False) == "blinker.signal"
    assert rooted("blinker.signal", end=True) == "signal"


def test_the_targets_own_module_is_never_rooted() -> None:
    assert rooted("mypkg.types.parse", end=True, own="mypkg.types") == "mypkg.types.parse"
    assert rooted("mypkg.types", end=True, own="mypkg.types.sub") == "mypkg.types"
    assert rooted("mypkg.types.types.CodeType", end=True, own="mypkg.types") == "types.CodeType"
    assert rooted("mypkg.logging.logging", end=True, own="mypkg.logging") == "logging"
    assert rooted("mypkg.types.parse", end=True) == "types.parse"


@pytest.mark.parametrize("source", [
    "def exit():\n    pass\nexit",  # a local definition shadows the builtin
    "import os\nkey = input()\nvars(os)[key]",  # a computed key is not guessed at
    "import os\ngetattr(os, ''.join(['_ex', 'it']))",
    "globals()['not a name']",
])
def test_does_not_guess(source: str) -> None:
    assert _resolve(source) is None


def test_const_str_folds_pieces_but_not_calls() -> None:
    assert const_str(ast.parse("'a' + 'b' + 'c'", mode="eval").body) == "abc"
    assert const_str(ast.parse("'a' + 1", mode="eval").body) is None
    assert const_str(ast.parse("''.join(['a', 'b'])", mode="eval").body) is None


def test_paths_in_tmp_path() -> None:
    tree = ast.parse("base = tmp_path / 'x'\nbase / 'y.py'\n(tmp_path / '..' / 'z.py')\n")
    names = Names(tree)
    inside, outside = (s.value for s in tree.body[1:] if isinstance(s, ast.Expr))
    assert in_tmp(expand(inside, names), names)
    assert sorted(folded_strings(expand(inside, names))) == ["x", "y.py"]
    assert not in_tmp(expand(outside, names), names)


@pytest.mark.parametrize(("text", "truth"), [
    ("True", True), ("(x, 'msg')", True), ("not False", True), ("[]", False), ("x", None),
    ("1 == 1", True), ("all([])", True), ("any([])", False), ("x or True", True),
])
def test_truthiness(text: str, truth: bool | None) -> None:
    assert truthiness(ast.parse(text, mode="eval").body) is truth
