"""The run's one audit hook: it checks our run code is unchanged before the hooks judge."""

from __future__ import annotations

import dis
import os
import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_quest import forkrun
from pytest_quest.hooked import CONTROL
from pytest_quest.protocol import READ_RECORD
from pytest_quest.seal import run_modules, seal

SOURCE = '''
TABLE = {"a": 1}
ITEMS = [1, 2]

class Base:
    pass

class Judge(Base):
    def check(self):
        return "judged"

def helper(x=1):
    return x
'''


class Recorder:
    """A hook that keeps what it was called with."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        self.events.append(event)


@pytest.fixture
def module() -> Iterator[types.ModuleType]:
    made = types.ModuleType("pytest_quest_sealed_example")
    exec(compile(SOURCE, "<sealed>", "exec"), vars(made))
    yield made


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read, write = os.pipe()
    os.set_blocking(read, False)
    yield read, write
    os.close(read)
    os.close(write)


def _told(read: int) -> list[str]:
    try:
        data = os.read(read, 65536)
    except BlockingIOError:
        return []
    return [bytes.fromhex(line.removeprefix(READ_RECORD).decode()).decode()
            for line in data.splitlines()]


def _started(module: types.ModuleType, fd: int | None) -> tuple[Any, Recorder]:
    hook = Recorder()
    sealed = seal([hook], [module], fd)
    sealed(CONTROL, ("start",))
    return sealed, hook


def test_unchanged_code_is_no_finding_and_every_event_reaches_the_hooks(
        module: types.ModuleType, pipe: tuple[int, int]) -> None:
    sealed, hook = _started(module, pipe[1])
    sealed("open", ("x", "r", 0))
    module.Judge().check()  # using our code changes nothing
    sealed("import", ("x",))
    assert hook.events == [CONTROL, "open", "import"]
    assert _told(pipe[0]) == []


@pytest.mark.parametrize("change, where", [
    (lambda m: setattr(m.Judge, "check", lambda self: "quiet"), "Judge"),
    (lambda m: setattr(m.Judge, "extra", 1), "Judge"),
    (lambda m: delattr(m.Judge, "check"), "Judge"),
    (lambda m: setattr(m, "helper", print), "pytest_quest_sealed_example"),
    (lambda m: m.TABLE.__setitem__("a", 2), "TABLE"),
    (lambda m: m.ITEMS.append(3), "ITEMS"),
    (lambda m: setattr(m.Judge, "__bases__", (type("Other", (), {}),)), "__bases__"),
])
def test_a_change_of_our_code_after_the_start_is_told_at_the_next_event(
        module: types.ModuleType, pipe: tuple[int, int], change: Any, where: str) -> None:
    sealed, hook = _started(module, pipe[1])
    change(module)
    sealed("open", ("x", "r", 0))
    sealed("open", ("y", "r", 0))  # told once
    told = _told(pipe[0])
    assert len(told) == 1 and told[0].startswith("changed pytest-quest's own code in the run")
    assert where in told[0]
    assert hook.events == [CONTROL, "open", "open"]  # the hooks still judge


def test_a_key_swapped_for_an_equal_one_is_a_change(module: types.ModuleType,
                                                    pipe: tuple[int, int]) -> None:
    class Sly(str):
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = str.__hash__

    sealed, _ = _started(module, pipe[1])
    value = vars(module).pop("ITEMS")
    vars(module)[Sly("ITEMS")] = value  # same value, a key of the test's, at the same end
    sealed("open", ("x", "r", 0))
    assert _told(pipe[0])


def test_before_the_start_nothing_is_checked(module: types.ModuleType,
                                             pipe: tuple[int, int]) -> None:
    hook = Recorder()
    sealed = seal([hook], [module], pipe[1])
    module.Judge.check = lambda self: "changed before"  # our own code's setup, not the test's
    sealed("open", ("x", "r", 0))
    sealed(CONTROL, ("start",))
    sealed("open", ("x", "r", 0))
    assert _told(pipe[0]) == []


@pytest.mark.parametrize("attr", ["__code__", "__defaults__", "__kwdefaults__"])
def test_a_store_to_what_our_function_runs_is_refused_and_told(
        module: types.ModuleType, pipe: tuple[int, int], attr: str) -> None:
    sealed, _ = _started(module, pipe[1])
    with pytest.raises(PermissionError, match=attr):
        sealed("object.__setattr__", (module.helper, attr, None))
    with pytest.raises(PermissionError):
        sealed("object.__setattr__", (vars(module.Judge)["check"], attr, None))
    assert _told(pipe[0]) == [f"changed {attr} of pytest-quest's own "
                              "pytest_quest_sealed_example.helper"]


def test_a_store_to_another_function_is_the_hooks_business(module: types.ModuleType,
                                                          pipe: tuple[int, int]) -> None:
    sealed, hook = _started(module, pipe[1])

    def other() -> None:
        pass

    sealed("object.__setattr__", (other, "__code__", None))
    sealed("object.__setattr__", (module.helper, "__doc__", None))
    assert _told(pipe[0]) == [] and hook.events[-2:] == ["object.__setattr__"] * 2


def test_events_raised_inside_a_hook_reach_the_hooks_unchecked(module: types.ModuleType,
                                                               pipe: tuple[int, int]) -> None:
    """The check runs once per event that called the hooks, not again for their own events."""
    calls: list[str] = []
    sealed: Any = None

    class Nested:
        def __call__(self, event: str, args: tuple[Any, ...]) -> None:
            calls.append(event)
            if event == "outer":
                sealed("inner", ())

    hook = Nested()
    sealed = seal([hook], [module], pipe[1])
    sealed(CONTROL, ("start",))
    module.Judge.check = lambda self: "x"
    sealed("outer", ())
    assert calls == [CONTROL, "outer", "inner"] and len(_told(pipe[0])) == 1


def test_the_closure_looks_up_no_global_and_no_builtin() -> None:
    """A module's globals and the builtins' dict are the test's to change."""
    inner = [c for c in seal.__code__.co_consts if isinstance(c, types.CodeType)
             and c.co_name in ("sealed", "refused", "changed", "tell", "take")]
    assert len(inner) == 5
    for code in inner:
        loads = [i.argval for i in dis.get_instructions(code) if i.opname == "LOAD_GLOBAL"]
        assert loads == [], code.co_name


def test_the_run_modules_are_the_hooks_and_what_they_use_of_ours() -> None:
    names = {m.__name__ for m in run_modules([sys.modules[n] for n in forkrun._SEALED])}
    assert set(forkrun._SEALED) <= names
    assert "pytest_quest.protocol" in names and "pytest_quest.forkrun" not in names


def test_a_warning_attributed_to_our_module_is_no_change(module: types.ModuleType,
                                                         pipe: tuple[int, int]) -> None:
    """``warnings.warn`` fills ``__warningregistry__`` in the globals of the frame it names."""
    exec("import warnings\ndef warn():\n    warnings.warn('old', DeprecationWarning)\n",
         vars(module))
    sealed, _ = _started(module, pipe[1])
    with pytest.warns(DeprecationWarning, match="old"):
        module.warn()
    sealed("open", ("x", "r", 0))
    assert _told(pipe[0]) == []


def test_a_container_held_in_a_tuple_is_in_the_picture(pipe: tuple[int, int]) -> None:
    """Red team 41 changed the watch's saved loader states: dicts inside a tuple."""
    made = types.ModuleType("pytest_quest_sealed_states")
    made.STATES = ((int, ({"get_data": len},)),)  # type: ignore[attr-defined]
    sealed, _ = _started(made, pipe[1])
    sealed("open", ("x", "r", 0))
    assert _told(pipe[0]) == []
    made.STATES[0][1][0]["get_data"] = print  # type: ignore[attr-defined]
    sealed("open", ("x", "r", 0))
    assert _told(pipe[0]) == [
        "changed pytest-quest's own code in the run "
        "(pytest_quest_sealed_states.STATES[0][1][0])"]


class Stateful:
    """A hook with state of its own: a phase it holds, a name that may change."""

    CHANGING = frozenset({"label"})

    def __init__(self, phase: Any) -> None:
        self.phase, self.label, self.seen = phase, "", []

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        self.seen.append(event)


def test_the_hooks_own_objects_keep_their_attributes(pipe: tuple[int, int]) -> None:
    """Red team 41 reached the watch from code the watch ran and set its phase to nothing."""
    from pytest_quest.hooked import Phase

    made = types.ModuleType("pytest_quest_sealed_hooks")
    made.Stateful = Stateful  # type: ignore[attr-defined]
    phase = Phase()
    hook = Stateful(phase)
    sealed = seal([hook], [made, sys.modules["pytest_quest.hooked"]], pipe[1])
    sealed(CONTROL, ("start",))
    hook.label = "t.py::test_a"  # CHANGING: no finding
    hook.seen.append("more")  # a container's content: no finding
    sealed("open", ("x", "r", 0))
    assert _told(pipe[0]) == []
    phase.now = None  # type: ignore[assignment]
    sealed("open", ("x", "r", 0))
    assert _told(pipe[0]) == ["changed pytest-quest's own code in the run (a Phase of the run's "
                              "hooks)"]


def test_an_attribute_added_to_a_hook_is_a_change(pipe: tuple[int, int]) -> None:
    hook = Stateful(None)
    made = types.ModuleType("pytest_quest_sealed_hooks")
    sealed = seal([hook], [made], pipe[1])
    sealed(CONTROL, ("start",))
    vars(hook)["__call__"] = print  # would shadow a method looked up on the instance
    sealed("open", ("x", "r", 0))
    assert _told(pipe[0]) == ["changed pytest-quest's own code in the run (a Stateful of the "
                              "run's hooks)"]


def test_only_the_events_the_hooks_judge_are_checked(module: types.ModuleType,
                                                     pipe: tuple[int, int]) -> None:
    from pytest_quest.seal import Judged

    hook = Recorder()
    sealed = seal([hook], [module], pipe[1],
                  judged=Judged(frozenset({"open", "object.__getattr__"}), ("ctypes.",),
                                frozenset({"__code__"})))
    sealed(CONTROL, ("start",))
    module.Judge.check = lambda self: "quiet"
    sealed("builtins.id", (1,))  # judged by no hook: a change can hide nothing there
    sealed("object.__getattr__", (len, "__defaults__"))
    assert _told(pipe[0]) == [] and hook.events[-2:] == ["builtins.id", "object.__getattr__"]
    sealed("ctypes.dlopen", ("x",))
    assert len(_told(pipe[0])) == 1


def _event_names(function: Any) -> set[str]:
    """The event names a hook's dispatch compares ``event`` with (``==``, ``in``)."""
    import ast
    import inspect
    import textwrap

    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and \
                node.left.id == "event" and isinstance(node.ops[0], ast.Eq | ast.In):
            for part in ast.walk(node.comparators[0]):
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    names.add(part.value)
                elif isinstance(part, ast.Name) and part.id.isupper():
                    value = vars(sys.modules[function.__module__])[part.id]
                    names |= set(value) if not isinstance(value, str) else {value}
    return names


def test_every_event_a_hook_judges_is_checked_before_it() -> None:
    """The seal's list of judged events is the hooks' own dispatch, no event left out."""
    from pytest_quest.runparts import GUARDED, Guard
    from pytest_quest.watch import JUDGED, JUDGED_PREFIXES, Watch

    watched = _event_names(Watch._judge)
    assert watched and all(name in JUDGED or name.startswith(JUDGED_PREFIXES)
                           for name in watched)
    guarded = _event_names(Guard.__call__) - {CONTROL}
    assert guarded and guarded <= GUARDED


@pytest.mark.parametrize("args, checked", [
    (("/srv/data/other.py", "r", 0), False),  # read, and not the target: nothing to hide
    (("/srv/hotel/pricing.py", "r", 0), True),
    (("pricing.py", "rb", 0), True),
    (("/srv/data/other.py", "w", 0), True),  # a write: the guard's
    (("/srv/data/other.py", None, os.O_WRONLY), True),
    ((b"/srv/data/other.py", "r", 0), True),  # not text: judged
    (("/srv/data/other.py",), True),
])
def test_a_file_read_is_checked_only_when_it_could_be_the_target(
        module: types.ModuleType, pipe: tuple[int, int], args: tuple[Any, ...],
        checked: bool) -> None:
    from pytest_quest.seal import Judged

    sealed = seal([Recorder()], [module], pipe[1],
                  judged=Judged(frozenset({"open"}), (), frozenset(), "pricing.py"))
    sealed(CONTROL, ("start",))
    module.Judge.check = lambda self: "quiet"
    sealed("open", args)
    assert bool(_told(pipe[0])) is checked


def test_a_code_read_outside_the_targets_module_is_not_checked(
        module: types.ModuleType, pipe: tuple[int, int]) -> None:
    """The recorder reads every frame's code in the measured run, two events a call: only a
    function's or frame's of the target's module could be the target's."""
    from pytest_quest.seal import Judged

    sys.modules[module.__name__] = module
    try:
        sealed = seal([Recorder()], [module], pipe[1], judged=Judged(
            frozenset({"object.__getattr__"}), (), frozenset({"__code__", "f_code"}),
            "pricing.py", module.__name__))
        sealed(CONTROL, ("start",))
        module.Judge.check = lambda self: "quiet"

        def elsewhere() -> None:
            pass

        sealed("object.__getattr__", (elsewhere, "__code__"))
        sealed("object.__getattr__", (sys._getframe(), "f_code"))
        assert _told(pipe[0]) == []
        here = sys._getframe()
        sealed("object.__getattr__", (here, "f_code"))  # not the target's module
        assert _told(pipe[0]) == []
        sealed("object.__getattr__", (module.helper, "__code__"))  # the target's module
        assert len(_told(pipe[0])) == 1
    finally:
        del sys.modules[module.__name__]


def test_a_frame_of_the_targets_module_off_the_targets_lines_is_not_checked(
        module: types.ModuleType, pipe: tuple[int, int]) -> None:
    from pytest_quest.seal import Judged

    exec(compile("import sys\ndef where():\n    return sys._getframe()\n", "<sealed>", "exec"),
         vars(module))
    sys.modules[module.__name__] = module
    try:
        for lines, checked in (((100, 120), False), ((1, 5), True)):
            sealed = seal([Recorder()], [module], pipe[1], judged=Judged(
                frozenset({"object.__getattr__"}), (), frozenset({"f_code"}), "pricing.py",
                module.__name__, lines))
            sealed(CONTROL, ("start",))
            saved = vars(module.Judge)["check"]
            module.Judge.check = lambda self: "quiet"
            sealed("object.__getattr__", (module.where(), "f_code"))  # a frame on line 3
            module.Judge.check = saved
            assert bool(_told(pipe[0])) is checked
    finally:
        del sys.modules[module.__name__]


def test_events_raised_while_the_picture_is_taken_reach_no_hook(
        module: types.ModuleType) -> None:
    """Taking the picture calls ``id()`` thousands of times, each an audit event; no code of
    the test's exists yet (its module is imported after ``start``), and judging each one made
    the picture four times as dear. Afterwards every event reaches the hooks again."""
    hook = Recorder()
    sealed: list[Any] = []

    class Nested:
        """A value of the module's the picture looks into: it raises an event meanwhile."""

        def __getattr__(self, name: str) -> Any:
            sealed[0]("while.taking", ())
            raise AttributeError(name)

    vars(module)["HELD"] = Nested()
    sealed.append(seal([hook], [module], None))
    sealed[0](CONTROL, ("start",))
    assert hook.events == [CONTROL]
    sealed[0]("after.taking", ())
    assert hook.events == [CONTROL, "after.taking"]
