# quest: src/aiofiles/tempfile/temptypes.py::AsyncSpooledTemporaryFile.writelines
import io
from concurrent.futures import ThreadPoolExecutor

import pytest
from aiofiles import tempfile


class CountingExecutor(ThreadPoolExecutor):
    """Counts the calls handed to the thread pool."""

    def __init__(self):
        super().__init__(max_workers=1)
        self.calls = []

    def submit(self, fn, /, *args, **kwargs):
        self.calls.append(getattr(fn, "func", fn).__name__)
        return super().submit(fn, *args, **kwargs)


@pytest.fixture
def executor():
    with CountingExecutor() as ex:
        yield ex


async def test_lines_stay_in_memory_up_to_max_size():
    async with tempfile.SpooledTemporaryFile(max_size=8, mode="w+b") as f:
        assert await f.writelines([b"ab\n", b"cd\n"]) is None
        assert f._file._rolled is False
        assert type(f._file._file) is io.BytesIO
        # 6 + 2 == max_size: still in memory
        assert await f.writelines([b"e\n"]) is None
        assert f._file._rolled is False
        await f.seek(0)
        assert await f.readlines() == [b"ab\n", b"cd\n", b"e\n"]


async def test_lines_past_max_size_roll_over_and_later_lines_go_to_disk():
    async with tempfile.SpooledTemporaryFile(max_size=4, mode="w+") as f:
        await f.writelines(["one\n", "two\n"])
        assert f._file._rolled is True
        assert type(f._file._file) is not io.BytesIO
        # a generator works as well once rolled over
        assert await f.writelines(line for line in ["three\n", "four"]) is None
        await f.seek(0)
        assert await f.read() == "one\ntwo\nthree\nfour"


async def test_an_empty_iterable_writes_nothing():
    async with tempfile.SpooledTemporaryFile(max_size=1, mode="w+b") as f:
        await f.writelines([])
        assert f._file._rolled is False
        assert await f.tell() == 0


async def test_without_max_size_lines_never_roll_over():
    async with tempfile.SpooledTemporaryFile(mode="w+b") as f:
        await f.writelines([b"z" * 1000] * 50)
        assert f._file._rolled is False
        assert await f.tell() == 50_000


async def test_in_memory_lines_are_written_inline_and_on_disk_lines_in_the_pool(executor):
    async with tempfile.SpooledTemporaryFile(max_size=4, mode="w+b",
                                             executor=executor) as f:
        executor.calls.clear()  # opening the file went through the pool
        await f.writelines([b"ab", b"c"])
        assert executor.calls == []  # still in memory: no thread needed
        await f.writelines([b"de"])  # rolls over, inline as well
        assert f._file._rolled is True
        assert executor.calls == ["rollover"]
        executor.calls.clear()
        await f.writelines([b"fg", b"h"])  # on disk now: a blocking write, in the pool
        assert executor.calls == ["writelines"]
        await f.seek(0)
        assert await f.read() == b"abcdefgh"
