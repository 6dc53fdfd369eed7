# quest: src/aiofiles/tempfile/temptypes.py::AsyncTemporaryDirectory.close
import os

from aiofiles import tempfile
from aiofiles.tempfile.temptypes import AsyncTemporaryDirectory


async def test_close_removes_the_directory_and_its_contents(tmp_path):
    ctx = tempfile.TemporaryDirectory(prefix="q-", dir=tmp_path)
    wrapper = await ctx  # awaited, not entered: the AsyncTemporaryDirectory itself
    assert isinstance(wrapper, AsyncTemporaryDirectory)
    name = wrapper.name
    assert os.path.isdir(name)
    assert os.path.basename(name).startswith("q-")
    with open(os.path.join(name, "f.txt"), "w") as handle:
        handle.write("x")
    os.mkdir(os.path.join(name, "sub"))

    assert await wrapper.close() is None
    assert not os.path.exists(name)
    assert list(tmp_path.iterdir()) == []


async def test_close_twice_is_harmless(tmp_path):
    wrapper = await tempfile.TemporaryDirectory(dir=tmp_path)
    await wrapper.close()
    await wrapper.close()
    assert not os.path.exists(wrapper.name)


async def test_the_context_manager_gives_the_name_and_cleans_up(tmp_path):
    async with tempfile.TemporaryDirectory(suffix="-s", dir=tmp_path) as name:
        assert isinstance(name, str)
        assert name.endswith("-s")
        assert os.path.isdir(name)
    assert not os.path.exists(name)
