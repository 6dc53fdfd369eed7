# quest: src/aiofiles/tempfile/temptypes.py::AsyncSpooledTemporaryFile.writelines
import io

from aiofiles import tempfile


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
