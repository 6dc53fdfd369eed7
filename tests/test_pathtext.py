"""pathtext.text_of: a path's text as CPython would make it, and None, with nothing of the
test run, once the test changed what ``os.fspath`` would run (red team 35)."""

from __future__ import annotations

import builtins
import os
import pathlib
import posixpath
import sys
from collections.abc import Callable, Iterator
from pathlib import Path, PosixPath, PurePath, PurePosixPath
from typing import Any

import pytest
from _pytest._py.path import LocalPath

from pytest_quest import hooked, pathtext
from pytest_quest.pathtext import freeze, text_of

OLD = sys.version_info < (3, 12)  # pathlib parses when a path is made, with a flavour object
#: The module whose globals pathlib's methods read (3.13: pathlib._local).
PATHLIB_GLOBALS = PurePath.__fspath__.__globals__


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    """Each test starts from the classes as they are, and leaves them trusted again (a
    ``__bases__`` put back is a new MRO all the same)."""
    freeze()
    yield
    freeze()


class Spy:
    """Counts its calls made while :meth:`read` runs ``text_of`` (and only then: the test's
    own ``str()`` calls are not the hook's)."""

    def __init__(self) -> None:
        self.calls = 0
        self.recording = False

    def wrap(self, real: Callable[..., Any]) -> Callable[..., Any]:
        def spy(*args: Any, **kwargs: Any) -> Any:
            if self.recording:
                self.calls += 1
            return real(*args, **kwargs)
        return spy

    def read(self, path: Any) -> str | None:
        self.recording = True
        try:
            return text_of(path)
        finally:
            self.recording = False


def _fresh_paths() -> list[PurePath]:
    """Paths none of which has its text cached yet (each made anew on every call)."""
    made: list[PurePath] = []
    for text in ["/a/b", "a/b", "//x", "///x", "////x/y", "a//b/./c", "", ".", "..", "a/",
                 "/", "//", "///", "/a/", "./a", "a/.", "a/../b", "~", " /sp ace",
                 "/tmp/ü/日本", os.fsdecode(b"/tmp/\xff\xfe/x"), "//a//b/"]:
        made += [Path(text), PurePosixPath(text)]
    made += [
        Path("a", "/b", "c"), Path("/x") / "y" / "/z" / "w", Path("/a") / "b" / "",
        PurePosixPath("//a") / "b", Path("a") / Path("//b"), Path(), PurePosixPath(),
        Path(Path("x"), "y"), Path("/r").joinpath("s", "//t", "u"), Path("a", "", "b"),
        Path("/a", "."), Path(".", "a"), Path("", "/"), Path("x", "//y", "z"),
        PurePosixPath("a") / "//b" / "c", Path("/tmp") / os.fsdecode(b"\xff"),
    ]
    return made


def _str_set(path: PurePath) -> bool:
    try:
        pathtext._GET_STR(path)
    except AttributeError:
        return False
    return True


def test_an_uncached_path_reads_as_str_makes_it_afterwards() -> None:
    for path in _fresh_paths():
        assert not _str_set(path), path
        read = text_of(path)
        assert not _str_set(path), "text_of caches nothing"
        assert read == str(path), (path, read)
        assert text_of(path) == str(path) == os.fspath(path)  # cached now


def test_paths_made_by_pathlib_from_parts_read_the_same() -> None:
    base = Path("/tmp/base")
    for path in [base.parent, base.with_name("x"), base.with_suffix(".txt"), base / "a" / "..",
                 Path("/a/b/c").relative_to("/a"), base.with_stem("s"),
                 PurePosixPath("/a/b").parent, *PurePosixPath("/a/b/c").parents]:
        assert text_of(path) == str(path)


def test_tmp_path_joins_read_before_any_fspath(tmp_path: Path) -> None:
    # shutil.copytree(tmp_path / "a", tmp_path / "b") raises its event with these objects
    source, target = tmp_path / "a", tmp_path / "b"
    assert (text_of(source), text_of(target)) == (f"{tmp_path}/a", f"{tmp_path}/b")


def test_str_bytes_and_hooked_reexport() -> None:
    assert text_of("/x/y") == "/x/y"
    assert text_of(b"/tmp/\xff") == "/tmp/\udcff"
    assert hooked.text_of(Path("/q")) == "/q"
    assert hooked.text_of is not None and "text_of" in hooked.__all__


def test_other_classes_are_none_and_nothing_of_theirs_runs() -> None:
    spy = Spy()

    class Text(str):
        def __add__(self, other: Any) -> Any:
            spy.calls += 1
            return str.__add__(self, other)

    class Like:
        def __fspath__(self) -> str:
            spy.calls += 1
            return "/etc/passwd"

    class Mine(PosixPath):
        pass

    for path in [Text("/x"), Like(), Mine("/x"), 3, None, bytearray(b"/x"),
                 pathlib.PureWindowsPath("c:/x")]:
        assert spy.read(path) is None
    assert spy.calls == 0


def _patched_reads(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str,
                   fresh: bool = False) -> tuple[Spy, list[str | None]]:
    """``owner.name`` replaced by a spy around it, then text_of of a path with its text cached
    (unless ``fresh``) and of one without."""
    spy = Spy()
    cached, uncached = Path("/tmp/x/y"), Path("/tmp") / "x" / "y"
    os.fspath(cached)
    monkeypatch.setattr(owner, name, spy.wrap(getattr(owner, name)))
    reads = [spy.read(uncached)] if fresh else [spy.read(cached), spy.read(uncached)]
    monkeypatch.undo()
    return spy, reads


@pytest.mark.parametrize("name", ["__fspath__", "__str__"])
def test_a_replaced_method_of_the_path_is_none_never_called(
        monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    # red team 35: sys.audit("open", PurePosixPath(...)) after PurePath.__fspath__ = spy
    spy, reads = _patched_reads(monkeypatch, PurePath, name)
    assert reads == [None, None] and spy.calls == 0


def test_the_same_method_set_on_a_subclass_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    spy, reads = _patched_reads(monkeypatch, PurePosixPath, "__fspath__")
    assert reads == [None, None] and spy.calls == 0


EVIL_CALLS: list[object] = []


def _evil_fspath(self: Any) -> str:  # no free variables: its code fits __fspath__
    EVIL_CALLS.append(self)
    return "/etc/passwd"


def test_replaced_code_of_fspath_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    EVIL_CALLS.clear()
    monkeypatch.setattr(PurePath.__fspath__, "__code__", _evil_fspath.__code__)
    read = text_of(Path("/tmp/x"))
    monkeypatch.undo()
    assert read is None and EVIL_CALLS == []


def test_a_getattribute_added_to_the_class_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    spy = Spy()
    monkeypatch.setattr(Path, "__getattribute__", spy.wrap(object.__getattribute__),
                        raising=False)
    read = spy.read(PosixPath("/tmp/x"))
    monkeypatch.undo()
    assert read is None and spy.calls == 0


def test_parsing_functions_replaced_make_an_uncached_path_none(
        monkeypatch: pytest.MonkeyPatch) -> None:
    spy, reads = _patched_reads(monkeypatch, PurePath, "_format_parsed_parts", fresh=True)
    assert reads == [None] and spy.calls == 0


def test_the_flavours_join_or_posixpath_join(monkeypatch: pytest.MonkeyPatch) -> None:
    """3.11 formats with its flavour's ``join`` ("/".join), 3.12 and 3.13 join the raw parts
    with ``posixpath.join``: either replaced, an uncached path is None. A cached path does
    not run them: its text stands."""
    owner = pathlib._posix_flavour if OLD else posixpath  # type: ignore[attr-defined]
    spy, reads = _patched_reads(monkeypatch, owner, "join")
    assert reads == ["/tmp/x/y", None] and spy.calls == 0
    if OLD:  # posixpath.join is none of 3.11's pathlib's business: read as before
        spy, reads = _patched_reads(monkeypatch, posixpath, "join")
        assert reads == ["/tmp/x/y", "/tmp/x/y"] and spy.calls == 0


def test_sys_intern_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    spy, reads = _patched_reads(monkeypatch, sys, "intern")
    # 3.12 and 3.13 intern each part as they parse; 3.11 parsed when the path was made
    assert reads == ["/tmp/x/y", "/tmp/x/y" if OLD else None] and spy.calls == 0


def test_builtins_str_replaced_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    spy, reads = _patched_reads(monkeypatch, builtins, "str")
    assert reads == [None, None] and spy.calls == 0


def test_a_str_in_pathlibs_globals_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    spy, path = Spy(), Path("/tmp/x")
    monkeypatch.setitem(PATHLIB_GLOBALS, "str", spy.wrap(str))
    read = spy.read(path)
    monkeypatch.undo()
    assert read is None and spy.calls == 0


def test_a_key_of_the_tests_class_in_pathlibs_globals_is_none() -> None:
    """A key with ``hash("str")`` would have its ``__eq__`` called by a lookup of ``str``."""
    calls = []

    class Key:
        def __hash__(self) -> int:
            return hash("str")

        def __eq__(self, other: object) -> bool:
            calls.append(other)
            return False

    key, path = Key(), Path("/tmp/x")  # made first: pathlib's own lookups would call it
    os.fspath(path)
    PATHLIB_GLOBALS[key] = 1  # type: ignore[index]
    try:
        calls.clear()
        read = text_of(path)
        seen = list(calls)
    finally:
        del PATHLIB_GLOBALS[key]  # type: ignore[arg-type]
    assert read is None and seen == []
    assert text_of(Path("/tmp/x")) == "/tmp/x"


def test_str_subclasses_in_the_slots_are_none() -> None:
    calls = []

    class Text(str):
        def __add__(self, other: Any) -> Any:
            calls.append(other)
            return str.__add__(self, other)

        def __radd__(self, other: Any) -> Any:
            calls.append(other)
            return str.__add__(other, self)

    cached = Path("/tmp/x")
    cached._str = Text("/tmp/x")  # type: ignore[attr-defined]
    root = PurePosixPath("/tmp/x")
    if OLD:
        root._root = Text("/")  # type: ignore[attr-defined]
        tail = PurePosixPath("/tmp/x")
        tail._parts = ["/", Text("tmp"), "x"]  # type: ignore[attr-defined]
        raw = PurePosixPath("/tmp/x")
        raw._parts = ("/", "tmp", "x")  # type: ignore[attr-defined]  # a tuple, not a list
    else:
        root._drv, root._root, root._tail_cached = "", Text("/"), ["tmp", "x"]  # type: ignore[attr-defined]
        tail = PurePosixPath("/tmp/x")
        tail._drv, tail._root, tail._tail_cached = "", "/", ["tmp", Text("x")]  # type: ignore[attr-defined]
        raw = PurePosixPath("/tmp/x")
        raw._raw_paths = [Text("/tmp/x")]  # type: ignore[attr-defined]
    for path in (cached, root, tail, raw):
        assert text_of(path) is None, path
    assert calls == []


@pytest.mark.skipif(OLD, reason="3.11 parses every slot when the path is made")
def test_slots_set_one_by_one_read_as_pathlib_reads_them() -> None:
    """``__str__`` asks for ``drive``, ``root`` and ``_tail`` in turn; the first one missing
    parses ``_raw_paths`` and sets all three."""
    for keep in ("_drv", "_root", "_tail_cached", None):
        path = PurePosixPath("/a//b/./c")
        path._drv, path._root, path._tail_cached = "", "//", ["q"]  # type: ignore[attr-defined]
        for slot in ("_drv", "_root", "_tail_cached"):
            if slot != keep and keep is not None:
                delattr(path, slot)
        read = text_of(path)
        assert read == str(path), keep


def test_a_replaced_bases_is_none() -> None:
    spy = Spy()

    class Between(PurePath):
        __slots__ = ()

        def __fspath__(self) -> str:
            if spy.recording:
                spy.calls += 1
            return PurePath.__fspath__(self)

    pure, concrete = PurePosixPath("/tmp/x"), PosixPath("/tmp/x")
    bases = PurePosixPath.__bases__  # not in the class's dict: monkeypatch would delete it
    PurePosixPath.__bases__ = (Between,)
    try:
        reads = [spy.read(pure), spy.read(concrete)]
    finally:
        PurePosixPath.__bases__ = bases
    assert reads == [None, None] and spy.calls == 0
    # put back, the MRO is a new tuple: not trusted until the next freeze
    assert text_of(PurePosixPath("/tmp/x")) is None
    freeze()
    assert text_of(PurePosixPath("/tmp/x")) == "/tmp/x"


def test_freeze_trusts_what_is_there_then(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: cls("/home/q")))
    assert text_of(Path("/tmp/x")) == "/tmp/x"  # an honest patch of another method
    spy = Spy()
    monkeypatch.setattr(PurePath, "__fspath__", spy.wrap(PurePath.__fspath__))
    assert spy.read(Path("/tmp/x")) is None
    freeze()  # a plugin's change before the test starts
    assert spy.read(Path("/tmp/x")) == "/tmp/x" and spy.calls == 0


def test_localpath_reads_its_strpath(tmpdir: LocalPath) -> None:
    assert text_of(tmpdir) == str(tmpdir)
    assert text_of(tmpdir / "a" / "b") == os.path.join(str(tmpdir), "a", "b")


@pytest.mark.parametrize("name", ["__fspath__", "strpath"])
def test_localpath_with_its_class_changed_is_none(
        monkeypatch: pytest.MonkeyPatch, tmpdir: LocalPath, name: str) -> None:
    spy = Spy()
    if name == "strpath":
        monkeypatch.setattr(LocalPath, "strpath", property(spy.wrap(lambda self: "/etc")),
                            raising=False)
    else:
        monkeypatch.setattr(LocalPath, name, spy.wrap(LocalPath.__fspath__))
    read = spy.read(tmpdir)
    monkeypatch.undo()
    assert read is None and spy.calls == 0
    assert text_of(tmpdir) == str(tmpdir)


def test_localpath_with_a_strange_dict_is_none(tmpdir: LocalPath) -> None:
    calls = []

    class Key:
        def __hash__(self) -> int:
            return hash("strpath")

        def __eq__(self, other: object) -> bool:
            calls.append(other)
            return False

    path = LocalPath(str(tmpdir))
    vars(path)[Key()] = 1
    calls.clear()
    assert text_of(path) is None and calls == []
    other = LocalPath(str(tmpdir))
    other.strpath = type("Text", (str,), {})(str(tmpdir))
    assert text_of(other) is None


def test_the_flavour_given_another_class_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    """3.11's flavour object or posixpath (3.12, 3.13) of a class of the test's: its
    ``__getattribute__`` would run when pathlib formats an uncached path."""
    owner = pathlib._posix_flavour if OLD else posixpath  # type: ignore[attr-defined]
    spy = Spy()

    class Other(type(owner)):  # type: ignore[misc]
        def __getattribute__(self, name: str) -> Any:
            if spy.recording:
                spy.calls += 1
            return super().__getattribute__(name)

    path = Path("/tmp") / "x"
    monkeypatch.setattr(owner, "__class__", Other)
    read = spy.read(path)
    monkeypatch.undo()
    assert read is None and spy.calls == 0
    assert text_of(path) == "/tmp/x"


@pytest.mark.skipif(not OLD, reason="3.11's flavour is an object with a __dict__")
def test_the_flavours_dict_replaced_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    flavour = pathlib._posix_flavour  # type: ignore[attr-defined]
    spy = Spy()
    path = PurePosixPath("/tmp/x")
    monkeypatch.setattr(flavour, "__dict__", {"join": spy.wrap("/".join)})
    read = spy.read(path)
    monkeypatch.undo()
    assert read is None and spy.calls == 0


def test_a_namespace_is_read_by_name_only_while_its_keys_are_exact_str() -> None:
    """The size shortcut: a dict holding only exact ``str`` keys keeps its compact table;
    one other key turns it for good (the keys are then checked one by one)."""
    space = {f"name{number}": number for number in range(50)}
    names = pathtext._Names(space)
    assert sys.getsizeof(space) in pathtext._UNICODE_SIZES and names.safe()

    class Key(str):
        pass

    space[Key("other")] = 1
    assert sys.getsizeof(space) not in pathtext._UNICODE_SIZES and not names.safe()
    del space[Key("other")]
    assert sys.getsizeof(space) not in pathtext._UNICODE_SIZES and names.safe()
    space[3] = 3  # type: ignore[index]
    assert not names.safe()
