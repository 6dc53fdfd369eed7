# ruff: noqa: E501  (embedded test sources read better on one line)
"""Unit tests of the rules about what a test reaches besides its function
(pytest_quest/rules/escapes.py, issue 13.4): reflection, /proc, site-packages, fd-level writes,
native bridges, the target's own code, the gate's files, import-time oracles. For each rule the
literal forms that fire it, with the line, and close honest variants that stay quiet.
"""

from __future__ import annotations

import pytest

from tests.test_rules_static import _ASSERT, _HEAD, _fired, _in_test, rules


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
    # red team 51: a subinterpreter module imported by a built name through pydoc
    "import pydoc\nmod = pydoc.safeimport(''.join(map(chr, [95, 120, 120])))",
    "g = nightly_rate.__globals__",
    "classes = object.__subclasses__()",
    "f = getattr(e, 'tb_frame')",
    # red team 6, finding 06: the installed code (a reach check's stop) read through a frame or
    # a generator, and the attribute named to operator.attrgetter
    "code = e.__traceback__.tb_next.f_code",
    "from hotel.rooms import available_rooms\nnames = available_rooms([], 1, set()).gi_code.co_names",
    "import operator\nf = operator.attrgetter('tb_fr' + 'ame')(e.__traceback__)",
    "import operator\nc = operator.attrgetter('tb_frame.f_code')(e.__traceback__)",
    "import operator, inspect\nf = operator.attrgetter('current' + 'frame')(inspect)()",
    # red team 35: with DEBUG_SAVEALL a collected frame lands in gc.garbage, its f_back and
    # f_locals walk every frame below it with no audit event
    "import gc\ngc.set_debug(gc.DEBUG_SAVEALL)",
    "import gc\ngc.set_debug(32)",
    "from gc import DEBUG_SAVEALL\nflags = DEBUG_SAVEALL",
    "import gc\nflags = gc.DEBUG_LEAK",
    "import gc\ngc.callbacks.append(lambda phase, info: None)",
    "import gc, operator\noperator.attrgetter('set_' + 'debug')(gc)(32)",
    "import gc, operator\nflags = operator.attrgetter('DEBUG_SAVEALL')(gc)",
    # red team 66: the zygote's allocator and collector counts, inherited, told a run its place
    "sys._debugmallocstats()",
    "blocks = sys.getallocatedblocks()",
    "import gc\ncounts = gc.get_count()",
    "from gc import get_stats\nstats = get_stats()",
    "import operator\nn = operator.methodcaller('getallocated' + 'blocks')(sys)",
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
    # an honest leak test: without DEBUG_SAVEALL no frame lands in gc.garbage
    "import gc\ngc.collect()\nassert gc.garbage == []\nassert gc.get_debug() == 0",
    "import operator\nfire = operator.attrgetter('callbacks')(tmp_path)",
    "import operator\nrooms = sorted([], key=operator.attrgetter('capacity', 'number'))",
    "import operator\nname = ''.join(['sk', 'ip'])\nf = operator.attrgetter(name)(pytest)",
    "import operator\nup = operator.methodcaller('upper')\nassert up('a') == 'A'",
    "import operator\ncount = operator.methodcaller('get_count')(tmp_path) if False else 0",
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


@pytest.mark.parametrize("coding", ["latin-1", "utf-8", "cp1252"])
def test_a_fact_quotes_the_file_as_python_decodes_it(coding: str) -> None:
    """Red team 51: a latin-1 cookie, and the text quoted from a UTF-8 decoding of the bytes
    the tree was parsed from (its offsets count the cookie's encoding): ``submit`` crashed
    with ``UnicodeDecodeError`` instead of a verdict."""
    from dataclasses import replace

    from pytest_quest.rules import static
    from pytest_quest.submission import parse
    from tests.test_rules_static import make

    source = (f"# -*- coding: {coding} -*-\n{_HEAD}\ndef test_x():\n"
              "    os.open('x', os.O_RDONLY, dir_fd='\u00e9\u00e9\u00e9')\n" + _ASSERT)
    sub = parse(replace(make(""), test_bytes=source.encode(coding), tree=None))
    found = [fact for fact in static.check(sub) if fact.rule == "static-fd-write"]
    assert found and "dir_fd='\u00e9\u00e9\u00e9'" in found[0].actual


def test_a_quote_is_the_nodes_source_as_ast_gives_it_read_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team 62: ``ast.get_source_segment`` splits the whole text again for every fact
    (57,000 facts on a 1 MB file: hours). Quotes come from lines split once, alike."""
    import ast
    from dataclasses import replace

    from pytest_quest.rules.names import quote
    from pytest_quest.submission import parse
    from tests.test_rules_static import make

    source = ("x = 1\r\ny = f(\u00e9\u00e9,\n      2)  # \u00fc\rz = [a,\x0c b]\n"
              "w = g(\n" + "\n" * 100 + "  9)\n")
    sub = parse(replace(make(""), test_bytes=source.encode(), tree=None))
    assert sub.tree is not None
    text = sub.test_text  # newlines as Python reads the file
    # (3.13's helper ends with an empty line the tree never counts)
    assert sub.test_lines == [line for line in ast._splitlines_no_ff(text)  # type: ignore[attr-defined]
                              if line]
    for node in ast.walk(sub.tree):
        if isinstance(node, ast.expr) and node.end_lineno - node.lineno < 40:
            expected = " ".join(ast.get_source_segment(text, node).split())
            assert quote(sub, node, 500) == expected
    monkeypatch.setattr(ast, "get_source_segment", None)  # the quotes never call it
    assert quote(sub, sub.tree.body[1].value) == "f(\u00e9\u00e9, 2)"
    far = next(n for n in ast.walk(sub.tree)
               if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "g")
    assert quote(sub, far) == "g("  # a node spanning more lines: its first lines only
