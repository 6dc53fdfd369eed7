"""Where a quest's test file goes, and how user-given paths map into the project.

Bug 11: generated test file names are short, readable, distinct and stable.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from pytest_quest.config import Settings
from pytest_quest.errors import UsageError
from pytest_quest.paths import (
    MAX_STEM,
    default_test_path,
    locked_by_others,
    open_default_paths,
    project_relative,
    quest_file_name,
)
from pytest_quest.quest import Quest
from pytest_quest.records import Evidence, EvidenceSource
from pytest_quest.states import State


@pytest.mark.parametrize(("quest_id", "name"), [
    ("hotel/pricing.py::nightly_rate", "test_hotel_pricing__nightly_rate.py"),
    ("hotel/rooms.py::Room.rate", "test_hotel_rooms__Room_rate.py"),
    ("src/geo/shapes.py::Shape.name", "test_geo_shapes__Shape_name.py"),
    ("tabulate/__init__.py::_CustomTextWrap.__len__",
     "test_tabulate__CustomTextWrap_len_1c9d43.py"),
    ("m.py::Room.size.setter", "test_m__Room_size_setter.py"),
])
def test_names_read_like_the_quest(quest_id: str, name: str) -> None:
    assert quest_file_name(quest_id) == name


def test_names_that_lose_characters_stay_distinct() -> None:
    ids = ["m.py::double", "m.py::_double", "m.py::__double__", "m.py::f@12", "m.py::f.at12",
           "pkg/__init__.py::f", "pkg/f.py::f"]
    # ``pkg/__init__.py`` and a ``pkg.py`` beside it cannot both be imported as ``pkg``,
    # so dropping ``__init__`` costs no distinctness a real project has.
    names = [quest_file_name(i) for i in ids]
    assert len(set(names)) == len(names)
    assert names[0] == "test_m__double.py" and names[1].startswith("test_m__double_")


def test_long_names_are_cut_and_kept_apart() -> None:
    base = "a/b/c/very_long_module_name_here.py::SomeQuiteLongClassName.some_long_method_"
    one, two = quest_file_name(base + "one"), quest_file_name(base + "two")
    assert one != two
    assert len(one) <= MAX_STEM + len("_123456.py")


def test_default_path_is_in_the_quest_folder(tmp_path: Path) -> None:
    quest = Quest(id="hotel/pricing.py::nightly_rate", path="hotel/pricing.py",
                  qualname="nightly_rate")
    settings = Settings(root=tmp_path, test_dir="qa/quest/")
    assert default_test_path(quest, settings, [quest.id]) == (
        "qa/quest/test_hotel_pricing__nightly_rate.py")
    with pytest.raises(UsageError, match="outside the project"):
        project_relative(tmp_path.parent / "x.py", settings)


def test_relative_paths_are_read_from_the_current_folder_inside_the_project(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "tests" / "quest").mkdir(parents=True)
    settings = Settings(root=tmp_path, sources=(".",))
    monkeypatch.chdir(tmp_path / "tests")
    assert project_relative("quest/test_a.py", settings) == "tests/quest/test_a.py"
    assert project_relative(tmp_path / "m.py", settings) == "m.py"


def test_relative_paths_from_outside_the_project_are_read_from_its_root(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(tmp_path)
    assert project_relative("tests/quest/t.py", Settings(root=root, sources=(".",))) == (
        "tests/quest/t.py")


def test_a_path_outside_the_project_is_a_usage_error(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    with pytest.raises(UsageError, match="outside the project"):
        project_relative(tmp_path / "elsewhere.py", Settings(root=root, sources=(".",)))
    with pytest.raises(UsageError):
        project_relative("../escape.py", Settings(root=root, sources=(".",)))


#: Red team 3, finding 05: pairs of ids whose readable names are the same file.
COLLIDING = [
    ("a.py::b.c", "a.py::b_c"),  # a method and a function
    ("a/b.py::c", "a_b.py::c"),  # a package and a module
    ("src/a.py::f", "a.py::f"),  # a src layout beside a flat module
    ("a.py::Rate", "a.py::rate"),  # one file on a case-insensitive file system (macOS)
]


@pytest.mark.parametrize("pair", COLLIDING, ids=["method", "package", "src", "case"])
def test_ids_that_read_the_same_get_distinct_names_in_one_ledger(pair: tuple[str, str]) -> None:
    one, two = pair
    alone = [quest_file_name(i) for i in pair]
    assert alone[0].casefold() == alone[1].casefold()  # the readable names collide
    names = [quest_file_name(i, [one, two, "z.py::g"]) for i in pair]
    assert names[0].casefold() != names[1].casefold()
    for quest_id, name in zip(pair, names, strict=True):
        # The readable name stays in front; the hash of the id keeps them apart, stably.
        assert name == alone[pair.index(quest_id)].removesuffix(".py") + "_" + \
            hashlib.sha256(quest_id.encode()).hexdigest()[:6] + ".py"
        assert quest_file_name(quest_id, reversed([one, two])) == name


def test_a_ledger_without_a_collision_keeps_the_readable_names() -> None:
    ids = ["hotel/pricing.py::nightly_rate", "hotel/rooms.py::Room.rate", "m.py::double",
           "m.py::_double", "src/geo/shapes.py::Shape.name"]
    assert [quest_file_name(i, ids) for i in ids] == [quest_file_name(i) for i in ids]
    assert quest_file_name("m.py::double", ids) == "test_m__double.py"


def test_a_lock_sitting_on_the_readable_name_moves_the_default_path(tmp_path: Path) -> None:
    # Red team 4, finding 02: quest A locked on the file ``next`` names for quest B
    # (``submit A --test tests/quest/test_hotel_rooms__find_room.py``, a good test of A). ``next``
    # still sent B's agent there: writing B's test broke A's lock and the submission spent a
    # try on scope-test-location.
    find = Quest(id="hotel/rooms.py::find_room", path="hotel/rooms.py", qualname="find_room")
    records = [
        {"id": find.id, "state": "TODO"},
        {"id": "hotel/rooms.py::Room.normalize_number", "state": "PASS",
         "evidence": {"test": "tests/quest/TEST_hotel_rooms__find_room.py"}},
        {"id": "hotel/rooms.py::Room.from_code", "state": "TODO",
         "evidence": {"test": "tests/quest/test_other.py"}},
    ]
    locked = locked_by_others(records, find.id)
    assert locked == {"tests/quest/TEST_hotel_rooms__find_room.py"}
    settings = Settings(root=tmp_path)
    ids = [r["id"] for r in records]
    moved = default_test_path(find, settings, ids, locked)
    assert moved == "tests/quest/test_hotel_rooms__find_room_" + \
        hashlib.sha256(find.id.encode()).hexdigest()[:6] + ".py"
    # Its own lock (or none) keeps the readable name.
    assert default_test_path(find, settings, ids, locked_by_others(records, records[1]["id"])) \
        == "tests/quest/test_hotel_rooms__find_room.py"
    # Both names taken on purpose (two locks): the path counts on, never onto a lock.
    hashed = moved
    both = {"tests/quest/test_hotel_rooms__find_room.py", hashed}
    assert default_test_path(find, settings, ids, both) == hashed.removesuffix(".py") + "_2.py"


def test_open_default_paths_give_each_todo_quest_what_next_gives_it(tmp_path: Path) -> None:
    """One pass over the ledger, the same names as default_test_path per quest."""
    settings = Settings(root=tmp_path)
    lock = Evidence(source=EvidenceSource.SUBMIT, time="now",
                    test="tests/quest/test_hotel_rooms__find_room.py", sha256="s")
    quests = [
        Quest(id="hotel/rooms.py::find_room", path="hotel/rooms.py", qualname="find_room"),
        Quest(id="a.py::b.c", path="a.py", qualname="b.c"),  # collides with a.py::b_c
        Quest(id="a.py::b_c", path="a.py", qualname="b_c"),
        Quest(id="m.py::_double", path="m.py", qualname="_double"),  # lossy alone
        Quest(id="m.py::plain", path="m.py", qualname="plain"),
        Quest(id="z.py::locker", path="z.py", qualname="locker", state=State.PASS,
              evidence=lock),  # sits on find_room's readable name
        Quest(id="z.py::done", path="z.py", qualname="done", state=State.REVIEW),
    ]
    ids = [q.id for q in quests]
    found = open_default_paths(quests, settings)
    assert found == {q.id: default_test_path(q, settings, ids, locked_by_others(quests, q.id))
                     for q in quests if q.state is State.TODO}
    assert found["m.py::plain"] == "tests/quest/test_m__plain.py"
    assert found["hotel/rooms.py::find_room"] != lock.test


def test_same_file_key_compares_names_as_macos_does() -> None:
    # Red team 5, finding 05: NFC "é" and NFD "e" + U+0301 name one file on macOS.
    from pytest_quest.paths import same_file_key

    assert same_file_key("tests/quest/test_caf\u00e9.py") == \
        same_file_key("tests/quest/TEST_CAFE\u0301.py")
    plain = same_file_key("tests/quest/test_cafe.py")
    assert plain != same_file_key("tests/quest/test_caf\u00e9.py")
