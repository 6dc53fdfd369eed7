"""Code the static stage cannot read: a test that builds the code it runs is a human's call.

Every static rule reads the test file's text. A test that decodes its code from data and runs
it (``exec(bytes.fromhex(...))``, a code object from ``marshal``, a file run by ``runpy``)
shows the static stage nothing, and every in-process trick of the cheat corpus hides that way.
The run's own defences (the kernel, the guard, the code watch) still judge what such code
does, and a FAIL they find stands; but one of them can be walked around inside the test's own
process (``ctypes`` reads the installed code with no audit event: docs/security.md), so a
machine PASS must not rest on them alone. Hence REVIEW, not FAIL: an honest test may build
code (a code generator's output), and a maintainer can tell which kind it is.

A string written in the file (``exec("x = 1")``, ``"a" + "b"`` folded) is read like the file
itself (:func:`pytest_quest.rules.static.check`); only what the file does not spell out is
flagged here.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from pytest_quest.facts import REVIEW, Fact
from pytest_quest.gate import CATALOG
from pytest_quest.rules.names import Names, const_str, quote
from pytest_quest.submission import Submission

__all__ = ["HIDDEN", "check"]

HIDDEN = CATALOG.add(
    "static-hidden-code", REVIEW, "static",
    "The test runs only code written in its file: no exec, eval or compile of a string built "
    "at run time, no code objects made from data (marshal.loads, types.CodeType, "
    "types.FunctionType), no file run by runpy or loaded from a path by importlib.",
    "Write the code in the test file itself. A maintainer reviews a test that must build code.",
)

#: Calls that run (or compile) their first argument: fine when that argument is a literal.
_FROM_TEXT = frozenset({"exec", "eval", "compile", "builtins.exec", "builtins.eval",
                        "builtins.compile"})
#: Calls that make runnable code out of data, whatever their arguments.
_FROM_DATA = frozenset({
    "marshal.loads", "marshal.load", "types.CodeType", "types.FunctionType",
    "runpy.run_path", "runpy.run_module", "importlib.util.spec_from_file_location",
    "importlib.machinery.SourceFileLoader", "importlib.machinery.SourcelessFileLoader",
    "code.InteractiveInterpreter", "code.InteractiveConsole", "code.interact",
    "codeop.compile_command", "codeop.Compile", "codeop.CommandCompiler",
})
#: What runs code when called, also when it is passed on (``map(exec, ...)``); the classes
#: above are named in ``isinstance`` checks too, so only their calls count.
_HANDED = _FROM_TEXT | {"marshal.loads", "marshal.load", "runpy.run_path", "runpy.run_module"}
#: Builtins looked up by a literal key (``__builtins__["exec"]``): a call the names miss.
_KEYS = frozenset({"exec", "eval", "compile", "__import__"})


def check(sub: Submission, tree: ast.Module, names: Names) -> Iterator[Fact]:
    """One fact per place the file runs code it does not spell out."""
    direct: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = names.resolve(node.func)
        if name in _FROM_TEXT:
            direct.add(id(node.func))
            if node.args and const_str(node.args[0]) is None:
                yield _fact(sub, node, f"`{quote(sub, node)}` runs code built at run time")
        elif name in _FROM_DATA:
            direct.add(id(node.func))
            yield _fact(sub, node, f"`{quote(sub, node)}` makes code out of data")
    for node in ast.walk(tree):
        if isinstance(node, ast.Name | ast.Attribute) and id(node) not in direct and \
                isinstance(getattr(node, "ctx", None), ast.Load) and \
                names.resolve(node) in _HANDED:
            yield _fact(sub, node, f"`{quote(sub, node)}` is handed on: it may run any code")
        elif isinstance(node, ast.Subscript) and const_str(node.slice) in _KEYS:
            yield _fact(sub, node, f"`{quote(sub, node)}` looks up a builtin that runs code")


def _fact(sub: Submission, node: ast.AST, actual: str) -> Fact:
    return HIDDEN.fact(f"{sub.test_rel}:{getattr(node, 'lineno', 1)}",
                       "only code written in the test file", actual)
