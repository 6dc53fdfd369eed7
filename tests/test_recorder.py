"""The measured run's recorder: calls and return types of the target, and nothing else."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator

import pytest

from pytest_quest.recorder import TOOL_NAME, Recorder

MONITORING = hasattr(sys, "monitoring")
#: Both ways where this Python has both (3.12+), the profile hook alone on 3.11.
WAYS = [False, True] if MONITORING else [False]
needs_monitoring = pytest.mark.skipif(not MONITORING, reason="sys.monitoring needs Python 3.12+")


class _Money:
    pass


def _priced(kind: str) -> object:
    if kind == "fail":
        raise ValueError(kind)
    return {"int": 3, "float": 2.5, "money": _Money()}[kind]


def _counted(gen_steps: int) -> Iterator[int]:
    yield from range(gen_steps)


def _exercise() -> None:
    for kind in ("int", "int", "float", "money"):
        _priced(kind)
    with pytest.raises(ValueError):
        _priced("fail")
    len(str(_Money()))  # other code: not counted


@pytest.mark.parametrize("monitoring", WAYS)
def test_the_recorder_counts_calls_and_builtin_return_types_of_the_target_only(
        monitoring: bool) -> None:
    recorder = Recorder(_priced.__code__, monitoring=monitoring)
    recorder.start()
    try:
        with recorder.window():
            _exercise()
    finally:
        recorder.stop()
    assert recorder.count() == 5
    assert recorder.types == ["int", "float", "?"]  # a raise says nothing, a class is "?"


@pytest.mark.parametrize("monitoring", WAYS)
def test_a_generator_counts_each_resume_and_each_yielded_type(monitoring: bool) -> None:
    recorder = Recorder(_counted.__code__, monitoring=monitoring)
    recorder.start()
    try:
        with recorder.window():
            assert list(_counted(2)) == [0, 1]
    finally:
        recorder.stop()
    assert recorder.count() == 3  # the start and two resumes, as the profile hook sees it
    assert recorder.types == ["int"]


def test_the_profile_hook_hears_nothing_outside_a_window() -> None:
    recorder = Recorder(_priced.__code__, monitoring=False)
    recorder.start()
    _priced("int")  # before any window: pytest's own machinery pays nothing
    with recorder.window():
        _priced("float")
        assert sys.getprofile() is recorder.hook
    assert sys.getprofile() is None
    _priced("int")
    recorder.stop()
    assert recorder.count() == 1
    assert recorder.types == ["float"]


def test_a_nested_window_leaves_the_outer_one_listening() -> None:
    recorder = Recorder(_priced.__code__, monitoring=False)
    recorder.start()
    with recorder.window():
        with recorder.window():  # an import while a test module is collected
            _priced("int")
        _priced("int")
        assert sys.getprofile() is recorder.hook
    recorder.stop()
    assert recorder.count() == 2


def test_threads_started_in_a_window_are_heard() -> None:
    recorder = Recorder(_priced.__code__, monitoring=False)
    recorder.start()
    with recorder.window():
        thread = threading.Thread(target=_priced, args=("int",))
        thread.start()
        thread.join()
    recorder.stop()
    assert recorder.count() == 1


def test_a_recorder_whose_hook_was_replaced_has_no_count() -> None:
    recorder = Recorder(_priced.__code__, monitoring=False)
    recorder.start()
    try:
        with recorder.window():
            sys.setprofile(lambda *_: None)  # what a test could do to hide its calls
            _priced("int")
    finally:
        recorder.stop()
    assert recorder.count() is None


@needs_monitoring
def test_monitoring_listens_to_one_code_object_and_leaves_no_tool_behind() -> None:
    recorder = Recorder(_priced.__code__, monitoring=True)
    recorder.start()
    try:
        tools = [sys.monitoring.get_tool(t) for t in range(6)]
        assert TOOL_NAME in tools
        assert sys.getprofile() is None  # no process-wide hook at all
        _priced("int")  # no window needed: only this code object has events
    finally:
        recorder.stop()
    assert TOOL_NAME not in [sys.monitoring.get_tool(t) for t in range(6)]
    assert recorder.count() == 1 and recorder.types == ["int"]


@needs_monitoring
@pytest.mark.parametrize("tamper", ["free", "events", "callback"])
def test_monitoring_switched_off_or_replaced_has_no_count(tamper: str) -> None:
    recorder = Recorder(_priced.__code__, monitoring=True)
    recorder.start()
    tool = next(t for t in range(6) if sys.monitoring.get_tool(t) == TOOL_NAME)
    try:
        if tamper == "free":
            sys.monitoring.free_tool_id(tool)
        elif tamper == "events":
            sys.monitoring.set_local_events(tool, _priced.__code__, 0)
        else:
            sys.monitoring.register_callback(tool, sys.monitoring.events.PY_START,
                                             lambda *_: None)
        _priced("int")
    finally:
        recorder.stop()
    assert recorder.count() is None


@needs_monitoring
def test_with_every_tool_id_taken_the_profile_hook_takes_over() -> None:
    taken = []
    for tool in (sys.monitoring.PROFILER_ID, 3, 4):
        if sys.monitoring.get_tool(tool) is None:
            sys.monitoring.use_tool_id(tool, "someone else")
            taken.append(tool)
    try:
        recorder = Recorder(_priced.__code__, monitoring=True)
        recorder.start()
        with recorder.window():
            assert sys.getprofile() is recorder.hook
            _priced("float")
        recorder.stop()
    finally:
        for tool in taken:
            sys.monitoring.free_tool_id(tool)
    assert recorder.count() == 1 and recorder.types == ["float"]
