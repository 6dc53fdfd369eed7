# ruff: noqa: E501  (embedded test sources read better on one line)
"""Unit tests of the tier-0 static rules: a Submission built by hand, no subprocess.

For every rule one source that fires it and one close variant that must stay
quiet (precision: a false FAIL costs the agent a try).
"""

from __future__ import annotations

import hashlib
import textwrap
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_quest import safeio
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


#: Red team 2, finding 11: 3000 levels make ``ast.parse`` raise RecursionError; 150 parse, but the
#: rules' recursive visitors would walk them in the unconfined parent. Built here, not kept as a
#: corpus file: tests/test_lines.py parses every corpus file with coverage's parser.
DEEP = {
    "attribute chain": "import os\n\ndef test_x():\n    x = os" + ".path" * 3000 + "\n    assert x\n",
    "unary chain": "def test_x():\n    assert " + "-" * 3000 + "1\n",
    "parsable but deep": "def test_x():\n    assert " + "not " * 150 + "0 is not None\n",
}


@pytest.mark.parametrize("source", DEEP.values(), ids=DEEP.keys())
def test_a_file_nested_too_deep_is_a_parse_fact_not_a_crash(source: str) -> None:
    (fact,) = facts(source)
    assert fact.rule == "test-file-parses"
    assert fact.actual == "the test file nests too deep to analyse (at most 100 levels)"


def test_code_nested_too_deep_in_an_exec_string_is_a_parse_fact() -> None:
    source = "def test_x():\n    exec('x = ' + '-' * 0)\n    exec('x = " + "-" * 3000 + "1')\n"
    found = [f for f in facts(source) if f.rule == "test-file-parses"]
    assert len(found) == 1 and "nests too deep to analyse" in found[0].actual


def test_ordinary_nesting_is_analysed() -> None:
    """Honest: nested comprehensions, calls and a 40-deep expression are judged as usual."""
    source = GOOD + (
        "\ndef test_nested():\n"
        "    rows = [[nightly_rate(b, s, n) for n in (1, 7)] for b in (1.0, 2.0) for s in ('low',)]\n"
        "    assert rows[0][0] == " + "(" * 40 + "0.8" + ")" * 40 + "\n")
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


@pytest.mark.parametrize("code", [
    # red team 36: the signal module as another module's attribute; a Python signal handler
    # receives whatever frame is running, with no audit event
    "import asyncio.unix_events\nasyncio.unix_events.signal.signal(14, print)",
    "import subprocess\nsubprocess.signal.setitimer(0, 0.1)",
    "from asyncio.unix_events import signal as s\ns.raise_signal(14)",
    "from subprocess import signal\nsignal.alarm(1)",
    "import subprocess\nnumber = subprocess.signal.SIGALRM",
    "import subprocess\nsig = subprocess._signal",
    "import subprocess\nsig = getattr(subprocess, 'signal')",
    "import operator, subprocess\noperator.methodcaller('alarm', 1)(subprocess.signal)",
])
def test_signal_reached_as_another_modules_attribute_is_an_exit(code: str) -> None:
    _fired("static-process-exit", _in_test(code))


@pytest.mark.parametrize("code", [
    # a library's function named signal, called; a library's own signal package
    "import blinker\nbooked = blinker.signal('booked')\nbooked.connect(print)",
    "from blinker import signal\nassert signal('booked') is signal('booked')",
    "from scipy import signal\nb, a = signal.butter(4, 0.1)",
    "import scipy.signal\nb, a = scipy.signal.butter(4, 0.1)",
])
def test_a_librarys_signal_function_is_not_an_exit(code: str) -> None:
    assert "static-process-exit" not in rules(_in_test(code))


@pytest.mark.parametrize(("code", "rule"), [
    # red team 37: a module the rules judge, reached as another module's attribute, is judged
    # as that module (rules/names.py, rooted)
    ("import timeit\ntimeit.gc.callbacks.append(print)", "static-reflective-access"),
    ("import timeit\nmod = timeit.sys.modules[key]", "static-reflective-access"),
    ("import tracemalloc\nvalue = tracemalloc.pickle.loads(b)", "static-hidden-code"),
    ("import asyncio.unix_events\nasyncio.unix_events.signal.raise_signal(2)", "static-process-exit"),
    ("from tracemalloc import pickle\nvalue = pickle.loads(b)", "static-hidden-code"),
    ("import a.b\na.b.sys.settrace(None)", "static-tracing-tamper"),
    ("import timeit\nleave = timeit.sys.exit\nleave(0)", "static-process-exit"),
    ("from hotel.pricing import os as o\no._exit(0)", "static-process-exit"),
    ("from linecache import sys\nfor name in sys.modules:\n    pass", "static-reflective-access"),
    ("import timeit\nnames = vars(timeit.builtins)", "static-hidden-code"),
    ("import timeit\nfn = getattr(timeit.os, name)", "static-reflective-access"),
    ("import timeit\ntimeit.sys.path.insert(0, str(tmp_path))", "static-hidden-code"),
    ("import timeit\ntimeit.itertools.builtins.quit()", "static-process-exit"),
    ("import asyncio.subprocess\nasyncio.subprocess.subprocess.signal.alarm(1)", "static-process-exit"),
    # a module's own function of its name, handed on, is still that function
    ("import timeit\nrun = timeit.timeit\nrun(code)", "static-hidden-code"),
    # dotted names written as strings, for pkgutil.resolve_name, pydoc.locate, mock.patch
    ("import pkgutil\nload = pkgutil.resolve_name('tracemalloc.pickle:loads')", "static-hidden-code"),
    ("import pydoc\nlib = pydoc.locate('multiprocessing.sharedctypes.ctypes.CDLL')", "static-native-code"),
])
def test_a_module_reached_as_another_modules_attribute_is_that_module(code: str, rule: str) -> None:
    _fired(rule, _in_test(code))


@pytest.mark.parametrize("code", [
    "import blinker\nbooked = blinker.signal('booked')",
    "import scipy.signal\nb, a = scipy.signal.butter(4, 0.1)",
    "from pathlib import Path\nassert Path(tmp_path).exists()",
    "assert os.path.join('a', 'b') == 'a/b'",
    "import logging\nlog = logging.getLogger(__name__)\nlog.info('x')",
    "import json\nassert json.dumps([1]) == '[1]'",
    "import types\nns = types.SimpleNamespace(gc=1, sys=2)\nassert ns.gc + ns.sys == 3",
    "assert pricing.nightly_rate(100.0, 'high', 7) == 112.5",
    "import socket\nassert isinstance(socket.socket, type)",
])
def test_a_module_named_like_a_well_known_one_in_honest_code_is_quiet(code: str) -> None:
    assert rules(_in_test(code)) == set()


def test_self_sys_is_no_module() -> None:
    source = (_HEAD + "class TestX:\n    def test_x(self):\n        self.sys = sys\n"
              "        assert self.sys.modules and self.gc.callbacks\n" + _ASSERT.replace(
                  "    ", "        ", 1))
    assert rules(source) == set()


def test_the_targets_module_named_like_a_well_known_one_stays_the_target() -> None:
    # a target in mypkg/types.py: hotel.types is its module, not the standard types, so the
    # target rules still find it; the standard types it imports is still that module
    head = "import hotel.types\nfrom hotel.types import parse\n"
    test = "def test_x(monkeypatch):\n    {}\n    assert parse('1') == 1\n"
    kwargs = {"qualname": "parse", "path": "hotel/types.py"}
    assert rules(head + test.format("assert parse('2') == 2"), **kwargs) == set()
    assert "static-target-replaced" in rules(
        head + test.format("monkeypatch.setattr(hotel.types, 'parse', len)"), **kwargs)
    assert "static-hidden-code" in rules(
        head + test.format("f = hotel.types.types.FunctionType(code, {})"), **kwargs)


def test_exit_quiet() -> None:
    source = ("import sys\nimport pytest\ndef exit_code(x):\n    return x\n"
              "def test_x():\n    assert exit_code(1) == 1\n    assert sys.version_info > (3,)\n"
              "    with pytest.raises(SystemExit):\n        exit_code(None)\n")
    assert "static-process-exit" not in rules(source)



_STUB_TEST = ("    monkeypatch.setattr(termui, 'prompt', stub)\n"
              "    with pytest.raises(termui.Abort):\n        termui.confirm('go on')\n")


@pytest.mark.parametrize("stub", [
    "    def stub(prompt=''):\n        raise KeyboardInterrupt\n",
    "    def stub(prompt=''):\n        raise KeyboardInterrupt()\n",
    "    def stub(prompt=''):\n        raise SystemExit(2)\n",
    "    async def stub(prompt=''):\n        raise KeyboardInterrupt\n",
    "    class Fake:\n        def read(self):\n            raise KeyboardInterrupt\n"
    "    stub = Fake().read\n",
])
def test_exit_quiet_in_a_stub_handed_to_the_target(stub: str) -> None:
    """click turns Ctrl-C at a prompt into Abort: a stub prompt that raises it is honest."""
    source = ("import pytest\nfrom project import termui\n"
              f"def test_ctrl_c_aborts(monkeypatch):\n{stub}{_STUB_TEST}")
    assert "static-process-exit" not in rules(source)


def test_exit_quiet_in_a_module_level_stub() -> None:
    source = ("import pytest\nfrom project import termui\n"
              "def interrupted(prompt=''):\n    raise KeyboardInterrupt\n"
              "def test_ctrl_c_aborts(monkeypatch):\n"
              + _STUB_TEST.replace("stub", "interrupted"))
    assert "static-process-exit" not in rules(source)


@pytest.mark.parametrize("source", [
    # the test itself, directly or in a block
    "def test_x():\n    assert 1 + 1 == 2\n    raise KeyboardInterrupt\n",
    "def test_x():\n    assert 1 + 1 == 2\n    if True:\n        raise SystemExit\n",
    "class TestX:\n    def test_x(self):\n        assert 1 + 1 == 2\n        raise SystemExit\n",
    # module level (at import)
    "raise SystemExit\ndef test_x():\n    assert 1 + 1 == 2\n",
    # what pytest runs: fixtures, setup and teardown
    "import pytest\n@pytest.fixture\ndef env():\n    yield 1\n    raise KeyboardInterrupt\n"
    "def test_x(env):\n    assert env == 1\n",
    "def teardown_module():\n    raise SystemExit\ndef test_x():\n    assert 1 + 1 == 2\n",
    "import unittest\nclass T(unittest.TestCase):\n    def tearDown(self):\n"
    "        raise KeyboardInterrupt\n    def test_x(self):\n        self.assertEqual(1, 1)\n",
    # a stub the test calls itself, by name or as a method
    "def test_x():\n    def stop():\n        raise SystemExit\n    assert 1 + 1 == 2\n    stop()\n",
    "def stop():\n    raise KeyboardInterrupt\ndef test_x():\n    assert 1 + 1 == 2\n    stop()\n",
    "def test_x():\n    class Fake:\n        def halt(self):\n            raise SystemExit\n"
    "    assert 1 + 1 == 2\n    Fake().halt()\n",
    "def test_x():\n    def outer():\n        def inner():\n            raise SystemExit\n"
    "        inner()\n    assert 1 + 1 == 2\n    outer()\n",
    # hidden in exec
    "def test_x():\n    assert 1 + 1 == 2\n    exec('raise SystemExit')\n",
    # the other spellings stay banned inside a stub too
    "def test_x(monkeypatch):\n    def stub():\n        import sys\n        sys.exit(0)\n"
    "    monkeypatch.setattr('project.termui.prompt', stub)\n    assert 1 + 1 == 2\n",
])
def test_exit_fires_where_the_test_itself_ends_the_run(source: str) -> None:
    assert "static-process-exit" in rules(source)

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


def test_a_tree_too_deep_to_check_is_a_modified_source_not_a_crash(
        tmp_path: Path, deep_tree: Callable[[Path], None]) -> None:
    """Red team 2 finding 13: 1500 nested folders made the post-run rglob raise RecursionError."""
    sub = _boxed(tmp_path)
    deep_tree(sub.sandbox.path)  # type: ignore[union-attr]
    try:
        found = list(static.check_after_run(sub))
    finally:
        assert safeio.remove_tree(sub.sandbox.path / "d") == []  # type: ignore[union-attr]
    assert [(f.rule, f.where, f.actual) for f in found] == [
        ("run-sources-modified", "d", "the test left a tree over 100 folders deep")]


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


# --- helpers for the rule modules' tests (assertions, escapes) --------------
# Each: literal forms that fire a rule, with the line, and close honest variants that stay quiet.

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



def test_every_rule_quiet_on_the_good_test() -> None:
    assert facts(GOOD) == []


@pytest.mark.parametrize("code", [
    "exec(bytes.fromhex('78203d2031').decode())",
    "eval(''.join(['1', '+1']))",
    "code = compile(data, '<x>', 'exec')",
    "import marshal\nmarshal.loads(b'')",
    "import types\ntypes.FunctionType(nightly_rate.__code__, {})",
    "import runpy\nrunpy.run_path(str(tmp_path / 'x.py'))",
    "list(map(exec, ['x = 1']))",
    "run = eval\nrun('1')",
    "__builtins__['exec']('x = 1')",
    "import importlib.util\nimportlib.util.spec_from_file_location('m', tmp_path / 'm.py')",
    "import pickle\npickle.loads(bytes.fromhex('80'))",
    "import pickle\nblob = b'x'\npickle.loads(blob)",
    "import pickle\nwith open(tmp_path / 'p', 'rb') as f:\n    pickle.load(f)",
    "sys.path.insert(0, str(tmp_path))",
    "sys.path = [str(tmp_path)]",
    "sys.meta_path.append(object())",
    "monkeypatch.syspath_prepend(tmp_path)",
    "import zipimport\nzipimport.zipimporter(str(tmp_path / 'z.zip'))",
    "import pkgutil\npkgutil.resolve_name('builtins:exec')",
    "import timeit\ntimeit.timeit(bytes.fromhex('31').decode(), number=1)",
    "import doctest\ndoctest.run_docstring_examples(nightly_rate, {})",
    "import logging.config\nlogging.config.dictConfig({'version': 1})",
    "import builtins\nrun = next(v for k, v in vars(builtins).items() if k == 'x')",
    "names = sys.__dict__",
    # red team 30: code compiled under a module's file name, functions made by another
    # spelling, attributes looked up by a name built at run time
    "code = compile('x = 1', '/opt/lib/helpers.py', 'exec')",
    "code = compile('x = 1', filename=name, mode='exec')",
    "code = compile('x = 1', '<frozen importlib._bootstrap>', 'exec')",
    "f = type(lambda: None)(code, globals())",
    "def helper():\n    pass\nf = type(helper)(code, {})",
    "f = nightly_rate.__code__.replace(co_filename='/x.py')",
    "import builtins\nrun = builtins.__getattribute__(''.join(('ex', 'ec')))",
    "import builtins\nrun = object.__getattribute__(builtins, name)",
    "import builtins, functools\nrun = functools.reduce(getattr, [name], builtins)",
    "import builtins\nrun = list(map(getattr, [builtins], [name]))[0]",
    "import builtins, inspect\nrun = dict(inspect.getmembers(builtins))[name]",
    # red team 31: a module file written to tmp_path, found and run; a debugger's frames
    "from importlib.machinery import PathFinder\nspec = PathFinder.find_spec('m', [str(tmp_path)])",
    "import importlib.util\nm = importlib.util.module_from_spec(spec)",
    "spec.loader.exec_module(m)",
    "import pdb\npdb.Pdb.setup(duck, None, tb)",
    "import bdb\nframes = bdb.Bdb.get_stack(None, None, tb)",
    # red team 32: compiled modules written and imported, a library module reloaded
    "(tmp_path / 'probe.pyc').write_bytes(data)",
    "(tmp_path / '__pycache__').mkdir()",
    "list.append(sys.path, str(tmp_path))",
    "import importlib\nimportlib.reload(pytest)",
    # red team 33: a package's __path__, pickle's loads under other names
    "import hotel\nhotel.__path__.append(str(tmp_path))",
    "import hotel\nhotel.__path__ = [str(tmp_path)]",
    # red team 57: the list bound to a name first, appended to out of the rule's sight
    "import email\nwhere = email.__path__\nwhere.append('/usr/lib/python3.11/multiprocessing')",
    "import hotel\nhotel.__spec__.submodule_search_locations.append(str(tmp_path))",
    "from multiprocessing.reduction import ForkingPickler\nForkingPickler.loads(data)",
    "import pickle\npickle._loads(data)",
    # red team 34: code objects read from a file, made a function by another spelling
    "import pkgutil, io\ncode = pkgutil.read_code(io.BytesIO(data))",
    "import pstats\nstats = pstats.Stats(str(tmp_path / 'p'))",
    "import json\nf = type(json.dumps)(code, {})",
    # red team 35: audit events raised by the test, parsed by the run's hooks
    "sys.audit('quest.event', tmp_path)",
    "from sys import audit\naudit('quest.event')",
    "list(map(sys.audit, ['quest.event']))",
    # timeit given text that is not written out, as its statement or its setup
    "import timeit\ncode = ''.join(['1', '+1'])\ntimeit.timeit(code, number=1)",
    "import timeit\ntimeit.timeit(f'{1}+1', number=1)",
    "import timeit\ntimeit.repeat('x' + str(1), number=1)",
    "import timeit\ntimeit.Timer(stmt=bytes.fromhex('31').decode())",
    "import timeit\ntimeit.timeit(lambda: 1, setup=bytes.fromhex('31').decode())",
    "import timeit\ntimeit.timeit('1', 'x = %s' % 1)",
    "import timeit, types\nns = types.SimpleNamespace(code=''.join('1'))\ntimeit.timeit(ns.code)",
    "import timeit\nhotel_code = ''.join('1')\npricing.code = hotel_code\ntimeit.timeit(pricing.code)",
    "import timeit\ntimeit.timeit(*parts)",
    "import timeit\ntimeit.timeit(tmp_path, number=1)",
    # what else of timeit compiles text: its template, its command line, its constructor
    "import timeit\ntimeit.template = ''.join('x')\ntimeit.timeit(lambda: 0)",
    "import timeit\nsetattr(timeit, 'temp' + 'late', 'x')",
    "monkeypatch.setattr('timeit.template', 'x')",
    "import timeit\ntimeit.main(['-s', setup])",
    "import timeit\nt = timeit.Timer(lambda: 0)\ntimeit.Timer.__init__(t, code)",
])
def test_hidden_code_is_a_review(code: str) -> None:
    fact = _fired("static-hidden-code", _in_test(code))
    assert fact.level == "review" and fact.expected == "only code written in the test file"


@pytest.mark.parametrize("code", [
    "exec('x = 1')",
    "eval('1' + '+1')",
    "import re\nre.compile(r'\\d+')",
    "import types\nassert isinstance(nightly_rate, types.FunctionType)",
    "compile = len\ncompile('ab')",
    "settings = {'exec': 1}\nassert settings.get('exec')",
    "import pickle\nassert pickle.loads(pickle.dumps([1])) == [1]",
    "import pickle\ndata = pickle.dumps({'a': 1})\nassert pickle.loads(data)",
    "assert str(tmp_path) not in sys.path",
    "import timeit\ntimeit.timeit('1 + 1', number=1)",
    "code = compile('x = 1', 'f.py', 'exec')",
    "code = compile('x = 1', '<probe>', 'exec')",
    "assert vars(tmp_path) is not None",
    "assert type(tmp_path)(str(tmp_path)) == tmp_path",
    "assert getattr(tmp_path, 'name')",
    "assert tmp_path.__getattribute__('name')",
    "import inspect\nassert inspect.getmembers(tmp_path)",
    "assert len(sys.path) > 0 and str(tmp_path) not in list(sys.path)",
    "assert (tmp_path / 'data.py').name == 'data.py'",
    "import hotel\nassert hotel.__name__ == 'hotel'",
    "import pdb\ntry:\n    assert tmp_path\nexcept AssertionError:\n    pdb.post_mortem()",
    "from hotel import pricing\nassert type(tmp_path)(str(tmp_path))",
    "assert sorted([tmp_path], key=lambda p: getattr(p, 'name'))",
    # red team 35's false REVIEW: timeit given a callable, never compiled
    "import timeit\nt = timeit.timeit(lambda: nightly_rate(100.0, 'high', 7), number=200)",
    "import timeit\nt = timeit.repeat(lambda: nightly_rate(1.0, 'low', 1), repeat=3, number=10)",
    "import timeit\nt = timeit.Timer(lambda: 1).timeit(10)",
    "import timeit, functools\nt = timeit.timeit(functools.partial(nightly_rate, 1.0, 'low', 1))",
    "import timeit\nt = timeit.timeit(pricing.nightly_rate, number=1)",
    "import timeit\nt = timeit.timeit(nightly_rate, number=1)",
    "import timeit\ndef work():\n    return 1\nt = timeit.timeit(work, setup=lambda: None, number=1)",
    "import timeit\nt = timeit.timeit(stmt='1 + 1', setup='x = 1', number=1)",
    "import timeit\nt = timeit.default_timer()",
])
def test_code_written_in_the_file_is_not_hidden(code: str) -> None:
    assert "static-hidden-code" not in rules(_in_test(code))


def test_a_fixtures_value_given_to_timeit_is_not_a_callable() -> None:
    # A function's name is a callable only where its def alone binds it: a test's parameter
    # of that name is the fixture's value, text for all the stage knows; a decorator may
    # return text too.
    fixture = ("import timeit\n@pytest.fixture\ndef work():\n    return ''.join('1')\n"
               + _in_test("t = timeit.timeit(work, number=1)", "tmp_path, work"))
    assert "static-hidden-code" in rules(fixture)
    decorated = ("import timeit\ndef text(f):\n    return ''.join('1')\n@text\n"
                 "def work():\n    pass\n" + _in_test("t = timeit.timeit(work, number=1)"))
    assert "static-hidden-code" in rules(decorated)
    plain = "import timeit\ndef work():\n    pass\n" + _in_test("t = timeit.timeit(work)")
    assert "static-hidden-code" not in rules(plain)


def test_a_main_block_never_runs_under_pytest_unless_the_file_names_itself_main() -> None:
    # boltons' test_listutils times itself under `if __name__ == "__main__":` with built
    # timeit setup text (an honest human test in calibration).
    main = ("import timeit\n" + _in_test("assert True")
            + "\nif __name__ == '__main__':\n"
            "    timeit.timeit('f()', setup=os.environ['SETUP'])\n")
    assert "static-hidden-code" not in rules(main)
    for rename in ("__name__ = '__main__'\n", "globals()['__name__'] = '__main__'\n"):
        assert "static-hidden-code" in rules(rename + main), rename
    # what runs when the file is not the main script still counts
    other = main.replace("if __name__ == '__main__':", "if __name__ != '__main__':")
    assert "static-hidden-code" in rules(other)


def test_a_second_module_of_a_builtin_is_hidden_code() -> None:
    # BuiltinImporter.create_module makes a second _signal, whose installer is the
    # interpreter's own again (the run replaced the first one's).
    for spelling in ("importlib.machinery.BuiltinImporter.create_module(spec)",
                     "_imp.create_builtin(spec)", "imp.init_builtin('gc')",
                     "import_helper.import_fresh_module('signal', fresh=['_signal'])"):
        head = ("import importlib.machinery\nimport _imp\nimport imp\n"
                "from test.support import import_helper\n")
        assert "static-hidden-code" in rules(head + _in_test(f"m = {spelling}")), spelling
    assert "static-hidden-code" not in rules("import importlib.machinery\n" + _in_test(
        "assert importlib.machinery.SOURCE_SUFFIXES"))


def test_a_module_put_in_a_container_is_hidden_code() -> None:
    # Red team 39: [sys.modules][0]["..."] and setattr([types][0], ...) reached what every
    # rule refuses by name.
    for spelling in ("m = [sys.modules][0]", "t = (types,)[0]", "d = {'k': gc}['k']",
                     "x = [m for m in [os]]"):
        head = "import sys\nimport types\nimport gc\nimport os\n"
        assert "static-hidden-code" in rules(head + _in_test(spelling)), spelling
    for honest in ("paths = [os.path.join('a', 'b')]", "names = [pricing, 'x']",
                   "calls = [nightly_rate]"):
        head = "import os\n"
        assert "static-hidden-code" not in rules(head + _in_test(honest)), honest


def test_a_frame_or_globals_name_joined_from_pieces_is_still_that_name() -> None:
    # Red team 40: `_GL = "".join(["__glo", "bals__"])` then `getattr(f, _GL)` (a function's
    # globals raise no audit event), `getattr(object, _S)` for `__subclasses__`.
    head = '_GL = "".join(["__glo", "bals__"])\n_S = "".join(("__subcla", "sses__"))\n'
    for spelling in ("g = getattr(nightly_rate, _GL)", "s = getattr(object, _S)()",
                     'g = getattr(nightly_rate, "".join(["__glo", "bals__"]))'):
        assert "static-reflective-access" in rules(head + _in_test(spelling)), spelling
    name = 'NAME = "".join(["nightly", "_rate"])\n'
    assert "static-reflective-access" not in rules(name + _in_test(
        "f = getattr(pricing, NAME)"))


def test_sys_addaudithook_stays_a_tracing_tamper() -> None:
    # red team 35: sys.audit is a review (hidden code), adding a hook stays a FAIL
    assert "static-tracing-tamper" in rules(_in_test("sys.addaudithook(print)"))


def test_a_dotted_string_rooted_in_a_native_bridge_is_named() -> None:
    # Red team 28: pkgutil.resolve_name("ctypes.py_object") imported ctypes by a string that
    # was not exactly "ctypes".
    for code in ("import pkgutil\npkgutil.resolve_name('ctypes.py_object')",
                 "import pydoc\npydoc.locate('ctypes:pointer')"):
        assert "static-native-code" in rules(_in_test(code)), code
    assert "static-native-code" not in rules(_in_test("assert 'ctypesque' != 'x'"))


def test_a_native_bridge_reached_as_another_modules_attribute_is_named() -> None:
    # Red teams 29 and 30: multiprocessing.sharedctypes imports ctypes; its attribute is ctypes.
    for code in ("from multiprocessing import sharedctypes\np = sharedctypes.ctypes.py_object",
                 "import multiprocessing.sharedctypes as s\np = s.ctypes"):
        assert "static-native-code" in rules(_in_test(code)), code
    assert "static-native-code" in rules(_in_test(  # ctypes' types by another name
        "from multiprocessing import sharedctypes\nt = sharedctypes.typecode_to_type['q']"))
    assert "static-native-code" not in rules(_in_test(
        "import multiprocessing\nassert multiprocessing.Value('i', 1).value == 1"))


def test_a_file_larger_than_the_gate_analyses_is_a_parse_fact() -> None:
    """Red team 52 hung a rule on a line of a million blanks; no rule reads a file larger
    than the limit (honest test files are far below it)."""
    from pytest_quest.submission import MAX_BYTES

    source = GOOD + "# " + "x" * MAX_BYTES + "\n"
    (fact,) = facts(source)
    assert fact.rule == "test-file-parses" and f"at most {MAX_BYTES}" in fact.actual
    assert facts(GOOD + "# " + "x" * 1000 + "\n") == []


def test_a_coverage_pragma_is_found_in_time_on_a_line_of_blanks() -> None:
    """Red team 52: ``#\\s*pragma\\s*:?\\s*no\\s*[-_]?\\s*`` backtracked quadratically on a line
    of blanks after ``# pragma: no`` (a million of them: hours). Blanks are squeezed first."""
    assert rules(GOOD + "# pragma: no" + " " * 50_000 + "x\n") == set()
    for line in ("x = 1  # pragma: no cover", "#pragma:nocover", "#  pragma  :  no  -  branch"):
        assert "static-coverage-pragma" in rules(GOOD + line + "\n"), line
