# quest: pyee/base.py::EventEmitter.once
from pyee import EventEmitter


def test_once_as_a_decorator_fires_a_single_time():
    ee = EventEmitter()
    calls = []

    @ee.once("data")
    def handler(*args, **kwargs):
        calls.append((args, kwargs))
        return "handled"

    assert ee.listeners("data") == [handler]
    assert ee.emit("data", 1, key="v") is True
    assert ee.emit("data", 2) is False  # nobody listens any more
    assert calls == [((1,), {"key": "v"})]
    assert ee.listeners("data") == []
    assert "data" not in ee.event_names()


def test_once_called_directly_returns_the_function():
    ee = EventEmitter()
    seen = []

    def handler(value):
        seen.append(value)

    assert ee.once("x", handler) is handler
    ee.emit("x", "a")
    ee.emit("x", "b")
    assert seen == ["a"]


def test_the_wrapper_passes_the_handler_result_through():
    ee = EventEmitter()

    def handler(value):
        return value * 2

    ee.once("double", handler)
    wrapper = ee._events["double"][handler]
    assert wrapper(21) == 42
    assert ee.listeners("double") == []


def test_a_listener_removed_before_its_call_is_not_called():
    ee = EventEmitter()
    calls = []

    def handler():
        calls.append("called")
        return "ran"

    ee.once("event", handler)
    wrapper = ee._events["event"][handler]
    ee.remove_listener("event", handler)
    assert wrapper() is None
    assert calls == []


def test_other_listeners_of_the_event_stay():
    ee = EventEmitter()
    log = []
    ee.on("e", lambda: log.append("on"))
    ee.once("e", lambda: log.append("once"))
    ee.emit("e")
    ee.emit("e")
    assert log == ["on", "once", "on"]
    assert len(ee.listeners("e")) == 1
