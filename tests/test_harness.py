"""The harness (the sandbox process's entry point, its modes and set-up) without a subprocess.

The pieces it shares with the forked runs are tested in tests/test_runparts.py.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_quest import harness
from pytest_quest.protocol import HarnessSpec
from pytest_quest.runparts import Pristine
from tests.test_runparts import SHOP, TARGET


def test_the_judge_measures_from_its_own_import_of_the_target(tmp_path: Path) -> None:
    # Not while pytest sets up: measuring starts right before the target's module code
    # runs in the judge (a conftest importing it), once, whatever imports it again.
    order: list[str] = []
    cov = SimpleNamespace(start=lambda: order.append("start"))
    (tmp_path / "shop.py").write_bytes(b"import sys\nsys._q_order.append('module')\n" + SHOP)
    pristine = Pristine.read(SimpleNamespace(sandbox=str(tmp_path)), TARGET)  # type: ignore[arg-type]
    pristine.before_exec = harness._measure_from_here(cov)
    sys._q_order = order  # type: ignore[attr-defined]
    sys.meta_path.insert(0, pristine)
    try:
        assert order == []
        __import__(TARGET.module)
        del sys.modules[TARGET.module]
        __import__(TARGET.module)
    finally:
        sys.meta_path.remove(pristine)
        sys.modules.pop(TARGET.module, None)
        del sys._q_order  # type: ignore[attr-defined]
    assert order == ["start", "module", "module"]


def test_main_refuses_a_command_line_without_the_event_pipe() -> None:
    with pytest.raises(SystemExit, match="usage"):
        harness.main(["spec.json"])
    with pytest.raises(SystemExit, match="usage"):
        harness.main(["spec.json", "--events-fd", "x"])


@pytest.mark.parametrize("branch", [False, True])
def test_the_judge_measures_through_sys_monitoring_where_it_can(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, branch: bool) -> None:
    monkeypatch.setenv("COVERAGE_CORE", "pytrace")  # sys.monitoring wins over it where usable
    spec = HarnessSpec(mode="submit", pytest_args=(), sandbox=str(tmp_path),
                       private_dir=str(tmp_path), allowed_write=(), measure_files=("shop.py",),
                       branch=branch)
    sysmon = sys.version_info >= ((3, 14) if branch else (3, 12))
    core = harness._coverage(spec).get_option("run:core")
    assert core == ("sysmon" if sysmon else "pytrace")


def test_the_judge_compiles_the_collection_patterns_every_run_would_compile() -> None:
    import fnmatch

    from _pytest.pathlib import fnmatch_ex

    from pytest_quest import forkrun

    ini = {"norecursedirs": ["_q_build*", "q_node_*"], "python_files": ["check_q*.py"]}
    config = SimpleNamespace(getini=ini.__getitem__,
                             getoption=lambda name, default=None: ["q_doc*.txt"])
    path = "/box/tests/quest/test_price.py"
    assert forkrun._collection_patterns(config) == [  # type: ignore[arg-type]
        "_q_build*", "q_node_*", "check_q*.py", "q_doc*.txt"]
    fnmatch._compile_pattern.cache_clear()  # type: ignore[attr-defined]
    assert forkrun._compile_patterns(config, path) == 4  # type: ignore[arg-type]
    compiled = fnmatch._compile_pattern.cache_info().misses  # type: ignore[attr-defined]
    assert compiled == 4
    for pattern in ("_q_build*", "q_node_*", "check_q*.py", "q_doc*.txt"):
        fnmatch_ex(pattern, path)  # what a run's collection does: nothing left to compile
    assert fnmatch._compile_pattern.cache_info().misses == compiled  # type: ignore[attr-defined]


def test_collection_patterns_without_the_doctest_plugin() -> None:
    from pytest_quest import forkrun

    def no_option(name: str, default: object = None) -> object:
        raise ValueError(f"no option named {name!r}")

    config = SimpleNamespace(getini={"norecursedirs": [".*"], "python_files": []}.__getitem__,
                             getoption=no_option)
    assert forkrun._collection_patterns(config) == [".*"]  # type: ignore[arg-type]


def test_the_judge_marks_no_installed_plugin_for_assert_rewriting() -> None:
    class Config(pytest.Config):  # a subclass: pytest's own stays as it is
        pass

    marked: list[str] = []
    hook = SimpleNamespace(mark_rewrite=marked.append)
    config = SimpleNamespace(pluginmanager=SimpleNamespace(rewrite_hook=None))
    assert harness._plugins_as_installed(Config) is True
    Config._mark_plugins_for_rewrite(config, hook, False)  # type: ignore[arg-type]
    assert config.pluginmanager.rewrite_hook is hook and marked == []
    assert pytest.Config._mark_plugins_for_rewrite is not Config._mark_plugins_for_rewrite


def test_pytest_marks_installed_plugins_for_rewriting_without_the_judge() -> None:
    # What the judge skips: pytest marks the packages of pytest11 distributions (pytest-quest).
    marked: list[str] = []
    hook = SimpleNamespace(mark_rewrite=marked.append)
    config = SimpleNamespace(pluginmanager=SimpleNamespace(rewrite_hook=None))
    pytest.Config._mark_plugins_for_rewrite(config, hook, False)  # type: ignore[arg-type]
    assert config.pluginmanager.rewrite_hook is hook and "pytest_quest" in marked


@pytest.mark.slow
@pytest.mark.parametrize(("module", "importer"), [
    ("harness", "forkrun.Pristine is harness.Pristine is runparts.Pristine"),
    ("confine", "forkrun is not None")])
def test_a_module_run_with_dash_m_is_the_module_its_importers_get(module: str, importer: str
                                                                  ) -> None:
    # confine's launcher runs `-m pytest_quest.confine`, then the harness with runpy; harness
    # main imports confine by name, and an import of the harness by name (none in the package
    # since forkrun takes its pieces from runparts) gets the running copy, not a second one.
    import subprocess

    script = ("import runpy, sys\n"
              f"sys.argv = ['pytest_quest.{module}']\n"
              "try:\n"
              f"    runpy.run_module('pytest_quest.{module}', run_name='__main__',\n"
              "                     alter_sys=True)\n"
              "except SystemExit:\n"
              "    pass\n"
              f"from pytest_quest import forkrun, runparts, {module}\n"
              f"print({module}.__name__, {importer})\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["__main__", "True"]


@pytest.mark.slow
def test_the_judges_runs_load_without_the_harness() -> None:
    # The arrows point one way (tests/test_layers.py): forkrun takes what it shares with the
    # harness from runparts, so the judge, run as `-m pytest_quest.harness`, compiles no
    # second copy of its own entry point when it imports forkrun.
    import subprocess

    script = ("import sys\n"
              "import pytest_quest.forkrun\n"
              "print(*(f'pytest_quest.{m}' in sys.modules for m in ('harness', 'runparts')))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["False", "True"]


def test_the_judges_collector_is_started_without_reading_the_stack(tmp_path: Path) -> None:
    import coverage
    from coverage import collector

    original = collector.short_stack
    module = tmp_path / "measured_here.py"
    module.write_text("def f():\n    return 1\n", encoding="utf-8")
    cov = coverage.Coverage(data_file=None, config_file=False, include=[str(module)])
    with harness._without_origin():
        assert collector.short_stack is not original
        cov.start()
        try:
            namespace: dict[str, object] = {}
            exec(compile(module.read_text(), str(module), "exec"), namespace)
        finally:
            cov.stop()
    assert collector.short_stack is original  # only while the judge starts its collector
    assert cov.get_data().lines(str(module)) == [1]  # measuring is unchanged
