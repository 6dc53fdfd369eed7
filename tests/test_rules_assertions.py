# ruff: noqa: E501  (embedded test sources read better on one line)
"""Unit tests of the assertion rules (pytest_quest/rules/assertions.py): does every collected test
check something that can fail? One source that fires each rule and close variants that stay quiet.
"""

from __future__ import annotations

import pytest

from tests.test_rules_static import _ASSERT, _HEAD, TEST_REL, _fired, facts, rules

# --- static-no-assertion ----------------------------------------------------

@pytest.mark.parametrize("body", [
    "def test_x():\n    nightly_rate(1, 'low', 1)\n",
    "def test_x():\n    r = nightly_rate(1, 'low', 1)\n    print(r)\n",
    # an assertion that can never run
    "def test_x():\n    nightly_rate(1, 'low', 1)\n    return\n    assert nightly_rate(1, 'low', 1) == 0.8\n",
    "def test_x():\n    if False:\n        assert nightly_rate(1, 'low', 1) == 0.8\n",
    "def test_x():\n    for _ in []:\n        assert nightly_rate(1, 'low', 1) == 0.8\n",
    # a nested function with the assertion, never called
    "def test_x():\n    def inner():\n        assert nightly_rate(1, 'low', 1) == 0.8\n",
    # a helper that checks nothing
    "def check(v):\n    return v == 0.8\n\ndef test_x():\n    check(nightly_rate(1, 'low', 1))\n",
    # ... handed on to be called
    "def check(v):\n    return v == 0.8\n\n"
    "def test_x():\n    list(map(check, [nightly_rate(1, 'low', 1)]))\n",
])
def test_no_assertion_fires(body: str) -> None:
    found = facts("from hotel.pricing import nightly_rate\n" + body)
    assert [f.rule for f in found] == ["static-no-assertion"]
    assert "test_x" in found[0].expected


@pytest.mark.parametrize("body", [
    "def check(v):\n    assert v == 0.8\n\ndef test_x():\n    check(nightly_rate(1, 'low', 1))\n",
    "def check(v):\n    assert v == 0.8\n\ndef deeper(v):\n    check(v)\n\n"
    "def test_x():\n    deeper(nightly_rate(1, 'low', 1))\n",
    "def test_x():\n    def inner():\n        assert nightly_rate(1, 'low', 1) == 0.8\n    inner()\n",
    "import unittest\nclass TestX(unittest.TestCase):\n    def helper(self):\n"
    "        self.assertEqual(nightly_rate(1, 'low', 1), 0.8)\n"
    "    def test_x(self):\n        self.helper()\n",
    "def test_x():\n    m = object()\n    m.assert_called_once_with(1)\n",
    "import pytest\ndef test_x():\n    pytest.raises(ValueError, nightly_rate, 1, 'low', 0)\n",
    "import pytest\ndef test_x():\n    with pytest.warns(UserWarning):\n        nightly_rate(1, 'low', 1)\n",
    "import pytest\n@pytest.fixture\ndef rate():\n    r = nightly_rate(1, 'low', 1)\n"
    "    assert r == 0.8\n    return r\n\ndef test_x(rate):\n    nightly_rate(1, 'low', 1)\n",
    "def test_x():\n    if nightly_rate(1, 'low', 1) != 0.8:\n"
    "        raise AssertionError('wrong')\n",
    "def test_x():\n    assert nightly_rate(1, 'low', 1) == __import__('pytest').approx(0.8)\n",
    # a helper handed on to be called (red team 61's false FAILs)
    "def check(case):\n    assert nightly_rate(*case) == 0.8\n\n"
    "def test_x():\n    list(map(check, [(1, 'low', 1)]))\n",
    "import concurrent.futures\ndef check():\n    assert nightly_rate(1, 'low', 1) == 0.8\n\n"
    "def test_x():\n    with concurrent.futures.ThreadPoolExecutor(2) as ex:\n"
    "        ex.submit(check).result()\n",
])
def test_no_assertion_quiet(body: str) -> None:
    assert facts("from hotel.pricing import nightly_rate\n" + body) == []


def test_no_assertion_only_looks_at_collected_tests() -> None:
    source = "def helper():\n    pass\n\nclass Helper:\n    def test_not_collected(self):\n        pass\n"
    assert facts(source) == []


# --- what pytest collects: fixtures and other non-tests named test_* ---------

@pytest.mark.parametrize("source", [
    # calibration (boltons tests/test_urlutils.py:48): a parametrized fixture named test_url
    "import pytest\n@pytest.fixture(scope='module', params=['a', 'b'])\ndef test_url(request):\n"
    "    return request.param\n\ndef test_rate(test_url):\n    assert nightly_rate(1, 'low', 1) == 0.8\n",
    "import pytest\n@pytest.fixture\ndef test_data():\n    return nightly_rate(1, 'low', 1)\n",
    "from pytest import fixture\n@fixture\ndef test_data():\n    return 1\n",
    "import pytest as pt\n@pt.fixture()\nasync def test_data():\n    return 1\n",
    "import pytest\nfx = pytest.fixture\n@fx\ndef test_data():\n    return 1\n",
    "import pytest\nmodule_fixture = pytest.fixture(scope='module')\n@module_fixture\n"
    "def test_data():\n    return 1\n",
    "import pytest_asyncio\n@pytest_asyncio.fixture\nasync def test_data():\n    return 1\n",
    "import pytest\nclass TestX:\n    @pytest.fixture\n    def test_data(self):\n        return 1\n"
    "    def test_x(self, test_data):\n        assert nightly_rate(test_data, 'low', 1) == 0.8\n",
    # pytest collects no __test__ = False function or class, no property, no class with __init__
    "def test_data():\n    return 1\ntest_data.__test__ = False\n",
    "class TestHelper:\n    __test__ = False\n    def test_x(self):\n        nightly_rate(1, 'low', 1)\n",
    "class TestHelper:\n    def __init__(self, rate):\n        self.rate = rate\n"
    "    def test_x(self):\n        nightly_rate(1, 'low', 1)\n",
    "class TestX:\n    @property\n    def test_value(self):\n        return 1\n"
    "    def test_x(self):\n        assert nightly_rate(self.test_value, 'low', 1) == 0.8\n",
])
def test_non_tests_named_test_are_not_judged(source: str) -> None:
    assert facts("from hotel.pricing import nightly_rate\n" + source) == []


@pytest.mark.parametrize("source", [
    # a decorator the file defines itself is no fixture, whatever its name
    "def my_fixture(f):\n    return f\n@my_fixture\ndef test_x():\n    nightly_rate(1, 'low', 1)\n",
    "def fixture(f):\n    return f\n@fixture\ndef test_x():\n    nightly_rate(1, 'low', 1)\n",
    "import pytest\n@pytest.mark.usefixtures('tmp_path')\ndef test_x():\n    nightly_rate(1, 'low', 1)\n",
    "class TestX:\n    @staticmethod\n    def test_x():\n        nightly_rate(1, 'low', 1)\n",
    "class TestX:\n    @classmethod\n    def test_x(cls):\n        nightly_rate(1, 'low', 1)\n",
    "def test_x():\n    nightly_rate(1, 'low', 1)\ntest_x.__test__ = True\n",
    "import unittest\nclass X(unittest.TestCase):\n    def __init__(self, *a):\n"
    "        super().__init__(*a)\n    def test_x(self):\n        nightly_rate(1, 'low', 1)\n",
])
def test_tests_with_other_decorators_are_judged(source: str) -> None:
    assert rules("from hotel.pricing import nightly_rate\n" + source) == {"static-no-assertion"}


# --- tests pytest collects from inside blocks, nested and inherited classes --

@pytest.mark.parametrize("source", [
    # calibration (boltons tests/test_gcutils.py): tests under a module-level if
    "import sys\nif '__pypy__' not in sys.builtin_module_names:\n    def test_x():\n"
    "        nightly_rate(1, 'low', 1)\n",
    "if True:\n    def test_x():\n        nightly_rate(1, 'low', 1)\n",
    "import sys\nif sys.version_info < (3,):\n    pass\nelse:\n    def test_x():\n"
    "        nightly_rate(1, 'low', 1)\n",
    "try:\n    import json\nexcept ImportError:\n    pass\nelse:\n    def test_x():\n"
    "        nightly_rate(1, 'low', 1)\n",
    "try:\n    def test_x():\n        nightly_rate(1, 'low', 1)\nfinally:\n    pass\n",
    "import warnings\nwith warnings.catch_warnings():\n    def test_x():\n"
    "        nightly_rate(1, 'low', 1)\n",
    "import sys\nif sys.version_info >= (3,):\n    class TestX:\n        def test_x(self):\n"
    "            nightly_rate(1, 'low', 1)\n",
    "class TestX:\n    import sys\n    if sys.version_info >= (3,):\n        def test_x(self):\n"
    "            nightly_rate(1, 'low', 1)\n",
    "class TestOuter:\n    class TestInner:\n        def test_x(self):\n"
    "            nightly_rate(1, 'low', 1)\n",
    "class Base:\n    def test_x(self):\n        nightly_rate(1, 'low', 1)\n\nclass TestReal(Base):\n    pass\n",
])
def test_tests_inside_blocks_and_classes_are_judged(source: str) -> None:
    found = facts("from hotel.pricing import nightly_rate\n" + source)
    assert [f.rule for f in found] == ["static-no-assertion"], source
    assert "test_x" in found[0].expected


@pytest.mark.parametrize("source", [
    "import sys\nif sys.version_info >= (3,):\n    def test_x():\n"
    "        assert nightly_rate(1, 'low', 1) == 0.8\n",
    "if False:\n    def test_x():\n        nightly_rate(1, 'low', 1)\n",
    "import sys\nif sys.version_info >= (3,):\n    def check(v):\n        assert v == 0.8\n"
    "def test_x():\n    check(nightly_rate(1, 'low', 1))\n",
    "class Base:\n    def check(self):\n        assert nightly_rate(1, 'low', 1) == 0.8\n"
    "    def test_x(self):\n        self.check()\n\nclass TestReal(Base):\n    pass\n",
    "class Base:\n    def test_x(self):\n        self.check()\n\nclass TestReal(Base):\n"
    "    def check(self):\n        assert nightly_rate(1, 'low', 1) == 0.8\n",
])
def test_tests_inside_blocks_quiet(source: str) -> None:
    assert facts("from hotel.pricing import nightly_rate\n" + source) == []


@pytest.mark.parametrize("source", [
    # a fixture method the test requests, an autouse fixture of its class (or a base)
    "class TestX:\n    @pytest.fixture\n    def rate(self):\n        r = nightly_rate(1, 'low', 1)\n"
    "        assert r == 0.8\n        return r\n    def test_x(self, rate):\n        print(rate)\n",
    "class Base:\n    @pytest.fixture(autouse=True)\n    def check(self):\n"
    "        assert nightly_rate(1, 'low', 1) == 0.8\n\nclass TestX(Base):\n    def test_x(self):\n"
    "        nightly_rate(1, 'low', 1)\n",
])
def test_class_fixtures_count_for_their_tests(source: str) -> None:
    assert facts("import pytest\nfrom hotel.pricing import nightly_rate\n" + source) == []


def test_class_fixture_of_another_class_does_not_count() -> None:
    source = ("import pytest\nfrom hotel.pricing import nightly_rate\n"
              "class TestA:\n    @pytest.fixture(autouse=True)\n    def check(self):\n"
              "        assert nightly_rate(1, 'low', 1) == 0.8\n"
              "class TestB:\n    def test_x(self):\n        nightly_rate(1, 'low', 1)\n")
    found = facts(source)
    assert [f.rule for f in found] == ["static-no-assertion"]
    assert "TestB.test_x" in found[0].expected


# --- static-trivial-assertion -----------------------------------------------

@pytest.mark.parametrize("check", [
    "assert True", "assert 1", "assert 'x'", "assert not False", "assert (r == 2, 'msg')",
    "assert r == r", "assert r is r", "assert nightly_rate(1, 'low', 1) == nightly_rate(1, 'low', 1)",
    "assert r == pytest.approx(r)", "assert 1 == 1", "assert r or True", "assert r == mock.ANY",
    "assert isinstance(r, object)", "assert r == Anything()", "assert [r]",
    "assert nightly_rate", "assert callable(nightly_rate)", "assert all([])",
    "assert r == 0.8 if False else True",
    "with pytest.raises(ValueError):\n        raise ValueError('x')",
])
def test_trivial_assertion_fires(check: str) -> None:
    source = (
        "import pytest\nfrom unittest import mock\nfrom hotel.pricing import nightly_rate\n"
        "class Anything:\n    def __eq__(self, other):\n        return True\n"
        f"def test_x():\n    r = nightly_rate(1, 'low', 1)\n    {check}\n"
    )
    found = facts(source)
    assert [f.rule for f in found] == ["static-trivial-assertion"], check


def test_trivial_unittest_call_fires() -> None:
    source = ("import unittest\nclass TestX(unittest.TestCase):\n    def test_x(self):\n"
              "        self.assertTrue(True)\n        self.assertEqual(1 + 1, 1 + 1)\n")
    assert rules(source) == {"static-trivial-assertion"}


@pytest.mark.parametrize("check", [
    "assert r == 0.8", "assert r != r + 1", "assert r == pytest.approx(0.8)",
    "assert r is not None and r == 0.8", "assert (r, 'a') == (0.8, 'a')",
])
def test_trivial_assertion_quiet(check: str) -> None:
    source = ("import pytest\nfrom hotel.pricing import nightly_rate\n"
              f"def test_x():\n    r = nightly_rate(1, 'low', 1)\n    {check}\n")
    assert facts(source) == []


def test_trivial_next_to_a_real_assertion_is_quiet() -> None:
    source = ("from hotel.pricing import nightly_rate\n"
              "def test_x():\n    assert True\n    assert nightly_rate(1, 'low', 1) == 0.8\n")
    assert facts(source) == []


# --- static-swallowed-assertion ---------------------------------------------

@pytest.mark.parametrize("handler", [
    "except AssertionError:\n        pass", "except Exception:\n        pass",
    "except BaseException:\n        pass", "except:\n        pass",
    "except (ValueError, AssertionError) as e:\n        print(e)",
    "finally:\n        return",
])
def test_swallowed_fires(handler: str) -> None:
    source = ("from hotel.pricing import nightly_rate\n"
              "def test_x():\n    try:\n        assert nightly_rate(1, 'low', 1) == 0.8\n"
              f"    {handler}\n")
    found = facts(source)
    assert [f.rule for f in found] == ["static-swallowed-assertion"], handler
    assert found[0].where == f"{TEST_REL}:4"


def test_swallowed_through_helper_and_suppress() -> None:
    source = ("import contextlib\nfrom hotel.pricing import nightly_rate\n"
              "def check():\n    assert nightly_rate(1, 'low', 1) == 0.8\n"
              "def test_x():\n    with contextlib.suppress(Exception):\n        check()\n")
    assert rules(source) == {"static-swallowed-assertion"}


def test_swallowed_pytest_raises_by_base_exception() -> None:
    source = ("import pytest\nfrom hotel.pricing import nightly_rate\ndef test_x():\n    try:\n"
              "        with pytest.raises(ValueError):\n            nightly_rate(1, 'low', 0)\n"
              "    except BaseException:\n        pass\n")
    assert rules(source) == {"static-swallowed-assertion"}


@pytest.mark.parametrize("handler", [
    "except AssertionError:\n        raise", "except Exception as e:\n        raise RuntimeError() from e",
    "except ValueError:\n        pass", "except Exception:\n        pytest.fail('boom')",
])
def test_swallowed_quiet(handler: str) -> None:
    source = ("import pytest\nfrom hotel.pricing import nightly_rate\n"
              "def test_x():\n    try:\n        assert nightly_rate(1, 'low', 1) == 0.8\n"
              f"    {handler}\n")
    assert facts(source) == []


def test_pytest_raises_inside_except_exception_is_not_swallowed() -> None:
    source = ("import pytest\nfrom hotel.pricing import nightly_rate\ndef test_x():\n    try:\n"
              "        with pytest.raises(ValueError):\n            nightly_rate(1, 'low', 0)\n"
              "    except Exception:\n        pass\n")
    assert facts(source) == []


# --- static-noop-assert-method, static-membership-tautology (issue 13.4) ----

@pytest.mark.parametrize("source", [
    _HEAD + "class Check:\n    def assertEqual(self, a, b):\n        pass\n\ndef test_x():\n    Check().assertEqual(nightly_rate(100.0, 'high', 7), 1)\n",
    _HEAD + "import unittest\nclass TestX(unittest.TestCase):\n    def assertEqual(self, a, b, msg=None):\n        return a == b\n    def test_x(self):\n        self.assertEqual(nightly_rate(100.0, 'high', 7), 1)\n",
    _HEAD + "def assert_rate(value, want):\n    print(value, want)\n\ndef test_x():\n    assert_rate(nightly_rate(100.0, 'high', 7), 1)\n",
    _HEAD + "class Check:\n    assertEqual = lambda self, a, b: None\n\ndef test_x():\n    Check().assertEqual(nightly_rate(100.0, 'high', 7), 1)\n",
    # patching a real assertion method: fires even next to a real assert
    _HEAD + "import unittest\nunittest.TestCase.assertEqual = lambda *a, **k: None\n\ndef test_x():\n" + _ASSERT,
    _HEAD + "import unittest\ndef test_x(monkeypatch):\n    monkeypatch.setattr(unittest.TestCase, 'assertEqual', lambda *a: None)\n" + _ASSERT,
    _HEAD + "from unittest import mock\ndef test_x():\n    with mock.patch('unittest.TestCase.assertTrue'):\n        pass\n" + _ASSERT,
    _HEAD + "import unittest\nclass TestX(unittest.TestCase):\n    def test_x(self):\n        setattr(self, 'assertEqual', print)\n        self.assertEqual(nightly_rate(1.0, 'low', 1), 0)\n",
])
def test_noop_assert_method_fires(source: str) -> None:
    _fired("static-noop-assert-method", source)


@pytest.mark.parametrize("source", [
    _HEAD + "class Check:\n    def assertEqual(self, a, b):\n        assert a == b\n\ndef test_x():\n    Check().assertEqual(nightly_rate(100.0, 'high', 7), 112.5)\n",
    _HEAD + "import unittest\nclass TestX(unittest.TestCase):\n    def assertEqual(self, a, b, msg=None):\n        super().assertEqual(round(a, 2), round(b, 2), msg)\n    def test_x(self):\n        self.assertEqual(nightly_rate(100.0, 'high', 7), 112.5)\n",
    _HEAD + "def assertion_data():\n    return [(100.0, 112.5)]\n\ndef test_x():\n    for base, want in assertion_data():\n        assert nightly_rate(base, 'high', 7) == want\n",
    # stubbing a project collaborator that happens to be called assert_*
    _HEAD + "def test_x(monkeypatch):\n    monkeypatch.setattr(pricing, 'assert_valid', lambda *a: None)\n" + _ASSERT,
])
def test_noop_assert_method_quiet(source: str) -> None:
    assert "static-noop-assert-method" not in rules(source)


@pytest.mark.parametrize("check", [
    "assert nightly_rate(100.0, 'high', 7) in [nightly_rate(100.0, 'high', 7)]",
    "r = nightly_rate(100.0, 'high', 7)\n    assert r in (r, 0.0)",
    "r = nightly_rate(100.0, 'high', 7)\n    assert r in {r}",
    "r = nightly_rate(100.0, 'high', 7)\n    assert r in {1: 2, r: 3}",
])
def test_membership_tautology_fires(check: str) -> None:
    fact = _fired("static-membership-tautology",
                  f"{_HEAD}\ndef test_x():\n    {check}\n")
    assert "holds for any x" in fact.actual
    assert "static-trivial-assertion" not in rules(f"{_HEAD}\ndef test_x():\n    {check}\n")


def test_membership_tautology_fires_for_assert_in() -> None:
    source = (_HEAD + "import unittest\nclass TestX(unittest.TestCase):\n    def test_x(self):\n"
              "        r = nightly_rate(100.0, 'high', 7)\n        self.assertIn(r, [r])\n")
    _fired("static-membership-tautology", source)


@pytest.mark.parametrize("check", [
    "assert nightly_rate(100.0, 'high', 7) in (112.5, 112.50)",
    "r = nightly_rate(100.0, 'high', 7)\n    assert r in [112.5]",
    "r = nightly_rate(100.0, 'high', 7)\n    assert r in (r + 1, 112.5)",
])
def test_membership_tautology_quiet(check: str) -> None:
    assert facts(f"{_HEAD}\ndef test_x():\n    {check}\n") == []


# --- long chains of helpers -------------------------------------------------

def _chain(length: int, last: str) -> str:
    """``test_x`` calls h0, h0 calls h1... and the last helper's body is ``last``."""
    hops = "".join(f"def h{i}(v):\n    return h{i + 1}(v)\n\n" for i in range(length))
    return (f"from hotel.pricing import nightly_rate\n\n{hops}def h{length}(v):\n    {last}\n\n"
            "def test_x():\n    h0(nightly_rate(1, 'low', 1))\n")


def test_a_chain_of_helpers_longer_than_our_stack_is_followed_to_its_end() -> None:
    # 900 hops run under Python's default limit; following them took a few of our frames
    # each, and the RecursionError sent the file to a person (gate-rule-error).
    assert facts(_chain(900, "assert v == 0.8")) == []
    assert rules(_chain(900, "return v == 0.8")) == {"static-no-assertion"}


def test_helpers_are_followed_callees_first_cycles_left_to_the_walk() -> None:
    import ast

    from pytest_quest.rules.assertions import _callees_first

    source = ("def a():\n    b()\ndef b():\n    c()\ndef c():\n    pass\n"
              "def d():\n    e()\ndef e():\n    d()\ndef f():\n    d()\n"
              "def g():\n    g()\ndef m(self):\n    self.x()\ndef n():\n    m(None)\n")
    functions = {node.name: node for node in ast.parse(source).body
                 if isinstance(node, ast.FunctionDef)}
    order = _callees_first(functions)
    assert order.index("c") < order.index("b") < order.index("a")
    # a cycle (d, e), what reaches one (f), what calls a method (m) and what reaches that
    # (n) are left to the lazy walk; a function calling itself is no cycle
    assert set(order) == {"a", "b", "c", "g"}


def test_a_helper_in_a_cycle_is_followed_as_before() -> None:
    # check_a and check_b call each other: the first followed sees the other's assertion.
    source = ("from hotel.pricing import nightly_rate\n\n"
              "def check_a(v, n=1):\n    if n:\n        check_b(v, n - 1)\n\n"
              "def check_b(v, n):\n    assert v == 0.8\n    check_a(v, n)\n\n"
              "def test_x():\n    check_a(nightly_rate(1, 'low', 1))\n")
    assert facts(source) == []
