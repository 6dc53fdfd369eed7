"""The signal installer a run puts in place (:mod:`pytest_quest.signals`); each test puts the
interpreter's own back (``monkeypatch``)."""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]
import inspect
import signal
from typing import Any

import pytest

from pytest_quest import signals


def mine(signum: int, frame: Any) -> None:
    pass


def test_a_run_installs_only_the_handlers_the_watch_allows(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    monkeypatch.setattr(_signal, "signal", _signal.signal)
    monkeypatch.setattr(signals, "_ALLOWS", [])
    previous = signal.getsignal(signal.SIGUSR1)
    asked: list[Any] = []

    def allows(handler: Any) -> bool:
        asked.append(handler)
        return handler is not mine

    signals.guard(allows)
    try:
        with pytest.raises(PermissionError, match="signal handler of the test's"):
            signal.signal(signal.SIGUSR1, mine)
        assert signal.getsignal(signal.SIGUSR1) == previous  # not installed
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)
        assert signal.getsignal(signal.SIGUSR1) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert asked[:2] == [mine, signal.SIG_IGN.value]
    # the interpreter's installer is no plain attribute's value any more
    assert _signal.signal is signals._install and not hasattr(signal.signal, "__wrapped__")
    assert inspect.getmodule(_signal.signal) is _signal
