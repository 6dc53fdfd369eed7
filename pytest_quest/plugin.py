"""pytest11 entry point: the ``quest`` option group and the CI ratchet's hooks.

``pytest --quest-check`` fails the run when a locked (PASS) quest is no longer
fully covered, or its locked test file is gone; ``--quest-update`` also locks
the TODO quests the run covers fully. The verdict itself lives in
:mod:`pytest_quest.lockcheck`; this module only wires hooks.

Measuring: we never run a Coverage object of our own beside pytest-cov (the
collectors stack and pytest-cov dies with an INTERNALERROR). When the user
gave ``--cov``, we read pytest-cov's combined data after it finished. When
not, we switch pytest-cov on ourselves (``--cov=<ledger sources>``, no
report, a private rc and data file in a temp dir), so xdist workers, their
combination and the early start before conftests import are pytest-cov's
proven machinery, not a second copy of it.

Plain ``pytest`` pays one attribute lookup: the ratchet's module
(:mod:`pytest_quest.ratchet_plugin`) is imported and its plugin object
registered only when a quest option is given.
"""

from __future__ import annotations

import copy
from argparse import Namespace
from collections.abc import Generator

import pytest

__all__ = ["pytest_addoption", "pytest_load_initial_conftests"]

#: Our options that take a value: written with a space, pytest reads a value that names an
#: existing path (a ledger, a report, a ref named like a folder) as a test path.
_PATH_OPTIONS = ("--quest-ledger", "--quest-json", "--quest-base")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("quest", "pytest-quest ratchet")
    group.addoption("--quest-check", action="store_true", default=False,
                    help="fail the run when a locked quest is no longer fully covered")
    group.addoption("--quest-update", action="store_true", default=False,
                    help="like --quest-check, and lock quests this run covers fully")
    group.addoption("--quest-ledger", default=None, metavar="PATH",
                    help="ledger file (default: .quest/ledger.json in the project root)")
    group.addoption("--quest-json", default=None, metavar="PATH",
                    help="also write the ratchet's verdict as JSON to PATH")
    group.addoption("--quest-base", default=None, metavar="REF",
                    help="also fail when the ledger went back against the ledger at git REF "
                         "(a lost PASS, lowered tries, a narrowed scope); default in GitHub "
                         "Actions pull requests: origin/$GITHUB_BASE_REF when fetched")


def _wanted(namespace: Namespace) -> bool:
    return bool(getattr(namespace, "quest_check", False)
                or getattr(namespace, "quest_update", False))


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> Generator[None, None, None]:
    """Register the ratchet before pytest-cov's own hook reads its options.

    A wrapper runs before every plain implementation (pytest-cov's is only
    ``tryfirst``), so the ``--cov`` options we set are seen when pytest-cov
    decides whether to start, which is before any conftest is imported.
    """
    _repair_setup(early_config, args)
    namespace = early_config.known_args_namespace
    if _wanted(namespace):
        from pytest_quest.ratchet_plugin import PLUGIN_NAME, QuestPlugin

        if not early_config.pluginmanager.has_plugin(PLUGIN_NAME):
            plugin = QuestPlugin(early_config, namespace)
            early_config.pluginmanager.register(plugin, PLUGIN_NAME)
    return (yield)




def _repair_setup(config: pytest.Config, args: list[str]) -> None:
    """Undo what ``--quest-ledger PATH`` (with a space) did to pytest's rootdir and ini file.

    pytest finds its rootdir and configuration before it loads plugins from
    entry points, so at that moment our options are unknown and their value
    counts as a test path: a ledger outside the project moved the rootdir
    there, the project's ini (``pythonpath``, ``addopts``) was not read, and
    its conftest failed to import. Here, before any conftest is imported, the
    setup is determined again from the real test paths; when it differs, the
    ini, its ``addopts`` and its ``pythonpath`` are applied as pytest would
    have. If this pytest's internals differ, the run stops with a clear error
    instead of failing in a conftest.
    """
    if not any(a in _PATH_OPTIONS for a in args[:-1]):
        return
    namespace = config.known_args_namespace
    try:
        from _pytest.config.findpaths import determine_setup

        rootpath, inipath, inicfg, *_rest = determine_setup(
            inifile=namespace.inifilename, override_ini=namespace.override_ini,
            args=namespace.file_or_dir, rootdir_cmd_arg=namespace.rootdir or None,
            invocation_dir=config.invocation_params.dir,
        )
        if (rootpath, inipath) == (config.rootpath, config.inipath):
            return
        unconfigure = getattr(config, "_unconfigure_python_path", None)
        if unconfigure is not None:
            unconfigure()
        config._rootpath = rootpath
        config._inipath = inipath
        config._inicfg = inicfg
        config._inicache.clear()
        config._parser.extra_info["rootdir"] = str(rootpath)
        config._parser.extra_info["inifile"] = str(inipath)
        args[:] = list(config.getini("addopts")) + args
        config.known_args_namespace = namespace = config._parser.parse_known_args(
            args, namespace=copy.copy(config.option))
        if namespace.confcutdir is None:
            namespace.confcutdir = str(inipath.parent if inipath is not None else rootpath)
        configure = getattr(config, "_configure_python_path", None)
        if configure is not None:
            configure()
    except (AttributeError, ImportError, TypeError, ValueError) as exc:
        raise pytest.UsageError(
            "pytest-quest: write --quest-ledger=PATH and --quest-json=PATH with '=' on this "
            f"pytest (its rootdir could not be corrected: {exc})") from None
