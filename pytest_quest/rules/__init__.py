"""The coverage-domain rule catalog, one module per gate stage, and the submission's stages.

Importing this package registers every built-in rule in
:data:`pytest_quest.gate.CATALOG`. The built-in checks reach the gate through
the same hook as a plugin's (:class:`Builtin` implements
``pytest_quest_checks``), and :func:`submission_stages` assembles
:data:`pytest_quest.gate.STAGES` with each stage's preparation and every check
declared for it: built-in first, then plugins', then the reviewers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache, partial

import pluggy

from pytest_quest.errors import EnvironmentFault
from pytest_quest.facts import Fact
from pytest_quest.gate import CATALOG, Catalog, Check, Rule, Stage, stages
from pytest_quest.hookspecs import PROJECT, Specs, hookimpl, review_facts
from pytest_quest.rules import coverage, mutation, run, scope, static
from pytest_quest.submission import Submission, copy_project, parse, run_tests

__all__ = ["BUILTIN_RULES", "PREPARE", "Builtin", "PluginCheck", "new_manager",
           "plugin_manager", "submission_stages"]

#: What each stage pays for before its checks run (see :mod:`pytest_quest.submission`).
PREPARE: dict[str, Callable[[Submission], Submission]] = {
    "static": parse,
    "scope": copy_project,
    "run": run_tests,
}


#: The rules the modules above registered when they were imported.
BUILTIN_RULES: tuple[Rule, ...] = tuple(CATALOG)


class Builtin:
    """pytest-quest's own rules and checks, declared through the plugin hooks like anyone's."""

    @hookimpl(tryfirst=True)
    def pytest_quest_add_rules(self, catalog: Catalog) -> None:
        for rule in BUILTIN_RULES:
            catalog.include(rule)

    @hookimpl(tryfirst=True)
    def pytest_quest_checks(self) -> list[Check[Submission]]:
        return [
            Check("static", static.check),
            Check("scope", scope.check),
            Check("run", run.check),
            # While the sandbox still exists: the run left the protected files as copied.
            Check("run", static.check_after_run),
            Check("coverage", coverage.check),
            Check("mutation", mutation.check),
        ]


def new_manager(*plugins: object, catalog: Catalog = CATALOG,
                entry_points: bool = False) -> pluggy.PluginManager:
    """A manager with the built-in rules and ``plugins`` registered, their rules added.

    ``entry_points`` also loads every installed ``pytest_quest`` plugin.
    """
    manager = pluggy.PluginManager(PROJECT)
    manager.add_hookspecs(Specs)
    manager.register(Builtin(), name="pytest-quest")
    for plugin in plugins:
        manager.register(plugin)
    if entry_points:
        manager.load_setuptools_entrypoints(PROJECT)
    # One plugin at a time, in pluggy's call order, so each rule names the plugin that added it.
    for impl in reversed(manager.hook.pytest_quest_add_rules.get_hookimpls()):
        view = catalog if isinstance(impl.plugin, Builtin) else _Added(catalog, _name(impl))
        impl.function(**({"catalog": view} if "catalog" in impl.argnames else {}))
    return manager


@cache
def plugin_manager() -> pluggy.PluginManager:
    """The process's manager: built-in rules plus every installed ``pytest_quest`` plugin.

    Entry points are loaded once per process; their rules join the gate's catalog.
    """
    return new_manager(entry_points=True)


def submission_stages(manager: pluggy.PluginManager | None = None
                      ) -> tuple[Stage[Submission], ...]:
    """The gate's stages for a submission, cheapest first, with every installed plugin's checks.

    A plugin's check (or reviewer) that raises stops the submission as an
    environment fault: nothing is recorded and no try is spent, since the
    agent's test was not judged.
    """
    manager = manager or plugin_manager()
    checks: list[Check[Submission]] = []
    # In the order pluggy calls them: the built-in rules (tryfirst) first.
    for impl in reversed(manager.hook.pytest_quest_checks.get_hookimpls()):
        declared = _declared_checks(impl.function(), _name(impl))
        if isinstance(impl.plugin, Builtin):
            checks.extend(declared)
        else:
            checks.extend(Check(c.stage, PluginCheck(c.run, _name(impl))) for c in declared)
    checks.append(Check("review", PluginCheck(partial(review_facts, manager=manager),
                                              "reviewers")))
    return stages(checks, PREPARE)


def _declared_checks(value: object, plugin: str) -> list[Check[Submission]]:
    """What a ``pytest_quest_checks`` implementation returned, checked to be checks.

    pluggy calls a hook implementation untyped, and a plugin is third-party code: a wrong
    return value is said here, naming the plugin, instead of failing later inside a stage.
    """
    if value is None:
        return []
    if isinstance(value, Iterable):
        declared = list(value)
        if all(isinstance(check, Check) for check in declared):
            return declared
    raise EnvironmentFault(
        f"plugin {plugin!r}: pytest_quest_checks must return a list of pytest_quest.gate.Check, "
        f"got {value!r:.80}"
    )


def _name(impl: pluggy.HookImpl) -> str:
    """A plugin's name for people: its module, or its class."""
    return getattr(impl.plugin, "__name__", None) or type(impl.plugin).__name__


@dataclass(frozen=True)
class _Added:
    """What a plugin's ``pytest_quest_add_rules`` gets: the catalog, stamping its name."""

    catalog: Catalog
    origin: str

    def add(self, id: str, level: str, stage: str, description: str, hint: str,
            supersedes: Iterable[str] = ()) -> Rule:
        return self.catalog.add(id, level, stage, description, hint, supersedes, self.origin)

    def get(self, rule_id: str) -> Rule | None:
        return self.catalog.get(rule_id)


@dataclass(frozen=True)
class PluginCheck:
    """A plugin's check as the gate runs it: when it raises, the verdict is not reached.

    The agent's test was not judged, so that is an environment fault (exit 2,
    nothing recorded, no try spent), never a FAIL.
    """

    run: Callable[[Submission], Iterable[Fact]]
    plugin: str

    def __call__(self, sub: Submission) -> list[Fact]:
        try:
            return list(self.run(sub))
        except Exception as exc:
            name = getattr(self.run, "__qualname__", None) or repr(self.run)
            raise EnvironmentFault(
                f"could not verify {sub.quest.id}: the check {name} of plugin {self.plugin!r} "
                f"failed ({type(exc).__name__}: {exc}); no try was spent"
            ) from exc
