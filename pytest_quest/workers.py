"""The baseline over every core: pytest-xdist workers, each measuring, merged by the harness.

Loaded with ``-p pytest_quest.workers`` by the suite harness
(:func:`pytest_quest.sandbox.harness_spec`), so xdist hands it to every
worker it starts too. Three jobs:

- in the controller, :func:`pytest_cmdline_main` turns on ``-n auto`` when
  pytest-xdist is installed in the project's environment, the project chose
  no ``-n`` of its own (an ``addopts`` one wins, ``-n 0`` included) and the
  machine has two cores or more;
- in a worker, coverage starts when this module is imported, before the
  other plugins and the conftests (xdist starts workers with the
  controller's arguments, so the worker's ``-p`` comes first), with the
  controller's measurement options from
  :data:`~pytest_quest.protocol.WORKER_COVERAGE_ENV`;
- at the worker's session end, :func:`pytest_sessionfinish` hands its
  coverage data to xdist's ``workeroutput``, which xdist sends back to the
  controller; the harness merges every worker's data into its own before
  the one coverage report (:func:`merge`).

The event pipe stays the controller's alone: the workers never hold it
(the harness makes it non-inheritable), and what they send comes back
through xdist as test reports that the controller turns into events, each
checked by :mod:`pytest_quest.protocol` like any other.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Generator, Sequence
from typing import Any

import pytest

from pytest_quest.measure import coverage_core
from pytest_quest.protocol import WORKER_COVERAGE_ENV

__all__ = ["OUTPUT_KEY", "merge", "pytest_cmdline_main", "pytest_sessionfinish",
           "start_worker_coverage"]
#: Where a worker leaves its coverage data in xdist's ``workeroutput``.
OUTPUT_KEY = "pytest_quest_coverage"

#: This worker's collector, once started.
_STARTED: list[Any] = []


def start_worker_coverage() -> bool:
    """In an xdist worker of the baseline, start measuring now; False anywhere else."""
    raw = os.environ.get(WORKER_COVERAGE_ENV)
    if not raw or not os.environ.get("PYTEST_XDIST_WORKER") or _STARTED:
        return False
    import coverage

    options = json.loads(raw)
    cov = coverage.Coverage(data_file=None, config_file=False, **options)
    core = coverage_core(bool(options.get("branch")))  # as the harness's own collector
    if core is not None:
        cov.set_option("run:core", core)
    cov.start()
    _STARTED.append(cov)
    return True


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS
        return os.cpu_count() or 1


@pytest.hookimpl(wrapper=True)
def pytest_cmdline_main(config: pytest.Config) -> Generator[None, object, object]:
    """``-n auto`` unless the project chose its own ``-n``, before xdist reads the option.

    A wrapper runs before every plain implementation, xdist's ``tryfirst``
    one included. Workers (``workerinput``) never start workers of their own.
    """
    option = vars(config.option)
    if ("numprocesses" in option and option["numprocesses"] is None
            and not hasattr(config, "workerinput") and not option.get("collectonly")
            and _cores() > 1):
        config.option.numprocesses = "auto"
    return (yield)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """A worker's coverage data, for xdist to send to the controller (``workeroutput``).

    xdist's own ``pytest_sessionfinish`` is a wrapper that sends the output
    after every plain implementation ran, so the data travels with it.
    """
    output = getattr(session.config, "workeroutput", None)
    if output is None or not _STARTED:
        return
    cov = _STARTED.pop()
    cov.stop()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        output[OUTPUT_KEY] = cov.get_data().dumps()


def merge(cov: Any, blobs: Sequence[bytes]) -> None:
    """Add each worker's coverage data to ``cov``'s (stopped) data, for one report."""
    from coverage import CoverageData

    data = cov.get_data()
    for blob in blobs:
        other = CoverageData(no_disk=True)
        try:
            other.loads(blob)
            data.update(other)
        finally:
            _close(other)


def _close(data: Any) -> None:
    """Close an in-memory ``CoverageData``'s SQLite connection now.

    coverage.py leaves a ``no_disk`` database open until it is collected
    (``close()`` without ``force`` keeps it). From Python 3.13 on, an
    unclosed ``sqlite3.Connection`` warns (``ResourceWarning``) when the
    garbage collector takes it; pytest turns that into a
    ``PytestUnraisableExceptionWarning`` at the session's end, which a
    project's ``filterwarnings = error`` makes an error: the baseline run
    ended without its ``done`` and locked nothing.
    """
    data.close(force=True)


start_worker_coverage()
