"""Which tests the first schedule leaves out: only those that name nothing reaching the target.

Each case is a rule of :mod:`pytest_quest.selection` firing (a test left out, or the file
run whole) and one where it does not. Leaving a test out wrongly costs a second schedule,
never a verdict (``test_mutate``); keeping one wrongly costs time only.
"""

from __future__ import annotations

import textwrap

import pytest

from pytest_quest.selection import MAX_TEST_BYTES, item_key, unreachable_tests

TARGET = textwrap.dedent("""\
    import re

    def target(x):
        return x + 1

    def caller(x):
        return target(x) * 2

    def far_caller(x):
        return caller(x)

    def unrelated(x):
        return x

    TABLE = {"t": target}

    def by_table(key, x):
        return TABLE[key](x)

    class Box:
        def method(self, x):
            return x

        def uses(self, x):
            return target(x)
    """)
DEF_LINE = 3


def left_out(test: str, source: str = TARGET, line: int = DEF_LINE) -> frozenset[str]:
    return unreachable_tests(textwrap.dedent(test), source, line)


def test_item_keys_drop_the_file_and_the_parameters() -> None:
    assert item_key("tests/test_x.py::test_a") == "test_a"
    assert item_key("tests/test_x.py::TestA::test_b[1-x::y]") == "TestA::test_b"
    assert item_key("test_x.py") == ""


def test_a_test_naming_nothing_that_reaches_the_target_is_left_out() -> None:
    assert left_out("""
        from m import target, unrelated

        def test_target():
            assert target(1) == 2

        def test_unrelated():
            assert unrelated(1) == 1
        """) == {"test_unrelated"}


@pytest.mark.parametrize("call", [
    "caller(1)",        # calls it
    "far_caller(1)",    # two hops away
    "by_table('t', 1)",  # through a module constant
    "m.target(1)",      # by attribute
    "Box().uses(1)",    # a method that calls it
    "getattr(m, 'target')(1)",  # by a string naming it
])
def test_a_test_reaching_the_target_through_the_module_is_kept(call: str) -> None:
    assert left_out(f"""
        import m
        from m import Box, by_table, caller, far_caller, target, unrelated

        def test_reaching():
            assert {call}

        def test_unrelated():
            assert unrelated(1) == 1
        """) == {"test_unrelated"}


def test_one_import_of_many_names_marks_only_the_reaching_ones() -> None:
    assert left_out("""
        from m import (target, unrelated,
                       caller)

        def test_target():
            assert target(1) == 2

        def test_unrelated():
            assert unrelated(1) == 1
        """) == {"test_unrelated"}


def test_an_alias_reaches_as_its_name() -> None:
    assert left_out("""
        from m import target as plus_one, unrelated

        def test_alias():
            assert plus_one(1) == 2

        def test_unrelated():
            assert unrelated(1) == 1
        """) == {"test_unrelated"}


def test_helpers_constants_and_fixtures_of_the_test_file_carry_the_reach() -> None:
    assert left_out("""
        import pytest
        from m import target, unrelated

        EXPECTED = target(1)

        def check(x):
            return target(x)

        @pytest.fixture
        def value():
            return target(2)

        @pytest.fixture(name="renamed")
        def _value():
            return target(3)

        def test_constant():
            assert EXPECTED == 2

        def test_helper():
            assert check(1) == 2

        def test_fixture(value):
            assert value == 3

        def test_renamed(renamed):
            assert renamed == 4

        def test_unrelated(tmp_path):
            assert unrelated(1) == 1
        """) == {"test_unrelated"}


def test_a_fixture_this_file_does_not_define_may_reach_it() -> None:
    # A conftest's or a plugin's fixture: unknown here, so the test stays.
    assert left_out("""
        import pytest
        from m import target, unrelated

        @pytest.fixture
        def local(from_conftest):
            return 1

        def test_target():
            assert target(1) == 2

        def test_conftest(from_conftest):
            assert unrelated(from_conftest)

        def test_through_local(local):
            assert unrelated(local)

        @pytest.mark.usefixtures("from_conftest")
        def test_marked():
            assert unrelated(1)

        def test_builtin(monkeypatch, tmp_path):
            assert unrelated(1)
        """) == {"test_builtin"}


def test_parametrized_arguments_are_not_fixtures() -> None:
    assert left_out("""
        import pytest
        from m import target, unrelated

        @pytest.mark.parametrize("x, y", [(1, 2)])
        def test_target(x, y):
            assert target(x) == y

        @pytest.mark.parametrize(("a", "b"), [(1, 1)])
        def test_unrelated(a, b):
            assert unrelated(a) == b
        """) == {"test_unrelated"}


def test_test_classes_are_judged_method_by_method() -> None:
    assert left_out("""
        from m import target, unrelated

        class TestMany:
            def test_target(self):
                assert target(1) == 2

            def test_unrelated(self):
                assert unrelated(1) == 1

            def helper(self):
                return target(5)

            def test_through_helper(self):
                assert self.helper() == 6
        """) == {"TestMany::test_unrelated"}


@pytest.mark.parametrize("set_up", [
    "def setup_method(self):\n                self.value = target(1)",
    "value = target(1)",
    "@pytest.fixture(autouse=True)\n            def _auto(self):\n                target(1)",
])
def test_a_class_whose_set_up_reaches_the_target_runs_whole(set_up: str) -> None:
    assert left_out(f"""
        import pytest
        from m import target, unrelated

        class TestSetUp:
            {set_up}

            def test_unrelated(self):
                assert unrelated(1) == 1

        def test_target():
            assert target(1) == 2

        def test_other():
            assert unrelated(2) == 2
        """) == {"test_other"}


def test_a_class_with_bases_from_elsewhere_runs_whole() -> None:
    assert left_out("""
        from helpers import Base
        from m import target, unrelated

        class TestInherited(Base):
            def test_unrelated(self):
                assert unrelated(1) == 1

        def test_target():
            assert target(1) == 2
        """) == frozenset()  # nothing left out but test_target's own file functions
    assert left_out("""
        import unittest
        from m import target, unrelated

        class TestPlain(unittest.TestCase):
            def test_unrelated(self):
                assert unrelated(1) == 1

        def test_target():
            assert target(1) == 2
        """) == {"TestPlain::test_unrelated"}


@pytest.mark.parametrize("module_code", [
    "assert target(1) == 2",  # runs at import and binds nothing
    "def setup_module():\n    target(1)",
    "def pytest_generate_tests(metafunc):\n    target(1)",
    "@pytest.fixture(autouse=True)\ndef _auto():\n    target(1)",
    "if True:\n    def test_hidden():\n        assert target(1) == 2",
])
def test_a_file_reaching_the_target_outside_its_tests_runs_whole(module_code: str) -> None:
    assert left_out(f"""
        import pytest
        from m import target, unrelated

{textwrap.indent(module_code, "        ")}

        def test_target():
            assert target(1) == 2

        def test_unrelated():
            assert unrelated(1) == 1
        """) == frozenset()


@pytest.mark.parametrize(("source", "line"), [
    ("class A:\n    def __eq__(self, other):\n        return True\n", 2),  # called by ==
    ("import app\n\n@app.route('/x')\ndef view():\n    return 1\n", 3),       # registered
    ("def f(:\n", 1),                                                         # no parse
    ("def f():\n    return 1\n", 5),                                          # no def there
])
def test_targets_a_name_does_not_show_being_called_leave_nothing_out(source: str,
                                                                     line: int) -> None:
    assert left_out("""
        def test_one():
            assert True

        def test_two():
            assert True
        """, source, line) == frozenset()


def test_plain_decorators_keep_the_target_called_by_its_name() -> None:
    source = "import functools\n\n@functools.lru_cache\ndef target(x):\n    return x\n"
    assert left_out("""
        from m import target

        def test_target():
            assert target(1) == 1

        def test_nothing():
            assert True
        """, source, 3) == {"test_nothing"}


def test_a_file_where_nothing_reaches_the_target_leaves_nothing_out() -> None:
    # Every test would be left out: the target is reached some way a name does not show.
    assert left_out("""
        from m import unrelated

        def test_unrelated():
            assert unrelated(1) == 1
        """) == frozenset()


def test_a_test_file_that_does_not_parse_leaves_nothing_out() -> None:
    assert unreachable_tests("def test(:\n", TARGET, DEF_LINE) == frozenset()


def test_a_long_chain_of_helpers_is_read_once_per_node() -> None:
    # One hop after another, 3,000 helpers: a reading that went over the file once per hop
    # took minutes (red team 67 timed a 97 KB file out of the gate).
    lines = ["from m import target, unrelated", "def h0(x):\n    return target(x)"]
    lines += [f"def h{i}(x):\n    return h{i - 1}(x)" for i in range(1, 3000)]
    lines += ["def test_far():\n    assert h2999(1) == 2",
              "def test_unrelated():\n    assert unrelated(1) == 1"]
    left = unreachable_tests("\n".join(lines), TARGET, DEF_LINE)
    assert "test_unrelated" in left and "test_far" not in left and "h0" not in left


def test_the_test_file_is_decoded_as_python_decodes_it() -> None:
    # Behind ``unicode_escape`` the checks are code; read as UTF-8 they were a comment.
    hidden = (b"# -*- coding: unicode_escape -*-\n"
              b"from m import target, unrelated\n"
              b"def test_hidden():\n"
              b"    pass  # \\n    assert target(1) == 2\n"
              b"def test_unrelated():\n"
              b"    assert unrelated(1) == 1\n")
    assert unreachable_tests(hidden, TARGET, DEF_LINE) == {"test_unrelated"}
    with_bom = b"\xef\xbb\xbf" + textwrap.dedent("""\
        from m import target, unrelated
        def test_target():
            assert target(1) == 2
        def test_unrelated():
            assert unrelated(1) == 1
        """).encode()
    assert unreachable_tests(with_bom, TARGET, DEF_LINE) == {"test_unrelated"}


def test_a_test_file_too_large_to_be_worth_reading_is_run_whole() -> None:
    text = "def test_a():\n    assert True\n" + "# padding\n" * (MAX_TEST_BYTES // 10)
    assert unreachable_tests(text, TARGET, DEF_LINE) == frozenset()


@pytest.mark.parametrize("mark", [
    'pytestmark = pytest.mark.usefixtures("rates")',       # a fixture of the file that reaches
    'pytestmark = [pytest.mark.usefixtures("from_conftest")]',  # one it does not define
])
def test_a_module_mark_asking_for_a_reaching_fixture_runs_the_file_whole(mark: str) -> None:
    # Red team 68: every test was left out, and the selected runs ran nothing.
    assert left_out(f"""
        import pytest
        from m import target, unrelated

        SEEN = {{}}

        @pytest.fixture
        def rates():
            SEEN["one"] = target(1)

        {mark}

        def test_seen():
            assert SEEN["one"] == 2

        def test_unrelated():
            assert unrelated(1) == 1
        """) == frozenset()


def test_a_class_mark_asking_for_a_fixture_the_file_does_not_define_keeps_the_class() -> None:
    assert left_out("""
        import pytest
        from m import target, unrelated

        @pytest.mark.usefixtures("from_conftest")
        class TestMarked:
            def test_seen(self):
                assert unrelated(1) == 1

        class TestInside:
            pytestmark = pytest.mark.usefixtures("from_conftest")

            def test_seen(self):
                assert unrelated(1) == 1

        def test_target():
            assert target(1) == 2

        def test_unrelated(monkeypatch):
            assert unrelated(1) == 1
        """) == {"test_unrelated"}


def test_a_file_whose_every_test_is_left_out_leaves_nothing_out() -> None:
    # A fixture reaches it, but no test asks for it by a name the reading sees.
    assert left_out("""
        import pytest
        from m import target, unrelated

        @pytest.fixture
        def value():
            return target(1)

        def test_unrelated():
            assert unrelated(1) == 1
        """) == frozenset()
