"""The schedule's seed: a keyed hash of the sandbox copy, made in the gate (red team 2, 12)."""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_quest.cli.demo import COMPLETE
from pytest_quest.config import Settings, load_settings
from pytest_quest.ledger import Ledger
from pytest_quest.paths import default_test_path
from pytest_quest.sandbox import Sandbox
from pytest_quest.schedule import KEY_BYTES, KEY_PATH, project_key, schedule_seed
from pytest_quest.submit import Result

QUEST = "hotel/pricing.py::nightly_rate"


def test_the_key_is_made_once_private_and_kept(tmp_path: Path) -> None:
    key = project_key(tmp_path)
    path = tmp_path / KEY_PATH
    assert len(key) == KEY_BYTES and path.read_bytes() == key
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert project_key(tmp_path) == key
    assert list(path.parent.iterdir()) == [path]  # no temporary file left behind


def test_a_broken_key_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / KEY_PATH
    path.parent.mkdir(parents=True)
    path.write_bytes(b"short")
    key = project_key(tmp_path)
    assert len(key) == KEY_BYTES and path.read_bytes() == key


def test_the_seed_needs_the_key_and_follows_every_copied_file(settings: Settings) -> None:
    first = Sandbox.create(settings, {"tests/quest/test_x.py": b"def test(): pass\n"})
    again = Sandbox.create(settings, {"tests/quest/test_x.py": b"def test(): pass\n"})
    other = Sandbox.create(settings, {"tests/quest/test_x.py": b"def test(): pass\n",
                                      "tests/quest/order.json": b"[]"})
    try:
        assert first.digest == again.digest != other.digest
        key = project_key(settings.root)
        seed = schedule_seed(key, first.digest)
        assert len(seed) == 64 and seed == schedule_seed(key, again.digest)
        assert seed != schedule_seed(bytes(KEY_BYTES), first.digest)
        # A dry run's schedule is its own: stable, but not the recorded submission's.
        preview = schedule_seed(key, first.digest, preview=True)
        assert preview == schedule_seed(key, again.digest, preview=True) != seed
    finally:
        for box in (first, again, other):
            box.cleanup()


@pytest.mark.slow
def test_the_gate_hands_the_seed_to_the_judge(project: Path,
                                              submit_test: Callable[..., Result]) -> None:
    # The same submission on the same files: the same schedule; another key: another one; a
    # dry run one of its own.
    first = submit_test(QUEST, COMPLETE, dry_run=True)
    again = submit_test(QUEST, COMPLETE, dry_run=True)
    (project / KEY_PATH).write_bytes(bytes(KEY_BYTES))
    other = submit_test(QUEST, COMPLETE, dry_run=True)
    seeds = [r.evidence.mutation["seed"] for r in (first, again, other) if r.evidence]
    assert len(seeds) == 3 and seeds[0] == seeds[1] != seeds[2]
    settings = load_settings(project)
    ledger = Ledger.load(Ledger.for_root(project).path)
    rel = default_test_path(ledger.get(QUEST), settings, ledger.quests)
    box = Sandbox.create(settings, {rel: COMPLETE.encode()})
    box.cleanup()
    assert schedule_seed(bytes(KEY_BYTES), box.digest, preview=True)[:16] == seeds[2]
    recorded = submit_test(QUEST, COMPLETE)
    assert recorded.evidence is not None and not recorded.dry_run
    assert recorded.evidence.mutation["seed"] == schedule_seed(bytes(KEY_BYTES), box.digest)[:16]
