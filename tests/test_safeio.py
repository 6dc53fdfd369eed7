"""Bounded reads of files a run could have replaced: the limit, the byte past it, the chunks."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from pytest_quest import safeio


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of 3 bytes, so every read below crosses chunk boundaries."""
    monkeypatch.setattr(safeio, "_CHUNK", 3)


@pytest.mark.parametrize(("size", "limit", "complete"), [
    (0, 10, True), (10, 10, True), (11, 10, False), (25, 10, False), (7, 0, False),
])
def test_read_regular_reads_up_to_the_limit_and_says_whether_that_was_all(
        tmp_path: Path, size: int, limit: int, complete: bool) -> None:
    path = tmp_path / "data"
    path.write_bytes(bytes(range(size)))
    assert safeio.read_regular(path, limit) == (bytes(range(size))[:limit], complete)
    tail = bytes(range(size))[-limit:] if limit else b""
    assert safeio.read_regular(path, limit, tail=True) == (tail, complete)


@pytest.mark.parametrize(("size", "limit", "hashed"), [
    (0, 10, True), (10, 10, True), (11, 10, False), (9, 10, True),
])
def test_hash_regular_hashes_only_files_within_the_limit(
        tmp_path: Path, size: int, limit: int, hashed: bool) -> None:
    path = tmp_path / "data"
    path.write_bytes(bytes(range(size)))
    expected = hashlib.sha256(bytes(range(size))).hexdigest() if hashed else None
    assert safeio.hash_regular(path, limit) == expected


def test_a_file_that_grows_past_the_limit_while_hashed_is_not_hashed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``lstat`` said small enough; what the descriptor then reads is what counts."""
    path = tmp_path / "data"
    path.write_bytes(b"12345")
    opened = safeio._open_regular

    def grows(target: Path | str) -> object:
        found = opened(target)
        path.write_bytes(b"x" * 50)
        return found

    monkeypatch.setattr(safeio, "_open_regular", grows)
    assert safeio.hash_regular(path, 10) is None
