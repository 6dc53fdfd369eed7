"""The system calls that confine a run, from the C extension where it was built.

Landlock, namespaces, mounts, capabilities, keyrings and seccomp have no functions in
Python's standard library (``os.unshare`` and ``os.setns`` only from 3.12). They are made by
:mod:`pytest_quest._kernel`, a small C extension whose arguments are numbers, paths and
bytes, never addresses, and which a confined run seals before the test's code starts.
Without it (no C compiler when pytest-quest was installed) the same calls go through
:mod:`pytest_quest.ctypescalls`, and ctypes is then in every run's memory: a test can read
any address through a ctypes object with no audit event. :data:`NATIVE` says which
(docs/security.md).
"""

from __future__ import annotations

__all__ = ["NATIVE", "calls"]

try:
    from pytest_quest import _kernel as calls

    #: Whether the calls are the extension's (else ctypes').
    NATIVE = True
except ImportError:  # pragma: no cover - an install without a C compiler
    from pytest_quest import ctypescalls as calls  # type: ignore[no-redef]

    NATIVE = False
