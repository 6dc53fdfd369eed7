"""Counted nouns: "1 line", "4 lines", "1 of 4 lines". Facts are read by people too."""

from __future__ import annotations

__all__ = ["plural"]

_IRREGULAR = {"branch": "branches", "try": "tries", "quest": "quests", "was": "were"}


def plural(count: int, word: str) -> str:
    """``count`` and ``word``, in the plural unless ``count`` is exactly one."""
    if count == 1:
        return f"{count} {word}"
    return f"{count} {_IRREGULAR.get(word, word + 's')}"
