"""pytest's traceback API sees a stand-in for the target's code in a run."""

from __future__ import annotations

import inspect
import sys
import types
from typing import Any

import pytest
from _pytest._code import ExceptionInfo
from _pytest._code import code as pytest_code

from pytest_quest import standin


def _target(values: list[int]) -> list[int]:
    doubled = list(value * 2 for value in values)  # a nested code on every version
    if not doubled:
        raise ValueError("no values")
    return doubled


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stand-in in place for ``_target``, as a run has it; pytest's own back afterwards."""
    monkeypatch.setattr(pytest_code.Frame, "code", vars(pytest_code.Frame)["code"])
    monkeypatch.setattr(standin.StandIn, "PAIRS", ())
    monkeypatch.setattr(standin.StandIn, "CODE", None)
    standin.install(_target.__code__)


def _info() -> ExceptionInfo[BaseException]:
    try:
        _target([])
    except ValueError:
        return ExceptionInfo.from_current()
    raise AssertionError("no exception")


def test_a_stand_in_has_the_codes_arguments() -> None:
    def variadic(a: int, /, b: int, *rest: int, c: int, **more: int) -> None:
        inner = 1
        del inner

    made = standin.stand_in(variadic.__code__)
    assert inspect.getargs(made) == inspect.getargs(variadic.__code__)
    assert (made.co_argcount, made.co_posonlyargcount, made.co_kwonlyargcount) == (2, 1, 1)
    assert "inner" not in made.co_varnames


def test_stand_ins_cover_the_code_and_the_code_nested_in_it() -> None:
    pairs = dict(standin.stand_ins(_target.__code__))
    nested = next(const for const in _target.__code__.co_consts
                  if type(const) is types.CodeType)
    assert set(pairs) == {id(_target.__code__), id(nested)}
    for code in (_target.__code__, nested):
        made = pairs[id(code)]
        assert (made.co_filename, made.co_firstlineno, made.co_name, made.co_qualname) == (
            code.co_filename, code.co_firstlineno, code.co_name, code.co_qualname)
        assert made.co_code != code.co_code and made.co_consts != code.co_consts


@pytest.mark.usefixtures("installed")
def test_pytests_traceback_api_answers_as_before_with_the_stand_in() -> None:
    """Red teams 44 to 47 had pytest's readers hand the code they read to the test, one
    namespace further out each time: what they hold now is the stand-in, the same in every
    run. Names, lines, source and the report are what they were."""
    info = _info()
    entry = info.traceback[-1]
    raw = entry.frame.code.raw
    assert raw is not _target.__code__
    assert raw is dict(standin.StandIn.PAIRS)[id(_target.__code__)]
    assert entry.name == "_target" and entry.lineno == _target.__code__.co_firstlineno + 2
    assert 'raise ValueError("no values")' in str(entry.statement)
    assert "def _target" in str(entry.getsource())
    text = str(info.getrepr(style="long", showlocals=True))
    assert "no values" in text and "values     = []" in text
    # its arguments too (red team 48: a report with funcargs listed none)
    assert "values = []" in str(info.getrepr(funcargs=True))
    assert entry.frame.getargs() == [("values", [])]
    assert info.traceback.recursionindex() is None
    assert info.traceback[0].frame.code.raw is _info.__code__  # any other code is its own


@pytest.mark.usefixtures("installed")
def test_the_stand_in_takes_no_argument_of_the_callers() -> None:
    """Its state is on its class (a module of the run's, pictured by the seal), with no default
    argument or closure cell a test could set to get the frame's code handed to it."""
    descriptor = vars(pytest_code.Frame)["code"]
    assert type(descriptor) is standin.StandIn
    assert standin.StandIn.__get__.__defaults__ == (None,)
    assert standin.StandIn.__get__.__closure__ is None
    assert standin.StandIn.choose.__closure__ is None  # type: ignore[attr-defined]
    assert descriptor.__get__(None, pytest_code.Frame) is descriptor
    frame: Any = types.SimpleNamespace(raw=sys._getframe())
    assert descriptor.__get__(frame).raw is sys._getframe().f_code
