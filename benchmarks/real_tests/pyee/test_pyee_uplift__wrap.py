# quest: pyee/uplift.py::_wrap
import pytest
from pyee import EventEmitter
from pyee.uplift import EMIT_WRAPPERS, _wrap, unwrap


class Boom(Exception):
    pass


def test_emit_on_either_side_reaches_both():
    left, right = EventEmitter(), EventEmitter()
    _wrap(left, right, left, True)
    seen = []
    left.on("e", lambda v: seen.append(("left", v)))
    right.on("e", lambda v: seen.append(("right", v)))
    assert left.emit("e", 1) is True
    assert seen == [("left", 1), ("right", 1)]
    unwrap(left)


def test_handled_by_the_right_side_only_counts_as_handled():
    left, right = EventEmitter(), EventEmitter()
    _wrap(left, right, left, True)
    right.on("only_right", lambda: None)
    assert left.emit("only_right") is True
    assert left.emit("nobody") is False
    unwrap(left)


def test_new_listener_events_are_forwarded_only_when_asked():
    left, right = EventEmitter(), EventEmitter()
    got = []
    right.on("new_listener", lambda event, f: got.append(event))
    _wrap(left, right, left, False)
    left.emit("new_listener", "x", None)
    assert got == []
    unwrap(left)
    _wrap(left, right, left, True)
    left.emit("new_listener", "y", None)
    assert got == ["y"]
    unwrap(left)


def test_unhandled_errors_go_to_the_error_handler():
    left, right = EventEmitter(), EventEmitter()
    _wrap(left, right, right, True)
    with pytest.raises(Boom):
        left.emit("error", Boom("unhandled"))
    caught = []
    right.on("error", caught.append)
    error = Boom("handled on the right")
    assert left.emit("error", error) is True
    assert caught == [error]
    unwrap(left)


def test_the_error_handler_of_the_wrap_is_the_one_used():
    class Quiet(EventEmitter):
        def _emit_handle_potential_error(self, event, error):
            self.swallowed = (event, error)

    left, handler = EventEmitter(), Quiet()
    _wrap(left, EventEmitter(), handler, True)
    assert left.emit("error", "plain") is False
    assert handler.swallowed == ("error", "plain")
    left.emit("error")
    assert handler.swallowed == ("error", None)
    unwrap(left)


def test_unwrap_restores_emit_and_unwraps_the_other_side():
    left, right = EventEmitter(), EventEmitter()
    original_left, original_right = left.emit, right.emit
    _wrap(left, right, left, True)
    _wrap(right, left, right, True)
    assert left.emit != original_left and left in EMIT_WRAPPERS and right in EMIT_WRAPPERS
    assert left.emit.__wrapped__ == original_left
    unwrap(left)
    assert left.emit == original_left and right.emit == original_right
    assert left not in EMIT_WRAPPERS and right not in EMIT_WRAPPERS
    assert not hasattr(left, "unwrap")


def test_a_second_wrap_unwraps_back_to_the_first():
    left, middle, outer = EventEmitter(), EventEmitter(), EventEmitter()
    _wrap(left, middle, left, True)
    first_hook = EMIT_WRAPPERS[left]
    _wrap(left, outer, left, True)
    seen = []
    middle.on("e", lambda: seen.append("middle"))
    outer.on("e", lambda: seen.append("outer"))
    left.emit("e")
    assert seen == ["outer"]  # the second wrap replaced the first one's emit
    EMIT_WRAPPERS[left]()  # undo the second wrap only
    assert EMIT_WRAPPERS[left] is first_hook
    seen.clear()
    left.emit("e")
    assert seen == ["middle"]
    unwrap(left)
    assert left not in EMIT_WRAPPERS


def test_the_patched_unwrap_method_warns_and_unwraps():
    left, right = EventEmitter(), EventEmitter()
    original = left.emit
    _wrap(left, right, left, True)
    with pytest.warns(DeprecationWarning, match="pyee.uplift.unwrap"):
        left.unwrap()
    assert left.emit == original
