# quest: src/dateutil/tz/_tzfile.py::_is_seekable
import io
import os

import pytest
from dateutil.tz import _tzfile
from dateutil.tz._tzfile import _is_seekable


class NoSeekable:
    """File-like objects need not implement seekable()."""

    def seek(self, pos):
        return pos


class Refuses(NoSeekable):
    def seekable(self):
        return False


class BadDescriptor(NoSeekable):
    def fileno(self):
        return 987654  # not an open descriptor: fstat raises OSError


class NoFileno(NoSeekable):
    pass


class ClosedDescriptor(NoSeekable):
    def fileno(self):
        raise ValueError("I/O operation on closed file")


def test_an_object_without_seek_is_not_seekable():
    assert _is_seekable(object()) is False
    assert _is_seekable(iter([b"x"])) is False


def test_seekable_returning_false_wins():
    assert _is_seekable(Refuses()) is False


@pytest.fixture
def pipe():
    read_fd, write_fd = os.pipe()
    with os.fdopen(read_fd, "rb") as reader:
        yield reader
    os.close(write_fd)


def test_without_the_windows_pipe_bug_anything_with_seek_is_trusted(monkeypatch):
    monkeypatch.setattr(_tzfile, "_SEEKABLE_PIPES_BUG", False)
    assert _is_seekable(io.BytesIO(b"TZif")) is True
    assert _is_seekable(NoSeekable()) is True
    assert _is_seekable(BadDescriptor()) is True


def test_a_real_pipe_reports_unseekable_itself(pipe):
    assert _is_seekable(pipe) is False


def test_with_the_pipe_bug_only_regular_files_are_trusted(monkeypatch, tmp_path):
    monkeypatch.setattr(_tzfile, "_SEEKABLE_PIPES_BUG", True)
    path = tmp_path / "zone"
    path.write_bytes(b"TZif")
    with open(path, "rb") as regular:
        assert _is_seekable(regular) is True
    # a descriptor that is not a regular file: /dev/null is a character device
    with open(os.devnull, "rb") as device:
        assert device.seekable() is True
        assert _is_seekable(device) is False


def test_with_the_pipe_bug_objects_without_a_descriptor_are_trusted(monkeypatch):
    monkeypatch.setattr(_tzfile, "_SEEKABLE_PIPES_BUG", True)
    assert _is_seekable(io.BytesIO(b"TZif")) is True   # fileno raises UnsupportedOperation
    assert _is_seekable(NoFileno()) is True            # no fileno at all: AttributeError
    assert _is_seekable(ClosedDescriptor()) is True    # fileno raises ValueError


def test_with_the_pipe_bug_a_failing_fstat_is_trusted(monkeypatch):
    monkeypatch.setattr(_tzfile, "_SEEKABLE_PIPES_BUG", True)
    assert _is_seekable(BadDescriptor()) is True
