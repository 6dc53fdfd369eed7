"""pytest-quest: one quest per function, a deterministic gate, a ratchet that only goes up.

The public API is small on purpose: what a plugin needs to add a rule, a
check or a reviewer (``hookimpl``, ``Check``, ``Fact``, ``FAIL``,
``REVIEW``; see docs/plugins.md). Everything else is reached through the CLI
or the pytest plugin.

The names are loaded on first use: importing the package (which pytest does
for every run through the ``pytest11`` entry point, and the sandbox harness
does next to untrusted code) stays free of the gate.

PYTEST_DONT_REWRITE: the sandbox harness imports this package before pytest
starts; pytest would then warn that it cannot rewrite our plugin's package,
and a project with ``filterwarnings = error`` would turn that into an error.
Nothing here relies on assertion rewriting.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_quest.facts import FAIL, REVIEW, Fact
    from pytest_quest.gate import Check
    from pytest_quest.hookspecs import hookimpl

__version__ = "0.1.0"

__all__ = ["FAIL", "REVIEW", "Check", "Fact", "__version__", "hookimpl"]

_LAZY = {"FAIL": "facts", "REVIEW": "facts", "Fact": "facts", "Check": "gate",
         "hookimpl": "hookspecs"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_quest' has no attribute {name!r}")
    return getattr(import_module(f"pytest_quest.{module}"), name)
