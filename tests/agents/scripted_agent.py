"""A scripted stand-in for an AI agent, driven by `pytest-quest loop` in the tests.

It reads what the loop gives every agent (QUEST_ID, QUEST_TEST_PATH,
QUEST_PROMPT_FILE, QUEST_TRIES) and writes a test chosen by quest and try:
a good one, a partial one (misses lines, then the good one), a cheating one
(skips), or it fails once (exit 3) before writing anything. Each run appends
"quest tries" to $AGENT_RUNS so a test can count the runs.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

PARTIAL = '''
from hotel.pricing import nightly_rate


def test_standard():
    assert nightly_rate(100.0, "standard", 2) == 100.0
'''

FULL = '''
import pytest
from hotel.pricing import nightly_rate


def test_standard():
    assert nightly_rate(100.0, "standard", 2) == 100.0


def test_high_long_stay():
    assert nightly_rate(100.0, "high", 7) == 112.5


def test_high_short():
    assert nightly_rate(100.0, "high", 6) == 125.0


def test_low():
    assert nightly_rate(100.0, "low", 1) == 80.0


def test_long_stay_discount_boundary():
    assert nightly_rate(100.0, "standard", 7) == 90.0


def test_one_night_is_allowed():
    assert nightly_rate(10.0, "standard", 1) == 10.0


def test_rejects_zero_nights():
    with pytest.raises(ValueError):
        nightly_rate(100.0, "standard", 0)
'''

NORMALIZE = '''
import pytest
from hotel.rooms import Room


def test_normalize_number():
    assert Room.normalize_number(" 12a ") == "12A"
    assert Room.normalize_number("0204") == "204"
    assert Room.normalize_number("7") == "7"


@pytest.mark.parametrize("raw", ["12AB", "A", "", "1-2"])
def test_rejects_bad_numbers(raw):
    with pytest.raises(ValueError):
        Room.normalize_number(raw)
'''

CHEAT = '''
import pytest


def test_everything():
    pytest.skip("covered elsewhere")
    assert True
'''


def main() -> int:
    quest = os.environ["QUEST_ID"]
    tries = int(os.environ["QUEST_TRIES"])
    assert Path(os.environ["QUEST_PROMPT_FILE"]).read_text().startswith(f"Quest {quest}")
    runs = Path(os.environ["AGENT_RUNS"])
    with runs.open("a") as log:
        log.write(f"{quest} {tries}\n")
    time.sleep(float(os.environ.get("AGENT_DELAY", "0")))
    if quest.endswith("Room.from_code"):
        marker = runs.with_suffix(".failed-once")
        if not marker.exists():
            marker.write_text("x")
            print("agent: giving up on", quest, file=sys.stderr)
            return 3
    if quest.endswith("nightly_rate"):
        source = PARTIAL if tries == 0 else FULL
    elif quest.endswith("normalize_number"):
        source = NORMALIZE
    else:  # a new cheat each try: the same bytes again would not be judged again
        source = CHEAT + f"\n# try {tries}\n"
    path = Path(os.environ["QUEST_TEST_PATH"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    return 0


if __name__ == "__main__":
    sys.exit(main())
