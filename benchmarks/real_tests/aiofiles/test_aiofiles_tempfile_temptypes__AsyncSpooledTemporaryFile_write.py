# quest: src/aiofiles/tempfile/temptypes.py::AsyncSpooledTemporaryFile.write
import io

import pytest
from aiofiles import tempfile


async def test_bytes_stay_in_memory_up_to_max_size_then_roll_over():
    async with tempfile.SpooledTemporaryFile(max_size=5, mode="w+b") as f:
        assert await f.write(b"abc") == 3
        assert f._file._rolled is False
        assert type(f._file._file) is io.BytesIO

        # exactly max_size bytes is still within the limit
        assert await f.write(b"de") == 2
        assert f._file._rolled is False

        # one byte past it rolls the data over to a real file
        assert await f.write(b"f") == 1
        assert f._file._rolled is True
        assert type(f._file._file) is not io.BytesIO

        # once rolled, writes go to the on-disk file through the executor
        assert await f.write(b"gh") == 2
        await f.seek(0)
        assert await f.read() == b"abcdefgh"


async def test_text_mode_counts_characters_and_rolls_over():
    async with tempfile.SpooledTemporaryFile(max_size=4, mode="w+") as f:
        assert await f.write("hé") == 2
        assert f._file._rolled is False
        assert await f.write("llo") == 3
        assert f._file._rolled is True
        assert await f.write(" wörld") == 6
        await f.seek(0)
        assert await f.read() == "héllo wörld"


async def test_no_max_size_never_rolls_over():
    async with tempfile.SpooledTemporaryFile(mode="w+b") as f:
        assert await f.write(b"x" * 100_000) == 100_000
        assert f._file._rolled is False
        await f.seek(0)
        assert len(await f.read()) == 100_000


async def test_a_file_rolled_over_by_hand_takes_writes_on_disk():
    async with tempfile.SpooledTemporaryFile(max_size=1000, mode="w+b") as f:
        await f.write(b"head-")
        await f.rollover()
        assert f._file._rolled is True
        assert await f.write(b"tail") == 4
        await f.seek(0)
        assert await f.read() == b"head-tail"


async def test_writing_the_wrong_type_raises():
    async with tempfile.SpooledTemporaryFile(max_size=10, mode="w+b") as f:
        with pytest.raises(TypeError):
            await f.write("text into a bytes file")
        await f.rollover()
        with pytest.raises(TypeError):
            await f.write("text into a bytes file")
