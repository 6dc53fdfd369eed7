"""One exception root with small named subclasses, as coverage.py does.

Every error a user can cause (bad arguments, a corrupt ledger, a broken
environment) is a :class:`QuestError`; the CLI prints its message on one line
and exits with its ``exit_code``. Anything else is a bug and keeps its
traceback.
"""

from __future__ import annotations

__all__ = [
    "PARSE_ERRORS",
    "ConfigError",
    "CorruptLedger",
    "EnvironmentFault",
    "LedgerBusy",
    "NoLedger",
    "QuestError",
    "QuestLocked",
    "RescanNeeded",
    "UnknownQuest",
    "UsageError",
]


class QuestError(Exception):
    """Root of every expected pytest-quest error."""

    exit_code = 2


class UsageError(QuestError):
    """The caller asked for something that cannot be done (bad path, bad option)."""


class ConfigError(UsageError):
    """``[tool.pytest-quest]`` holds a value we cannot use."""


class UnknownQuest(UsageError):
    """The quest id is not in the ledger."""


class NoLedger(UsageError):
    """There is no ledger yet: the project was never scanned (not a damaged file)."""


class CorruptLedger(QuestError):
    """The ledger file exists but cannot be read; it is never overwritten."""


class LedgerBusy(QuestError):
    """Another pytest-quest process holds the ledger's lock for too long."""


class RescanNeeded(UsageError):
    """Protected files changed since the scan: a maintainer's change, not the test's. No try."""


class QuestLocked(QuestError):
    """The quest is no longer open for submissions (PASS, REVIEW, DONE, RETIRED)."""

    exit_code = 4


class EnvironmentFault(QuestError):
    """The gate could not verify: the sandbox broke, not the test. Spends no try."""


#: What ``ast.parse`` and ``compile`` raise on a Python file they cannot hold: bad syntax,
#: null bytes (``ValueError``), and nesting deep enough to exhaust the parser
#: (``RecursionError`` during AST construction, ``MemoryError`` for "parser stack overflowed").
#: Project files are read, never trusted: each of these is a reason to skip the file or say
#: why, never a traceback.
PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError)
