"""A syntax tree printed back as code, for facts and mutant names: never an exception.

``ast.unparse`` refuses some trees that parse and run: on Python 3.11 an f-string whose
expression part holds a string with a character that is not printable (a no-break space)
raises ``ValueError`` (the printer would need a backslash there, which 3.11 forbids), and a
deep tree raises ``RecursionError``. A fact quotes what the test wrote and a mutant is named
by its code; neither may stop the gate (red team 52 crashed ``submit`` with one such
f-string in a class's bases, and another in a ``finally``).
"""

from __future__ import annotations

import ast

__all__ = ["unparse"]


def unparse(node: ast.AST) -> str:
    """``node`` as code, or a placeholder naming its kind and line where Python cannot
    print it back."""
    try:
        return ast.unparse(node)
    except (ValueError, RecursionError, AttributeError, TypeError):
        line = getattr(node, "lineno", None)
        where = f" at line {line}" if line is not None else ""
        return f"<{type(node).__name__}{where}>"
