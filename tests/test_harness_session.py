"""The harness's pytest plugin in-process: rounds, reruns, reports and the target check.

Coverage and the audit hook are left out here (``cov=None``, ``guard=None``):
both are process-wide, and the sandbox tests exercise them in real subprocesses.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from pytest_quest.harness import Emitter, Session, _import_target, _TargetCheck

TARGET = {"module": "shop", "owner": [], "name": "price", "qualname": "price",
          "accessor": None, "file": "shop.py", "lines": [1, 2], "body": [2, 2]}


def run_session(pytester: pytest.Pytester, test: str, **spec: Any
                ) -> tuple[Session, list[dict[str, Any]]]:
    pytester.makepyfile(shop="def price(x):\n    return x * 2\n\n\nclass Cart:\n"
                             "    @property\n    def total(self):\n        return 3\n\n"
                             "    @staticmethod\n    def empty():\n        return []\n")
    pytester.makepyfile(test_shop=test)
    pytester.syspathinsert()
    stream = io.StringIO()
    emit = Emitter(stream)
    session = Session({"target": TARGET, "reruns": 3, **spec}, emit, None, None)
    assert _import_target(session.spec, session, emit) is None
    pytester.inline_run("-p", "no:cacheprovider", plugins=[session, _TargetCheck(session)])
    return session, [json.loads(line) for line in stream.getvalue().splitlines()]


def kinds(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["event"] == kind]


def test_measured_round_then_reruns(pytester: pytest.Pytester) -> None:
    session, events = run_session(pytester, "from shop import price\n\n"
                                            "def test_a():\n    assert price(2) == 4\n")
    assert kinds(events, "collected")[0]["count"] == 1
    assert [e["when"] for e in kinds(events, "report")] == ["setup", "call", "teardown"]
    rounds = kinds(events, "round_done")
    assert [r["round"] for r in rounds] == [1, 2, 3]
    assert rounds[2]["outcomes"] == {"test_shop.py::test_a": "passed"}
    assert session.rerun_outcomes == ["passed", "passed"]
    assert not kinds(events, "target_replaced")


def test_flaky_rerun_outcomes(pytester: pytest.Pytester) -> None:
    _, events = run_session(pytester, "from shop import price\nSEEN = []\n\n"
                                      "def test_a():\n    SEEN.append(1)\n"
                                      "    assert len(SEEN) < 3\n")
    outcomes = [r.get("outcomes") for r in kinds(events, "round_done")]
    assert outcomes == [None, {"test_shop.py::test_a": "passed"},
                        {"test_shop.py::test_a": "failed"}]


def test_failure_and_skip_are_reported_with_their_place(pytester: pytest.Pytester) -> None:
    _, events = run_session(pytester, "import pytest\nfrom shop import price\n\n"
                                      "def test_bad():\n    assert price(2) == 5\n\n"
                                      "def test_later():\n    pytest.skip('later')\n",
                            reruns=1)
    reports = {(e["nodeid"].split("::")[1], e["when"]): e for e in kinds(events, "report")}
    bad = reports[("test_bad", "call")]
    assert bad["outcome"] == "failed" and "assert 4 == 5" in bad["message"]
    assert bad["line"] == 5
    assert reports[("test_later", "call")]["outcome"] == "skipped"


def test_replacing_the_target_is_seen(pytester: pytest.Pytester) -> None:
    _, events = run_session(pytester, "import shop\n\n"
                                      "def test_fake(monkeypatch):\n"
                                      "    monkeypatch.setattr(shop, 'price', lambda x: 4)\n"
                                      "    assert shop.price(2) == 4\n", reruns=1)
    assert [e["nodeid"] for e in kinds(events, "target_replaced")] == ["test_shop.py::test_fake"]


def test_collection_error_is_reported(pytester: pytest.Pytester) -> None:
    _, events = run_session(pytester, "import not_a_module\n", reruns=1)
    (error,) = kinds(events, "collect_error")
    assert "not_a_module" in error["message"]
    assert not kinds(events, "round_done")


@pytest.mark.parametrize(("owner", "name", "accessor", "expected"), [
    (["Cart"], "total", None, "total"),
    (["Cart"], "empty", None, "empty"),
    ([], "missing", None, None),
])
def test_resolve_unwraps_properties_and_static_methods(
    pytester: pytest.Pytester, owner: list[str], name: str, accessor: str | None,
    expected: str | None,
) -> None:
    pytester.makepyfile(shop="class Cart:\n    @property\n    def total(self):\n"
                             "        return 3\n\n    @staticmethod\n    def empty():\n"
                             "        return []\n")
    pytester.syspathinsert()
    target = {**TARGET, "owner": owner, "name": name, "accessor": accessor}
    session = Session({"target": target}, Emitter(io.StringIO()), None, None)
    __import__("shop")
    found = session.resolve()
    assert (found.__name__ if found is not None else None) == expected


def test_import_error_is_returned_not_raised(pytester: pytest.Pytester) -> None:
    stream = io.StringIO()
    target = {**TARGET, "module": "no_such_module_here"}
    session = Session({"target": target}, Emitter(stream), None, None)
    error = _import_target(session.spec, session, Emitter(stream))
    assert error is not None and error.startswith("importing no_such_module_here failed")
