"""``python -m pytest_quest`` is ``pytest-quest``."""

from pytest_quest.console import main

main()
