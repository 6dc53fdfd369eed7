"""``python -m pytest_quest`` is ``pytest-quest``."""

from pytest_quest.cli import main

main()
