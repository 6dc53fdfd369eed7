"""Nothing a run leaves behind reaches a later run (red team 2, finding 01)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from pytest_quest.runstate import hidden_runs_dir, reopen


def test_the_runs_folder_cannot_be_listed_until_reopened(tmp_path: Path) -> None:
    runs = hidden_runs_dir(str(tmp_path))
    assert stat.S_IMODE(os.stat(runs).st_mode) == 0o311
    reopen(runs)
    assert stat.S_IMODE(os.stat(runs).st_mode) == 0o700
