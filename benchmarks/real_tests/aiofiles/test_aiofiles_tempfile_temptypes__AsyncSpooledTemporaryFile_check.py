# quest: src/aiofiles/tempfile/temptypes.py::AsyncSpooledTemporaryFile._check
from aiofiles import tempfile


async def test_check_rolls_over_only_when_the_position_passes_max_size():
    async with tempfile.SpooledTemporaryFile(max_size=3, mode="w+b") as f:
        # write to the in-memory buffer directly, bypassing the wrapper's own check
        f._file._file.write(b"abc")
        await f._check()
        assert f._file._rolled is False  # tell() == max_size: not past it

        f._file._file.write(b"d")
        await f._check()
        assert f._file._rolled is True
        await f.seek(0)
        assert await f.read() == b"abcd"


async def test_check_looks_at_the_position_not_the_size():
    async with tempfile.SpooledTemporaryFile(max_size=3, mode="w+b") as f:
        f._file._file.write(b"abcdef")
        f._file._file.seek(1)
        await f._check()
        assert f._file._rolled is False


async def test_check_does_nothing_without_max_size():
    async with tempfile.SpooledTemporaryFile(max_size=0, mode="w+b") as f:
        f._file._file.write(b"x" * 10_000)
        await f._check()
        assert f._file._rolled is False


async def test_check_on_a_rolled_file_leaves_it_as_it_is():
    async with tempfile.SpooledTemporaryFile(max_size=2, mode="w+b") as f:
        await f.write(b"abc")
        assert f._file._rolled is True
        on_disk = f._file._file
        await f._check()
        assert f._file._rolled is True
        assert f._file._file is on_disk
