# ruff: noqa: E501  (embedded test sources read better on one line)
"""Unit tests of the tier-0 static rules: a Submission built by hand, no subprocess.

For every rule one source that fires it and one close variant that must stay
quiet (precision: a false FAIL costs the agent a try).
"""

from __future__ import annotations

import hashlib
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_quest.config import load_settings
from pytest_quest.facts import Fact
from pytest_quest.gate import CATALOG
from pytest_quest.quest import Quest
from pytest_quest.rules import static
from pytest_quest.sandbox import RunResult, Sandbox
from pytest_quest.submission import Submission, parse

EXAMPLE = Path(__file__).resolve().parent.parent / "example_project"
TEST_REL = "tests/quest/test_hotel_pricing__nightly_rate.py"


def make(source: str, qualname: str = "nightly_rate", path: str = "hotel/pricing.py") -> Submission:
    settings = load_settings(EXAMPLE)
    quest = Quest(id=f"{path}::{qualname}", path=path, qualname=qualname)
    data = textwrap.dedent(source).encode()
    return parse(Submission(settings=settings, quest=quest, test_rel=TEST_REL, test_bytes=data,
                            snapshot={}))


def facts(source: str, **kwargs: str) -> list[Fact]:
    return list(static.check(make(source, **kwargs)))


def rules(source: str, **kwargs: str) -> set[str]:
    return {f.rule for f in facts(source, **kwargs)}


GOOD = """
import pytest
from hotel.pricing import nightly_rate

def test_rate():
    assert nightly_rate(100.0, "high", 7) == 112.5

def test_error():
    with pytest.raises(ValueError):
        nightly_rate(1.0, "low", 0)
"""


def test_good_test_is_quiet() -> None:
    assert facts(GOOD) == []


def test_every_static_rule_is_in_the_catalog() -> None:
    ids = {r.id for r in CATALOG}
    for rule in ("test-file-parses", "static-skip", "static-process-exit", "static-pytest-hooks",
                 "static-coverage-pragma", "static-tracing-tamper", "static-builtins-patched",
                 "static-target-replaced", "static-source-write", "static-no-assertion",
                 "static-trivial-assertion", "static-swallowed-assertion",
                 "run-sources-modified"):
        assert rule in ids


# --- test-file-parses -------------------------------------------------------

def test_parses_fires_with_line() -> None:
    (fact,) = facts("def test_x(:\n    pass\n")
    assert fact.rule == "test-file-parses"
    assert fact.where == f"{TEST_REL}:1"


def test_parses_quiet() -> None:
    assert "test-file-parses" not in rules(GOOD)


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


# --- static-skip ------------------------------------------------------------

@pytest.mark.parametrize("source", [
    "import pytest\n@pytest.mark.skip\ndef test_x():\n    assert 1 + 1 == 2\n",
    "import pytest\n@pytest.mark.skipif(True, reason='x')\ndef test_x():\n    assert 1 + 1 == 2\n",
    "import pytest\n@pytest.mark.xfail\ndef test_x():\n    assert 1 + 1 == 2\n",
    "import pytest\npytestmark = pytest.mark.skip\ndef test_x():\n    assert 1 + 1 == 2\n",
    "import pytest\ndef test_x():\n    pytest.skip('later')\n    assert 1 + 1 == 2\n",
    "import pytest\nnp = pytest.importorskip('numpy')\ndef test_x():\n    assert 1 + 1 == 2\n",
    "from pytest import mark as m\n@m.xfail(strict=False)\ndef test_x():\n    assert 1 + 1 == 2\n",
    "import pytest\ndef test_x():\n    getattr(pytest, 'skip')('x')\n    assert 1 + 1 == 2\n",
    "import unittest\nclass TestX(unittest.TestCase):\n    def test_x(self):\n"
    "        self.skipTest('x')\n        self.assertEqual(1 + 1, 2)\n",
    "import pytest\n@pytest.mark.parametrize('a', [pytest.param(1, marks=pytest.mark.skip)])\n"
    "def test_x(a):\n    assert a + 1 == 2\n",
])
def test_skip_fires(source: str) -> None:
    assert "static-skip" in rules(source)


_SKIPPED_TEST = "def test_x():\n    assert 1 + 1 == 2\n"


@pytest.mark.parametrize("marker", [
    # no condition, or a constant one, skips or xfails unconditionally
    "@pytest.mark.skipif(True, reason='x')", "@pytest.mark.skipif(1, reason='x')",
    "@pytest.mark.skipif(not False, reason='x')", "@pytest.mark.skipif('x', reason='x')",
    "@pytest.mark.skipif((sys.platform == 'win32', 'x'))", "@pytest.mark.skipif(reason='x')",
    "@pytest.mark.skipif", "@pytest.mark.skipif(condition=True, reason='x')",
    "@pytest.mark.skipif(sys.platform == 'win32', True, reason='x')",
    "@pytest.mark.skipif(*CONDITIONS, reason='x')",
    "@pytest.mark.skipif.with_args(True, reason='x')",
    "@pytest.mark.xfail(True, reason='x')", "@pytest.mark.xfail(reason='x')",
    "@pytest.mark.xfail(condition=1, reason='x')", "@pytest.mark.xfail(strict=True)",
    "@unittest.skipIf(True, 'x')", "@unittest.skipUnless(False, 'x')",
    "@unittest.skip('x')", "@unittest.expectedFailure",
    "@pytest.mark.parametrize('a', [pytest.param(1, marks=pytest.mark.xfail(True, reason='x'))])",
])
def test_unconditional_skip_marker_fires(marker: str) -> None:
    source = f"import sys, unittest, pytest\nCONDITIONS = []\n{marker}\n{_SKIPPED_TEST}"
    found = facts(source)
    assert "static-skip" in {f.rule for f in found}, marker
    assert all(f.where == f"{TEST_REL}:3" for f in found if f.rule == "static-skip"), found


@pytest.mark.parametrize("source", [
    "import pytest\npytestmark = pytest.mark.skipif(True, reason='x')\n",
    "import pytest\npytestmark = [pytest.mark.skipif, pytest.mark.filterwarnings('ignore')]\n",
    "import pytest\nskip_if = pytest.mark.skipif\n@skip_if(not False, reason='x')\n",
    "import pytest\nskip_if = pytest.mark.skipif\n@skip_if\n",
    "import pytest\nskip_if = pytest.mark.skipif\npytestmark = skip_if\n",
    "import pytest\nclass TestX:\n    pytestmark = pytest.mark.xfail(reason='x')\n"
    "    def test_y(self):\n        assert 1 + 1 == 2\n",
    "from unittest import skipIf\n@skipIf(True, 'x')\n",
    "import pytest\nif 1:\n    pytest.skip('x', allow_module_level=True)\n",
    "import pytest\ndef test_y():\n    pytest.xfail('later')\n",
    "import pytest\ndef test_y(request):\n    request.applymarker(pytest.mark.xfail(True, reason='x'))\n",
])
def test_unconditional_skip_fires_anywhere(source: str) -> None:
    assert "static-skip" in rules(source + _SKIPPED_TEST)


@pytest.mark.parametrize("marker", [
    # calibration (boltons tests/test_dictutils.py:536, test_funcutils_fb_py3.py:316)
    "@pytest.mark.skipif(sys.version_info < (3, 9), reason='requires python3.9 or higher')",
    "@pytest.mark.skipif(condition=sys.platform == 'win32', reason='x')",
    "@pytest.mark.xfail(sys.platform == 'win32', reason='x', strict=True)",
    "@pytest.mark.xfail(condition=IS_PYPY, reason='x', raises=ValueError)",
    "@pytest.mark.skipif(not hasattr(sys, 'getrefcount'), reason='x')",
    "@pytest.mark.skipif(False, reason='never')", "@pytest.mark.xfail(0, reason='never')",
    "@unittest.skipIf(sys.platform == 'win32', 'x')",
    "@unittest.skipUnless(hasattr(sys, 'getrefcount'), 'x')",
    "@pytest.mark.parametrize('a', [pytest.param(1, marks=pytest.mark.skipif(IS_PYPY, reason='x'))])",
])
def test_conditional_skip_marker_is_left_to_the_run(marker: str) -> None:
    source = f"import sys, unittest, pytest\nIS_PYPY = hasattr(sys, 'pypy_version_info')\n{marker}\n"
    assert facts(source + _SKIPPED_TEST.replace("test_x():", "test_x(a=1):")) == [], marker


@pytest.mark.parametrize("source", [
    "import sys, pytest\npytestmark = pytest.mark.skipif(sys.platform == 'win32', reason='x')\n",
    "import sys, pytest\npytestmark = [pytest.mark.skipif(sys.platform == 'win32', reason='x')]\n",
    "import sys, pytest\nrequires_39 = pytest.mark.skipif(sys.version_info < (3, 9), reason='x')\n"
    "@requires_39\n",
    "import sys\nfrom pytest import mark\n@mark.skipif(sys.version_info < (3, 9), reason='x')\n",
    "import sys\nimport pytest\nskip_if = pytest.mark.skipif\n@skip_if(sys.platform == 'win32', reason='x')\n",
    "import sys\nfrom unittest import skipIf, skipUnless\n@skipIf(sys.platform == 'win32', 'x')\n"
    "@skipUnless(sys.platform != 'win32', 'x')\n",
])
def test_conditional_skip_quiet_in_other_spellings(source: str) -> None:
    assert facts(source + _SKIPPED_TEST) == []


def test_skip_quiet() -> None:
    source = ("import pytest\n@pytest.mark.parametrize('a', [1])\n"
              "@pytest.mark.filterwarnings('ignore')\ndef test_x(a):\n    skip = a\n"
              "    assert skip + 1 == 2\n")
    assert facts(source) == []


# --- static-process-exit ----------------------------------------------------

@pytest.mark.parametrize("call", [
    "import os\nos._exit(0)", "import sys\nsys.exit(0)", "exit()", "quit()",
    "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)", "import signal\nsignal.alarm(1)",
    "import atexit\natexit.register(print)", "from os import _exit as e\ne(0)",
    "getattr(__import__('os'), '_exit')(0)", "raise SystemExit(0)", "import os\nos.abort()",
])
def test_exit_fires(call: str) -> None:
    body = textwrap.indent(call, "    ")
    assert "static-process-exit" in rules(f"def test_x():\n    assert 1 + 1 == 2\n{body}\n")


def test_exit_quiet() -> None:
    source = ("import sys\nimport pytest\ndef exit_code(x):\n    return x\n"
              "def test_x():\n    assert exit_code(1) == 1\n    assert sys.version_info > (3,)\n"
              "    with pytest.raises(SystemExit):\n        exit_code(None)\n")
    assert "static-process-exit" not in rules(source)


# --- static-pytest-hooks ----------------------------------------------------

@pytest.mark.parametrize("source", [
    "def pytest_runtest_makereport(item, call):\n    pass\n",
    "pytest_plugins = ['myplugin']\n",
    "import pytest\n@pytest.hookimpl(tryfirst=True)\ndef hook(item):\n    pass\n",
    "def test_x(request):\n    request.config.pluginmanager.register(object())\n    assert 1 + 1 == 2\n",
    "from _pytest.outcomes import Skipped\n",
    "import pytest\npytest.main(['-q'])\n",
])
def test_hooks_fire(source: str) -> None:
    assert "static-pytest-hooks" in rules(source)


def test_hooks_quiet_for_fixture_aliases() -> None:
    source = ("import pytest\nmodule_fixture = pytest.fixture(scope='module')\n@module_fixture\n"
              "def pytest_like():\n    return 1\n"
              "def test_x(pytest_like):\n    assert pytest_like == 1\n")
    assert facts(source) == []


def test_hooks_quiet() -> None:
    source = ("import pytest\n@pytest.fixture\ndef pytest_like():\n    return 1\n"
              "def test_x(pytest_like, request):\n    assert request.node.name == 'test_x'\n"
              "    assert pytest_like == 1\n")
    assert facts(source) == []


# --- static-coverage-pragma -------------------------------------------------

@pytest.mark.parametrize("comment", ["# pragma: no cover", "#pragma:no branch", "# PRAGMA NO COVER"])
def test_pragma_fires(comment: str) -> None:
    found = facts(f"def test_x():  {comment}\n    assert 1 + 1 == 2\n")
    assert [f.rule for f in found] == ["static-coverage-pragma"]
    assert found[0].where == f"{TEST_REL}:1"


def test_pragma_quiet() -> None:
    assert facts("# pragma: this test covers the happy path\ndef test_x():\n    assert 2 == 1 + 1\n") == []


# --- static-tracing-tamper --------------------------------------------------

@pytest.mark.parametrize("code", [
    "import coverage", "import sys\nsys.settrace(None)", "import sys\nsys.setprofile(None)",
    "import sys\nsys.monitoring.get_tool(1)", "import threading\nthreading.settrace(None)",
    "import sys\nsys.addaudithook(print)", "from coverage import Coverage",
    "cov = __import__('coverage')", "import _thread", "import sys as s\ns.gettrace()", "import pytest_quest",
])
def test_tamper_fires(code: str) -> None:
    assert rules(f"{code}\ndef test_x():\n    assert 1 + 1 == 2\n") == {"static-tracing-tamper"}


def test_tamper_quiet() -> None:
    source = ("import sys\nimport gc\nimport threading\ndef test_x():\n    gc.collect()\n"
              "    assert threading.active_count() >= 1\n    assert sys.maxsize > 0\n")
    assert facts(source) == []


# --- static-builtins-patched ------------------------------------------------

@pytest.mark.parametrize("code", [
    "import builtins\n    builtins.len = lambda x: 0",
    "import builtins\n    monkeypatch.setattr(builtins, 'open', None)",
    "monkeypatch.setattr('builtins.round', lambda x, n=0: x)",
    "from unittest import mock\n    mock.patch('builtins.round').start()",
    "__builtins__['round'] = None",
    "import builtins\n    setattr(builtins, 'round', None)",
])
def test_builtins_fires(code: str) -> None:
    source = f"def test_x(monkeypatch):\n    {code}\n    assert 1 + 1 == 2\n"
    assert "static-builtins-patched" in rules(source)


def test_builtins_quiet() -> None:
    source = "import builtins\ndef test_x():\n    assert builtins.len([1]) == 1\n"
    assert facts(source) == []


# --- static-target-replaced -------------------------------------------------

@pytest.mark.parametrize("code", [
    "monkeypatch.setattr(pricing, 'nightly_rate', lambda *a: 1.0)",
    "monkeypatch.setattr('hotel.pricing.nightly_rate', lambda *a: 1.0)",
    "mock.patch('hotel.pricing.nightly_rate', return_value=1.0).start()",
    "mock.patch.object(pricing, 'nightly_rate').start()",
    "pricing.nightly_rate = lambda *a: 1.0",
    "setattr(pricing, 'nightly_rate', None)",
    "pricing.nightly_rate.__code__ = (lambda *a: 1.0).__code__",
    "importlib.reload(pricing)",
    "sys.modules['hotel.pricing'] = None",
    "monkeypatch.setitem(sys.modules, 'hotel.pricing', None)",
    "mock.patch.dict(sys.modules, {'hotel.pricing': None}).start()",
    "global nightly_rate\n    nightly_rate = lambda *a: 1.0",
    "monkeypatch.delattr(pricing, 'nightly_rate')",
    "mock.patch.multiple(pricing, nightly_rate=None).start()",
])
def test_target_replaced_fires(code: str) -> None:
    source = ("import importlib\nimport sys\nfrom unittest import mock\nfrom hotel import pricing\n"
              "from hotel.pricing import nightly_rate\n"
              f"def test_x(monkeypatch):\n    {code}\n    assert nightly_rate(1, 'x', 1) == 1.0\n")
    found = [f for f in facts(source) if f.rule == "static-target-replaced"]
    assert found, code
    assert found[0].where == f"{TEST_REL}:{7 + code.count(chr(10))}"


def test_target_replaced_on_a_method() -> None:
    source = ("from hotel.rooms import Room\ndef test_x(monkeypatch):\n"
              "    monkeypatch.setattr(Room, 'can_host', lambda *a: True)\n"
              "    assert Room('1', 'single', 1).can_host(9)\n")
    assert "static-target-replaced" in rules(source, qualname="Room.can_host", path="hotel/rooms.py")
    source2 = "from hotel.rooms import Room\ndef test_x():\n    Room.can_host = None\n    assert Room\n"
    assert "static-target-replaced" in rules(source2, qualname="Room.can_host", path="hotel/rooms.py")


def test_target_replaced_quiet_for_collaborators() -> None:
    source = ("from unittest import mock\nfrom hotel import pricing\n"
              "def test_x(monkeypatch):\n"
              "    monkeypatch.setattr(pricing, 'loyalty_discount', lambda *a: 0.0)\n"
              "    with mock.patch('hotel.pricing.tax_amount', return_value=0.0):\n"
              "        assert pricing.total_price(100.0, 'standard', 1) == 100.0\n"
              "    monkeypatch.setattr(pricing, 'TAX_RATE', 0.0)\n")
    assert facts(source, qualname="total_price") == []


def test_target_method_name_on_another_class_is_quiet() -> None:
    source = ("from hotel.rooms import Room\nclass Fake:\n    pass\n"
              "def test_x(monkeypatch):\n    monkeypatch.setattr(Fake, 'can_host', None)\n"
              "    assert Room('1', 'single', 1).can_host(1)\n")
    assert facts(source, qualname="Room.can_host", path="hotel/rooms.py") == []


# --- static-source-write ----------------------------------------------------

@pytest.mark.parametrize("code", [
    "open('hotel/pricing.py', 'w').write('')",
    "open(pricing.__file__, 'a').write('#')",
    "pathlib.Path('hotel') .joinpath('pricing.py').write_text('')",
    "p = pathlib.Path('hotel/pricing' + '.py')\n    p.write_text('')",
    "pathlib.Path(__file__).write_text('')",
    "os.remove('hotel/rooms.py')",
    "shutil.copy('/tmp/evil', 'hotel/pricing.py')",
    "with open('sitecustomize.py', mode='x') as f:\n        f.write('')",
    "open(tmp_path / '..' / '..' / 'hotel' / 'x.py', 'w')",
])
def test_source_write_fires(code: str) -> None:
    source = ("import os\nimport pathlib\nimport shutil\nfrom hotel import pricing\n"
              f"def test_x(tmp_path):\n    {code}\n    assert pricing.nightly_rate(1, 'low', 1) == 0.8\n")
    assert "static-source-write" in rules(source)


def test_source_write_quiet() -> None:
    # reading sources is no write (reading the target's own file is static-reads-target-code)
    source = ("import pathlib\nfrom hotel import pricing, rooms\ndef test_x(tmp_path):\n"
              "    (tmp_path / 'plugin.py').write_text('x = 1')\n"
              "    (tmp_path / 'out.json').write_text('{}')\n"
              "    text = open(rooms.__file__).read()\n"
              "    pathlib.Path(__file__).with_name('data.txt').read_text\n"
              "    pathlib.Path(rooms.__file__).read_text().replace('a', 'b')\n"
              "    assert pricing.nightly_rate(1, 'low', 1) == 0.8 and 'def' in text\n")
    assert facts(source) == []


# --- run-sources-modified ---------------------------------------------------

def _boxed(tmp_path: Path) -> Submission:
    project = tmp_path / "project"
    (project / "hotel").mkdir(parents=True)
    (project / "hotel" / "pricing.py").write_text("x = 1\n")
    box = Sandbox(path=project, private=tmp_path / "private",
                  hashes={"hotel/pricing.py": hashlib.sha256(b"x = 1\n").hexdigest()})
    return replace(make(GOOD), sandbox=box,
                   run=RunResult(events=[], returncode=0, timed_out=False, seconds=0.1))


def test_sources_modified_fires(tmp_path: Path) -> None:
    sub = _boxed(tmp_path)
    (sub.sandbox.path / "hotel" / "pricing.py").write_text("x = 2\n")  # type: ignore[union-attr]
    (sub.sandbox.path / "hotel" / "sitecustomize.py").write_text("")  # type: ignore[union-attr]
    found = list(static.check_after_run(sub))
    assert [(f.rule, f.where) for f in found] == [
        ("run-sources-modified", "hotel/pricing.py"),
        ("run-sources-modified", "hotel/sitecustomize.py"),
    ]


def test_sources_modified_quiet(tmp_path: Path) -> None:
    sub = _boxed(tmp_path)
    assert list(static.check_after_run(sub)) == []
    assert list(static.check_after_run(replace(sub, sandbox=None))) == []


def test_exec_strings_are_checked_like_the_file() -> None:
    source = ("def test_x():\n    assert 1 + 1 == 2\n"
              "    exec('import os; os._exit(0)')\n    eval(\"__import__('pytest').skip('x')\")\n")
    found = facts(source)
    assert {f.rule for f in found} == {"static-process-exit", "static-skip"}
    assert found[0].where == f"{TEST_REL}:3"
    assert facts("def test_x():\n    assert eval('1 + 1') == 2\n") == []


# --- the rules that name the trick (issue 13.4) -----------------------------
# Each: literal forms that fire it, with the line, and close honest variants that stay quiet.

_ASSERT = "    assert nightly_rate(100.0, 'high', 7) == 112.5\n"
_HEAD = "import os\nimport sys\nimport pytest\nfrom hotel import pricing\nfrom hotel.pricing import nightly_rate\n"


def _in_test(code: str, params: str = "tmp_path") -> str:
    body = textwrap.indent(textwrap.dedent(code).strip("\n"), "    ")
    return f"{_HEAD}\ndef test_x({params}):\n{body}\n{_ASSERT}"


def _fired(rule: str, source: str) -> Fact:
    found = [f for f in facts(source) if f.rule == rule]
    assert found, (rule, facts(source))
    fact = found[0]
    assert fact.where.startswith(f"{TEST_REL}:") and fact.expected and fact.actual
    return fact


@pytest.mark.parametrize("code", [
    "frame = sys._getframe(1)",
    "import inspect\nf = inspect.currentframe()",
    "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    caller = e.__traceback__.tb_frame.f_back",
    "import gc\nobjs = gc.get_referrers(nightly_rate)",
    "main = sys.modules['__main__']",
    "import __main__",
    "name = 'cov' + chr(101) + 'rage'\nmod = sys.modules[name]",
    "mod = sys.modules.get(''.join(['_pytest', '.main']))",
    "mods = list(sys.modules.values())",
    "mods = [m for m in sys.modules]",
    "fn = globals()['__buil' + chr(116) + 'ins__']",
    "pm = vars(request.config)['pluginmanager']",
    "exit_ = getattr(os, '_ex' + chr(105) + 't')",
    "mod = __import__(''.join(['o', 's']))",
    "import importlib\nmod = importlib.import_module(chr(111) + 's')",
    "g = nightly_rate.__globals__",
    "classes = object.__subclasses__()",
    "f = getattr(e, 'tb_frame')",
])
def test_reflective_access_fires(code: str) -> None:
    fact = _fired("static-reflective-access", _in_test(code, "tmp_path, request, e=None"))
    assert fact.actual.startswith("`")


@pytest.mark.parametrize("code", [
    # ordinary use of the same modules and of reflection on one's own objects
    "assert 'json' not in sys.modules or True\nv = sys.version_info",
    "obj = type('O', (), {})()\nobj.x = 1\nassert vars(obj)['x'] == 1",
    "assert pricing.__dict__['TAX_RATE'] == 0.12",
    "name = 'TAX_RATE'\nassert getattr(pricing, name) == 0.12",
    "import importlib\nmod = importlib.import_module(f'hotel.{\"pricing\"}')",
    "import importlib\nname = 'rooms'\nmod = importlib.import_module('hotel.' + name)",
    "mod = sys.modules[__name__]",
    "import operator\nop = 'add'\nassert getattr(operator, op)(1, 2) == 3",
    "import gc\ngc.collect()",
])
def test_reflective_access_quiet(code: str) -> None:
    assert "static-reflective-access" not in rules(_in_test(code))


@pytest.mark.parametrize("code", [
    "env = open('/proc/' + str(os.getppid()) + '/environ', 'rb').read()",
    "cwd = os.readlink(f'/proc/{os.getppid()}/cwd')",
    "import pathlib\np = pathlib.Path('/') / 'proc' / 'self' / 'environ'",
    "p = os.path.join('/', 'proc', str(os.getppid()))",
    "fds = os.listdir('/dev/fd')",
])
def test_proc_access_fires(code: str) -> None:
    _fired("static-proc-access", _in_test(code))


@pytest.mark.parametrize("code", [
    "p = tmp_path / 'proc' / 'x.txt'\np.write_text('1')",
    "assert 'proc' in 'process'",
    "procs = os.cpu_count()",
])
def test_proc_access_quiet(code: str) -> None:
    assert "static-proc-access" not in rules(_in_test(code))


@pytest.mark.parametrize("code", [
    "import site\nd = site.getsitepackages()[0]",
    "import site\nd = site.getusersitepackages()",
    "import sysconfig\nd = sysconfig.get_paths()['purelib']",
    "name = 'zz_quest.pth'",
    "d = [p for p in sys.path if p.endswith('site-packages')]",
])
def test_site_packages_fires(code: str) -> None:
    _fired("static-site-packages", _in_test(code))


@pytest.mark.parametrize("code", [
    "sys.path.insert(0, str(tmp_path))",
    "(tmp_path / 'data.path').write_text('x')",
])
def test_site_packages_quiet(code: str) -> None:
    assert "static-site-packages" not in rules(_in_test(code))


@pytest.mark.parametrize("code", [
    "fd = os.open('.', os.O_RDONLY)\nos.open('ledger.json', os.O_WRONLY, dir_fd=fd)",
    "os.rename('a', 'b', src_dir_fd=3, dst_dir_fd=4)",
    "os.open('/tmp/../x', os.O_WRONLY | os.O_CREAT)",
    "os.open('out.txt', 0o101)",
    "for root, dirs, files, fd in os.fwalk('.'):\n    pass",
])
def test_fd_write_fires(code: str) -> None:
    _fired("static-fd-write", _in_test(code))


@pytest.mark.parametrize("code", [
    "fd = os.open(tmp_path / 'out.txt', os.O_WRONLY | os.O_CREAT)\nos.close(fd)",
    "fd = os.open('README.md', os.O_RDONLY)\nos.close(fd)",
    "st = os.stat('README.md', dir_fd=None)",
    "with open(tmp_path / 'x.txt', 'w') as fh:\n    fh.write('1')",
])
def test_fd_write_quiet(code: str) -> None:
    assert "static-fd-write" not in rules(_in_test(code))


@pytest.mark.parametrize("code", [
    "import ctypes",
    "from ctypes import CDLL",
    "import _posixsubprocess",
    "mod = __import__('_c' + 'types')",
    "name = 'ctypes'",
    "import cffi",
    "lib = 'libc.so.6'",
])
def test_native_code_fires(code: str) -> None:
    _fired("static-native-code", _in_test(code))


def test_native_code_quiet() -> None:
    source = _in_test("assert os.name in ('posix', 'nt')\nimport subprocess as _sp")
    assert "static-native-code" not in rules(source)


@pytest.mark.parametrize("code", [
    "code = nightly_rate.__code__",
    "code = getattr(nightly_rate, '__co' + 'de__')",
    "raw = pricing.nightly_rate.__code__.co_code",
    "import inspect\nsrc = inspect.getsource(nightly_rate)",
    "import inspect\nsrc = inspect.getsource(pricing)",
    "import dis\nops = list(dis.get_instructions(nightly_rate))",
    "text = open(pricing.__file__).read()",
    "import pathlib\ntext = pathlib.Path(pricing.__file__).read_text()",
    "text = open('hotel/pricing.py').read()",
    "import importlib.util\nspec = importlib.util.spec_from_file_location('copy', pricing.__file__)",
    "import importlib.util\nspec = importlib.util.spec_from_file_location('copy', 'hotel/pricing.py')",
    "import runpy\nns = runpy.run_path('hotel/pricing.py')",
    "import runpy\nns = runpy.run_module('hotel.pricing')",
    "import linecache\nline = linecache.getline(pricing.__file__, 3)",
    "text = open(pricing.__spec__.origin).read()",
    "import inspect\ntext = open(inspect.getsourcefile(nightly_rate)).read()",
])
def test_reads_target_code_fires(code: str) -> None:
    _fired("static-reads-target-code", _in_test(code))


@pytest.mark.parametrize("code", [
    # other functions' code, the package folder, files next to the module, the test itself
    "from hotel import rooms\nimport inspect\nsrc = inspect.getsource(rooms)",
    "def helper():\n    return 1\ncode = helper.__code__",
    "import pathlib\nhere = pathlib.Path(pricing.__file__).parent\nnames = sorted(p.name for p in here.iterdir())",
    "folder = os.path.dirname(os.path.abspath(pricing.__file__))",
    "text = open(__file__).read()",
    "import pathlib\ndata = pathlib.Path(__file__).with_name('data.txt')",
])
def test_reads_target_code_quiet(code: str) -> None:
    assert "static-reads-target-code" not in rules(_in_test(code))


@pytest.mark.parametrize("source", [
    _HEAD + "EXPECTED = nightly_rate(100.0, 'high', 7)\n\ndef test_x():\n    assert nightly_rate(100.0, 'high', 7) == EXPECTED\n",
    _HEAD + "CASES = {'high': nightly_rate(100.0, 'high', 7)}\n\ndef test_x():\n    assert nightly_rate(100.0, 'high', 7) == CASES['high']\n",
    _HEAD + "@pytest.mark.parametrize('args, want', [((100.0, 'high', 7), nightly_rate(100.0, 'high', 7))])\ndef test_x(args, want):\n    assert nightly_rate(*args) == want\n",
    _HEAD + "class TestX:\n    WANT = pricing.nightly_rate(1.0, 'low', 1)\n\n    def test_x(self):\n        assert nightly_rate(1.0, 'low', 1) == self.WANT\n",
    _HEAD + "def test_x(want=nightly_rate(1.0, 'low', 1)):\n    assert want == nightly_rate(1.0, 'low', 1)\n",
    _HEAD + "CASES = [(1.0, 'low', 1)]\nEXPECTED = [nightly_rate(*c) for c in CASES]\n\ndef test_x():\n    for case, want in zip(CASES, EXPECTED):\n        assert nightly_rate(*case) == want\n",
    _HEAD + "import unittest\nWANT = nightly_rate(1.0, 'low', 1)\nclass TestX(unittest.TestCase):\n    def test_x(self):\n        self.assertEqual(nightly_rate(1.0, 'low', 1), WANT)\n",
])
def test_import_time_call_fires(source: str) -> None:
    _fired("static-import-time-call", source)


@pytest.mark.parametrize("source", [
    # a value built at import but not used as an expected value; calls inside tests and lambdas
    _HEAD + "SAMPLE = nightly_rate(100.0, 'high', 7)\n\ndef test_x():\n    assert isinstance(SAMPLE, float)\n" + _ASSERT,
    _HEAD + "LATER = lambda: nightly_rate(100.0, 'high', 7)\n\ndef test_x():\n" + _ASSERT,
    _HEAD + "WANT = 112.5\n\ndef test_x():\n    assert nightly_rate(100.0, 'high', 7) == WANT\n",
])
def test_import_time_call_quiet(source: str) -> None:
    assert "static-import-time-call" not in rules(source)


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


def test_new_rules_quiet_on_the_good_test() -> None:
    assert facts(GOOD) == []


@pytest.mark.parametrize("code", [
    "import pytest\nname = ''.join(['sk', 'ip'])\nskip = vars(pytest).get(name)",
    "name = ''.join(['_ex', 'it'])\nfn = os.__dict__.get(name)",
    "mod = sys.modules.get(''.join(['_pytest', '.main']))",
])
def test_reflective_access_fires_for_mapping_get(code: str) -> None:
    _fired("static-reflective-access", _in_test(code))


@pytest.mark.parametrize("code", [
    "data = open('.quest/ledger.json').read()",
    "log = os.path.join('..', 'private', 'events.jsonl')",
    "FORGE = 'import os\\nos.replace(\"../private/ev.tmp\", \"../private/events.jsonl\")'",
    "path = tmp_path.parent / 'attempts.jsonl'",
])
def test_gate_files_fires(code: str) -> None:
    _fired("static-gate-files", _in_test(code))


@pytest.mark.parametrize("code", [
    "(tmp_path / 'private' / 'events.json').write_text('{}')",
    "name = 'my.quest.ledger'",
    "q = 'questions/ledger.txt'",
])
def test_gate_files_quiet(code: str) -> None:
    assert "static-gate-files" not in rules(_in_test(code))
