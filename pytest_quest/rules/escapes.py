"""Tier 0, part three: what the test reaches besides the function it checks.

A test that reads a frame, a module looked up under a computed name, ``/proc``,
site-packages or the target's own code is not checking behaviour: it is
looking for the gate (to rewrite its reports, to tell mutant runs from clean
ones) or for a way out of the sandbox. These rules name the literal forms of
those tricks early, with the line. They are explanations, not the wall: a
name computed at run time walks around any text rule, and what stops it then
is the kernel confinement, the sealed evidence channel and mutation runs that
look like clean runs (docs/security.md). So each rule here is precise first: a
false FAIL costs an honest test a try, so a rule fires on what no honest test
of a function needs (calibrated on real test files, docs/rules.md).
"""

from __future__ import annotations

import ast
import itertools
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass

from pytest_quest.facts import FAIL, Fact
from pytest_quest.gate import CATALOG, Rule
from pytest_quest.rules.names import (
    Names,
    const_str,
    expand,
    folded_strings,
    in_tmp,
    quote,
    rooted,
)
from pytest_quest.submission import Submission

__all__ = [
    "BANNED", "FD_WRITE", "GATE_FILES", "IMPORT_TIME_CALL", "NATIVE", "PROC", "READS_TARGET",
    "REFLECTIVE", "SITE", "Target", "check_escapes",
]

_COVERAGE = ("coverage-lines", "coverage-branches")

REFLECTIVE = CATALOG.add(
    "static-reflective-access", FAIL, "static",
    "The test does not reach other code's state by reflection: frames (sys._getframe, "
    "inspect.currentframe/stack/trace, tb_frame, f_back, f_locals, f_globals, gi_frame, "
    "traceback.walk_stack/walk_tb), the code of a frame or generator (f_code, gi_code, "
    "cr_code), gc.get_objects/get_referrers/get_referents, gc.set_debug (DEBUG_SAVEALL "
    "keeps every frame the collector frees in gc.garbage), gc.DEBUG_SAVEALL/DEBUG_LEAK, "
    "gc.callbacks, the allocator's and the collector's counts of the process a run was "
    "forked from (sys._debugmallocstats, sys.getallocatedblocks, gc.get_count, gc.get_stats), "
    "__main__, __globals__, __subclasses__, sys.modules enumerated or indexed "
    "by a computed key, globals()/vars()/__dict__ indexed by a computed key, getattr with a "
    "computed name on os/sys/builtins/importlib/pytest and other machinery modules, "
    "operator.attrgetter/methodcaller of one of those parts, __import__/import_module of a "
    "computed name outside the project.",
    "Call the function under test by its name and assert on its result; nothing else in the "
    "process is the test's business.",
    supersedes=_COVERAGE,
)
PROC = CATALOG.add(
    "static-proc-access", FAIL, "static",
    "The test does not read /proc or /dev/fd (the parent's cwd, environment or memory, other "
    "processes' files).",
    "Test the function with values written in the test, not with the machine's state.",
    supersedes=_COVERAGE,
)
SITE = CATALOG.add(
    "static-site-packages", FAIL, "static",
    "The test does not touch .pth files or site-packages (site.getsitepackages/addsitedir, "
    "USER_SITE, sysconfig paths): a .pth file runs code in every later Python process.",
    "Leave the installation alone; write scratch files under tmp_path.",
    supersedes=_COVERAGE,
)
FD_WRITE = CATALOG.add(
    "static-fd-write", FAIL, "static",
    "No file-descriptor-level writes that name their path indirectly: dir_fd=/src_dir_fd=/"
    "dst_dir_fd= arguments, os.fwalk, or os.open with write flags outside tmp_path.",
    "Write files with open() or pathlib under tmp_path.",
    supersedes=_COVERAGE,
)
NATIVE = CATALOG.add(
    "static-native-code", FAIL, "static",
    "The test loads no native-code bridge: ctypes, _ctypes, cffi, _posixsubprocess, "
    "_testcapi, libc, also when the module name is only a string (\"ctypes\").",
    "Test the Python function; native calls bypass every check the gate makes.",
    supersedes=_COVERAGE,
)
READS_TARGET = CATALOG.add(
    "static-reads-target-code", FAIL, "static",
    "The test does not read the code under test to decide its verdict: the target's "
    "__code__/co_code, inspect.getsource/getsourcelines/getfile, dis, marshal or linecache "
    "of the target or its module, opening the target's source file, or loading it a second "
    "time (spec_from_file_location, SourceFileLoader, runpy.run_path/run_module).",
    "Write the expected values out in the test; an oracle copied from the function agrees "
    "with every bug in it.",
    supersedes=_COVERAGE,
)
GATE_FILES = CATALOG.add(
    "static-gate-files", FAIL, "static",
    "The test names none of the gate's own files: the ledger and attempts log (.quest/, "
    "ledger.json, attempts.jsonl), the run's event log (events.jsonl) or the sandbox's private "
    "folder (../private): a run that rewrites them forges its own verdict.",
    "Leave pytest-quest's files alone; test the function.",
    supersedes=_COVERAGE,
)
IMPORT_TIME_CALL = CATALOG.add(
    "static-import-time-call", FAIL, "static",
    "The function under test is called only inside tests and fixtures, never while the test "
    "module is imported (module level, class bodies, decorator arguments such as "
    "parametrize, default argument values): a value computed by the function itself at "
    "import is an oracle that agrees with any bug.",
    "Write the expected values out in the test and call the function inside the test.",
    supersedes=_COVERAGE,
)

#: Dotted-name prefixes that are tricks wherever they are referenced (merged into the
#: static stage's reference check, so aliases, getattr and __import__ are seen through).
BANNED = {
    **dict.fromkeys((
        "sys._getframe", "sys._current_frames", "sys._current_exceptions", "inspect.currentframe",
        "inspect.stack", "inspect.trace", "inspect.getouterframes", "inspect.getinnerframes",
        "traceback.walk_stack", "traceback.walk_tb", "gc.get_objects", "gc.get_referrers",
        "gc.get_referents", "__main__",
        # with DEBUG_SAVEALL every frame the collector frees (a frame in a reference cycle,
        # an exception's traceback) lands in gc.garbage, and its f_back/f_locals walk every
        # frame below it with no audit event; gc.callbacks run inside every collection, on
        # whatever frame triggered it (red team 35). gc.collect() and reading gc.garbage stay
        # allowed: honest leak tests assert gc.garbage == [], and without SAVEALL no frame
        # lands there
        "gc.set_debug", "gc.DEBUG_SAVEALL", "gc.DEBUG_LEAK", "gc.callbacks",
        # A run is forked from the zygote with a copy of its heap: the allocator's and the
        # collector's counts are the zygote's, which move as it reaps runs and tell a run
        # its place in the schedule (red team 66 read it in _debugmallocstats' figures)
        "sys._debugmallocstats", "sys.getallocatedblocks", "gc.get_count", "gc.get_stats",
    ), REFLECTIVE),
    **dict.fromkeys((
        "ctypes", "_ctypes", "cffi", "_cffi_backend", "_posixsubprocess", "_testcapi",
        "_testinternalcapi", "_xxsubinterpreters", "_interpreters",
        # ctypes' types by another name: typecode_to_type["q"].__mro__[1] (red team 31)
        "multiprocessing.sharedctypes",
    ), NATIVE),
    **dict.fromkeys((
        "site.getsitepackages", "site.getusersitepackages", "site.addsitedir", "site.USER_SITE",
        "site.USER_BASE", "site.PREFIXES", "site.main", "sysconfig.get_path",
        "sysconfig.get_paths",
    ), SITE),
    "os.fwalk": FD_WRITE,
}

#: Attributes that only frames, tracebacks and the object graph have.
_FRAME_ATTRS = frozenset({"tb_frame", "f_back", "f_locals", "f_globals", "f_builtins",
                          "gi_frame", "cr_frame", "ag_frame", "__globals__",
                          "__subclasses__", "func_globals",
                          # the code a frame, generator or coroutine runs: the installed code
                          # of the target, a mutant's (red team 6, finding 06)
                          "f_code", "gi_code", "cr_code", "ag_code"})
#: Attribute names that only reach frames, code or every object: what ``BANNED`` names, here
#: as a string given to ``operator.attrgetter`` (``attrgetter("currentframe")(inspect)``).
_REFLECTORS = frozenset({"__code__", "_getframe", "_current_frames", "currentframe",
                         "getouterframes", "getinnerframes", "walk_stack", "walk_tb",
                         "get_objects", "get_referrers", "get_referents", "settrace",
                         "setprofile", "set_debug", "DEBUG_SAVEALL", "DEBUG_LEAK",
                         "_debugmallocstats", "getallocatedblocks"})
#: Callables that read attributes named by a string: ``getattr`` by another name. A name
#: computed at run time is left to the run's code watch, as for ``getattr``.
_ATTR_READERS = frozenset({"operator.attrgetter", "operator.methodcaller"})
#: Modules whose attributes reach the process, the interpreter or the gate.
_MACHINERY = frozenset({
    "os", "posix", "nt", "sys", "builtins", "importlib", "gc", "inspect", "subprocess",
    "signal", "atexit", "faulthandler", "pytest", "_pytest", "pluggy", "coverage",
    "pytest_cov", "pytest_quest", "threading", "_thread", "shutil", "io", "_io", "socket",
    "marshal", "types", "runpy", "site", "sysconfig", "multiprocessing", "pty", "fcntl",
    "resource", "traceback", "__main__",
})
_NATIVE_STRINGS = frozenset(m for m, r in BANNED.items() if r is NATIVE)
_DIR_FD = frozenset({"dir_fd", "src_dir_fd", "dst_dir_fd"})
_WRITE_BITS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_WRITE_FLAGS = frozenset({"os.O_WRONLY", "os.O_RDWR", "os.O_APPEND", "os.O_TRUNC", "os.O_CREAT",
                          "posix.O_WRONLY", "posix.O_RDWR", "posix.O_APPEND", "posix.O_TRUNC",
                          "posix.O_CREAT"})
_PROC = re.compile(r"^/+(proc|dev/fd)(/|$)")
_GATE_FILE = re.compile(r"(^|[/\\])(\.quest([/\\]|$)|ledger\.json$|attempts\.jsonl$|events\.jsonl$"
                        r"|\.\.[/\\]private([/\\]|$))")
_IMPORTERS = frozenset({"__import__", "builtins.__import__", "importlib.import_module",
                        "importlib.__import__", "importlib.util.find_spec",
                        "pkgutil.resolve_name", "pydoc.locate", "pydoc.safeimport"})
_CODE_READERS = frozenset({
    "inspect.getsource", "inspect.getsourcelines", "inspect.getsourcefile", "inspect.getfile",
    "inspect.findsource", "inspect.getcomments", "inspect.getblock", "dis.dis", "dis.Bytecode",
    "dis.get_instructions", "dis.code_info", "dis.show_code", "dis.disassemble",
    "marshal.dumps", "marshal.dump", "linecache.getline", "linecache.getlines",
    "linecache.updatecache", "tokenize.open",
})
_LOADERS = frozenset({
    "importlib.util.spec_from_file_location", "importlib.machinery.SourceFileLoader",
    "importlib.machinery.SourcelessFileLoader", "importlib.machinery.FileFinder",
    "imp.load_source", "imp.load_module", "runpy.run_path", "runpy.run_module",
    "importlib.util.spec_from_loader", "zipimport.zipimporter",
})
_READERS = frozenset({"open", "io.open", "builtins.open", "codecs.open", "io.FileIO", "os.open"})
#: Calls and attributes that turn a file's path into its folder or a sibling's path.
_AWAY = frozenset({"dirname", "parent", "parents", "with_name", "with_suffix", "with_stem",
                   "split", "abspath_dir"})
_READ_METHODS = frozenset({"read_text", "read_bytes", "open"})
_Hit = tuple[Rule, ast.AST, str]


@dataclass(frozen=True)
class Target:
    """The function under test as the test may name it."""

    #: Dotted name, ``hotel.pricing.nightly_rate``.
    full: str
    module: str
    #: The source file from the project root, ``hotel/pricing.py``.
    path: str
    #: Top-level packages of the project (computed imports inside them are fine).
    packages: frozenset[str]

    def names_module(self, name: str | None) -> bool:
        """``name`` is the target's module or one of its packages (whose file leads to it)."""
        return bool(name) and (name == self.module or self.module.startswith(f"{name}."))


def check_escapes(sub: Submission, tree: ast.Module, names: Names,
                  target: Target) -> Iterator[Fact]:
    """One fact per line and rule for reflection, escapes and oracles read from the target."""
    seen: set[tuple[str, int]] = set()
    for rule, node, why in _hits(tree, names, target):
        line = getattr(node, "lineno", 1)
        if (rule.id, line) in seen:
            continue
        seen.add((rule.id, line))
        yield rule.fact(f"{sub.test_rel}:{line}", why, f"`{quote(sub, node)}`")


def _hits(tree: ast.Module, names: Names, target: Target) -> Iterator[_Hit]:
    docstrings = {id(s.value) for s in ast.walk(tree) if isinstance(s, ast.Expr)
                  and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            if node.attr in _FRAME_ATTRS:
                yield REFLECTIVE, node, f"no {node.attr} in a quest test"
            elif node.attr in ("__code__", "co_code") and _is_target(node.value, names, target):
                yield READS_TARGET, node, f"the test does not read {node.attr} of the target"
        elif isinstance(node, ast.Subscript):
            why = _computed_item(node.value, node.slice, names)
            if why:
                yield REFLECTIVE, node, why
        elif isinstance(node, ast.Call):
            yield from _call(node, names, target)
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension) and names.resolve(
            node.iter) == "sys.modules":
            yield REFLECTIVE, node.iter, "sys.modules is not enumerated in a quest test"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and (
            id(node) not in docstrings
        ):
            yield from _string(node, node.value)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Div):
            yield from _joined_path(node, [node.left, node.right])
    yield from _import_time_calls(tree, names, target)


def _string(node: ast.AST, text: str) -> Iterator[_Hit]:
    """String constants that name a native bridge, /proc or a .pth file."""
    # as a dotted name, rooted at the module it reaches ("multiprocessing.sharedctypes.ctypes"
    # is "ctypes": red team 37)
    root = rooted(text.strip().replace(":", "."), end=True).split(".", 1)[0]
    if text in _NATIVE_STRINGS or root in _NATIVE_STRINGS or "libc.so" in text:
        # "ctypes.py_object" for pkgutil.resolve_name, pydoc.locate, mock.patch (red team 28)
        yield NATIVE, node, f"no {text} in a quest test"
    if _PROC.match(text):
        yield PROC, node, "no /proc or /dev/fd path in a quest test"
    low = text.strip().lower()
    if low.endswith(".pth") or "site-packages" in low or "dist-packages" in low:
        yield SITE, node, "no .pth file or site-packages path in a quest test"
    for line in text.splitlines() or [text]:
        for piece in re.split(r"[\s'\"(),;=]+", line):
            if _GATE_FILE.search(piece):
                yield GATE_FILES, node, "the gate's own files are not named in a quest test"
                return


def _joined_path(node: ast.AST, parts: list[ast.expr]) -> Iterator[_Hit]:
    """``os.path.join("/", "proc", ...)``, ``Path("/") / "proc"``: a root then ``proc``."""
    texts = [_path_text(p) for p in parts]
    for first, second in itertools.pairwise(texts):
        if first is not None and second is not None and first.rstrip("/") == "" and first and (
            _PROC.match("/" + second.lstrip("/"))
        ):
            yield PROC, node, "no /proc or /dev/fd path in a quest test"
            return


def _path_text(node: ast.expr) -> str | None:
    """A string piece of a path: a literal, or the one literal a ``Path("/")`` is built from."""
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        return const_str(node.args[0])
    return const_str(node)


def _call(node: ast.Call, names: Names, target: Target) -> Iterator[_Hit]:
    func = names.resolve(node.func) or ""
    bare = func.removeprefix("builtins.")
    last = node.func.attr if isinstance(node.func, ast.Attribute) else ""
    for keyword in node.keywords:
        if keyword.arg in _DIR_FD and not (
            isinstance(keyword.value, ast.Constant) and keyword.value.value is None
        ):
            yield FD_WRITE, node, f"no {keyword.arg}= argument in a quest test"
    if func in ("os.open", "posix.open") and len(node.args) >= 2 and _flags_write(
        node.args[1], names
    ) and not in_tmp(expand(node.args[0], names), names):
        yield FD_WRITE, node, "no os.open for writing outside tmp_path"
    yield from _joined_path(node, node.args)
    if bare == "getattr" and len(node.args) >= 2 and const_str(node.args[1]) is None:
        base = names.resolve(node.args[0]) or ""
        if base.split(".")[0] in _MACHINERY:
            yield REFLECTIVE, node, f"getattr on {base} by a name written in the test"
    if bare == "getattr" and len(node.args) >= 2 and (
            attr := next((t for t in _texts(node.args[1], names) if t in _FRAME_ATTRS), None)):
        yield REFLECTIVE, node, f"no {attr} in a quest test"
    if func in _ATTR_READERS and node.args:
        texts = [const_str(a) for a in (node.args if func.endswith("attrgetter")
                                        else node.args[:1])]
        if any(t is not None and set(t.split(".")) & (_FRAME_ATTRS | _REFLECTORS)
               for t in texts):
            yield REFLECTIVE, node, f"{func} of a frame's or a code's part"
    if bare == "getattr" and len(node.args) >= 2 and const_str(node.args[1]) in (
        "__code__", "co_code"
    ) and _is_target(node.args[0], names, target):
        yield READS_TARGET, node, "the test does not read __code__ of the target"
    if func in _IMPORTERS and node.args and const_str(node.args[0]) is None and not (
        _project_prefix(node.args[0], target)
    ):
        yield REFLECTIVE, node, "imports by a module name written in the test"
    if last in ("get", "pop", "setdefault") and node.args and isinstance(node.func,
                                                                        ast.Attribute):
        why = _computed_item(node.func.value, node.args[0], names)
        if why:
            yield REFLECTIVE, node, why
    if func in ("sys.modules.values", "sys.modules.items", "sys.modules.keys",
                "sys.modules.copy") or (bare in ("list", "dict", "tuple", "set", "sorted")
                                        and node.args and names.resolve(node.args[0])
                                        == "sys.modules"):
        yield REFLECTIVE, node, "sys.modules is not enumerated in a quest test"
    if func in _CODE_READERS and any(_about_target(a, names, target) for a in node.args):
        yield READS_TARGET, node, f"the test does not read the target's code ({func})"
    if func in _LOADERS and any(
        _about_target(a, names, target) for a in [*node.args, *(k.value for k in node.keywords)]
    ):
        yield READS_TARGET, node, f"the target's module is not loaded a second time ({func})"
    reads = (func in _READERS and node.args and not _writes(node, names)) or (
        last in _READ_METHODS and isinstance(node.func, ast.Attribute) and not node.args
    )
    if reads:
        path = node.args[0] if func in _READERS and node.args else node.func
        if isinstance(path, ast.Attribute) and path.attr in _READ_METHODS:
            path = path.value
        if _source_file(path, names, target):
            yield READS_TARGET, node, "the test does not open the target's source file"


def _writes(node: ast.Call, names: Names) -> bool:
    mode = next((k.value for k in node.keywords if k.arg in ("mode", "flags")), None)
    if mode is None and len(node.args) > 1:
        mode = node.args[1]
    if mode is None:
        return False
    text = const_str(mode)
    if text is not None:
        return any(c in text for c in "wax+")
    return _flags_write(mode, names)


def _texts(node: ast.AST, names: Names) -> list[str]:
    """The strings ``node`` folds to, ``"".join`` of literals too: itself, or every value a
    name of the file is given (``_GL = "".join(["__glo", "bals__"])`` then
    ``getattr(f, _GL)``: red team 40)."""
    text = _joined(node)
    if text is not None:
        return [text]
    if isinstance(node, ast.Name):
        return [t for value in names.assigned.get(node.id, ()) if (t := _joined(value))]
    return []


def _joined(node: ast.AST) -> str | None:
    """A string literal, ``"a" + "b"``, or ``"".join(["a", "b"])`` of literals, folded."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr == "join" and len(node.args) == 1 and not node.keywords and \
            isinstance(node.args[0], ast.List | ast.Tuple):
        separator = const_str(node.func.value)
        pieces = [const_str(piece) for piece in node.args[0].elts]
        if separator is None or any(piece is None for piece in pieces):
            return None
        return separator.join(piece for piece in pieces if piece is not None)
    return const_str(node)


def _flags_write(node: ast.expr, names: Names) -> bool:
    for n in ast.walk(node):
        if names.resolve(n) in _WRITE_FLAGS:
            return True
        if isinstance(n, ast.Constant) and isinstance(n.value, int) and not isinstance(
            n.value, bool
        ) and n.value & _WRITE_BITS:
            return True
    return False


def _computed_item(mapping: ast.expr, key_node: ast.expr, names: Names) -> str | None:
    """``globals()[x]``, ``vars(os)[x]``, ``os.__dict__[x]``, ``sys.modules[x]`` (or their
    ``.get(x)``) with a computed ``x``; ``vars(config)["pluginmanager"]`` and frame
    attributes by key."""
    key = const_str(key_node)
    func = ""
    if isinstance(mapping, ast.Call):
        func = (names.resolve(mapping.func) or "").removeprefix("builtins.")
    is_dict = func in ("vars", "globals", "locals") or (
        isinstance(mapping, ast.Attribute) and mapping.attr == "__dict__")
    if key is not None:
        if is_dict and (key in _FRAME_ATTRS or key == "pluginmanager"):
            return f"no {key} in a quest test"
        return None
    if names.resolve(mapping) == "sys.modules":
        return None if _constant_or_own(key_node) else (
            "sys.modules indexed by a name written in the test")
    if func == "globals" or (func == "vars" and isinstance(mapping, ast.Call)
                             and not mapping.args):
        return f"{func}() indexed by a name written in the test"
    if is_dict:
        owner = mapping.args[0] if isinstance(mapping, ast.Call) and mapping.args else (
            mapping.value if isinstance(mapping, ast.Attribute) else None)
        base = names.resolve(owner) or ""
        if base.split(".")[0] in _MACHINERY:
            return f"{base} looked up by a name written in the test"
    return None


def _constant_or_own(node: ast.expr) -> bool:
    """A literal key, or ``__name__`` (the test module itself)."""
    return const_str(node) is not None or (isinstance(node, ast.Name) and node.id == "__name__")


def _project_prefix(node: ast.expr, target: Target) -> bool:
    """An f-string or concatenation that starts with one of the project's packages."""
    first: ast.AST = node
    while isinstance(first, ast.BinOp) and isinstance(first.op, ast.Add):
        first = first.left
    if isinstance(first, ast.JoinedStr) and first.values:
        first = first.values[0]
    text = const_str(first) if isinstance(first, ast.expr) else None
    if not text:
        return False
    return text.split(".")[0] in target.packages and "." in text


def _is_target(node: ast.expr, names: Names, target: Target) -> bool:
    return names.resolve(node) == target.full


def _about_target(node: ast.expr, names: Names, target: Target) -> bool:
    """``node`` is the target, its module (or a package leading to it) or its source file."""
    resolved = names.resolve(node)
    if resolved == target.full or target.names_module(resolved):
        return True
    if isinstance(node, ast.Constant) and node.value == target.module:
        return True
    return _source_file(node, names, target)


def _source_file(node: ast.expr, names: Names, target: Target) -> bool:
    """A path that leads to the target's source file: its name written out, or the
    ``__file__``/``__spec__.origin`` of its module (or of a package plus the file name)."""
    nodes = expand(node, names)
    base = target.path.rsplit("/", 1)[-1]
    if any(t.replace("\\", "/").endswith(("/" + base, base)) and t.endswith(base)
           for t in folded_strings(nodes)):
        return True
    if any((isinstance(n, ast.Attribute) and n.attr in _AWAY) or (
        isinstance(n, ast.Name) and n.id in _AWAY) for n in nodes):
        return False  # the module's folder or a file next to it, not its source
    for n in nodes:
        if isinstance(n, ast.Attribute) and n.attr in ("__file__", "__spec__", "__cached__",
                                                       "origin"):
            owner = n.value.value if isinstance(n.value, ast.Attribute) and (
                n.value.attr == "__spec__") else n.value
            if names.resolve(owner) == target.module:
                return True
        if isinstance(n, ast.Call) and names.resolve(n.func) in (
            "inspect.getfile", "inspect.getsourcefile"
        ) and n.args and (names.resolve(n.args[0]) == target.full
                          or names.resolve(n.args[0]) == target.module):
            return True
    return False


def _import_time_calls(tree: ast.Module, names: Names, target: Target) -> Iterator[_Hit]:
    """The target's results computed while the module is imported and then used as an
    expected value: a call in decorator arguments (``parametrize``), or a module-level,
    class-level or default-argument binding compared in an assertion. A factory called at
    import to build a fixture value (``Point = namedtuple(...)``) is not an oracle."""
    why = ("the expected value is written out, not computed by the function under test while "
           "the module is imported")
    bound: dict[str, ast.AST] = {}
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for deco in node.decorator_list:
                call = _target_call(deco, names, target)
                if call is not None:
                    yield IMPORT_TIME_CALL, call, why
            if isinstance(node, ast.ClassDef):
                stack += node.body
            else:
                args = node.args.posonlyargs + node.args.args
                defaults = zip(args[len(args) - len(node.args.defaults):], node.args.defaults,
                               strict=True)
                kw = zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True)
                for arg, value in [*defaults, *kw]:
                    call = _target_call(value, names, target) if value is not None else None
                    if call is not None:
                        bound[arg.arg] = call
            continue
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            call = _target_call(node.value, names, target)
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for leaf in ast.walk(t):
                    if call is not None and isinstance(leaf, ast.Name):
                        bound[leaf.id] = call
            continue
        stack += [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt)]
    if not bound:
        return
    _follow_loops(tree, bound)
    for node in ast.walk(tree):
        operands: list[ast.expr] = []
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
            node.func.attr.startswith("assert")
        ):
            operands = list(node.args)
        for operand in operands:
            root, attr = operand, None
            while isinstance(root, ast.Subscript | ast.Attribute):
                attr = root.attr if isinstance(root, ast.Attribute) else attr
                root = root.value
            name = root.id if isinstance(root, ast.Name) else None
            if name in ("self", "cls"):  # self.WANT: a class-level binding
                name = attr
            if name in bound:
                yield IMPORT_TIME_CALL, bound[name], why
                break


def _follow_loops(tree: ast.Module, bound: dict[str, ast.AST]) -> None:
    """``for case, want in zip(CASES, EXPECTED)``: the loop's names carry the oracle on."""
    loops = [n for n in ast.walk(tree) if isinstance(n, ast.For | ast.AsyncFor | ast.comprehension)]
    changed = True
    while changed:
        changed = False
        for loop in loops:
            origin = next((bound[n.id] for n in ast.walk(loop.iter)
                           if isinstance(n, ast.Name) and n.id in bound), None)
            if origin is None:
                continue
            for leaf in ast.walk(loop.target):
                if isinstance(leaf, ast.Name) and leaf.id not in bound:
                    bound[leaf.id] = origin
                    changed = True


def _target_call(node: ast.AST, names: Names, target: Target) -> ast.Call | None:
    """The first call of the target inside ``node``, not counting lambda bodies."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Lambda):
            continue
        if isinstance(current, ast.Call) and _is_target(current.func, names, target):
            return current
        stack += list(ast.iter_child_nodes(current))
    return None
