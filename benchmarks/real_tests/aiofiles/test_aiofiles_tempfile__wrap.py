# quest: src/aiofiles/tempfile/__init__.py::wrap
import io

import pytest
from aiofiles.tempfile import wrap
from aiofiles.threadpool.binary import AsyncBufferedIOBase, AsyncBufferedReader, AsyncFileIO
from aiofiles.threadpool.text import AsyncTextIOWrapper


@pytest.mark.parametrize("obj", [object(), io.BytesIO(b""), 42, None])
def test_an_unsupported_io_type_raises_type_error(obj):
    with pytest.raises(TypeError, match=r"^Unsupported IO type: ") as info:
        wrap(obj, obj)
    assert str(info.value) == f"Unsupported IO type: {obj}"


def test_each_io_type_gets_its_async_wrapper(tmp_path):
    path = tmp_path / "f.bin"
    path.write_bytes(b"data")
    with open(path) as text, open(path, "rb") as reader, \
            open(path, "r+b") as rand, open(path, "ab") as writer, \
            open(path, "rb", buffering=0) as raw:
        cases = [(text, AsyncTextIOWrapper), (reader, AsyncBufferedReader),
                 (rand, AsyncBufferedReader), (writer, AsyncBufferedIOBase),
                 (raw, AsyncFileIO)]
        for base, kind in cases:
            wrapped = wrap(base, base, loop=None, executor=None)
            assert type(wrapped) is kind
            assert wrapped._file is base


async def test_a_wrapped_binary_reader_reads(tmp_path):
    path = tmp_path / "r.bin"
    path.write_bytes(b"hello")
    with open(path, "rb") as base:
        wrapped = wrap(base, base)
        assert await wrapped.read() == b"hello"
