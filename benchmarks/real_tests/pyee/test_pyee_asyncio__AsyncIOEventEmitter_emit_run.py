# quest: pyee/asyncio.py::AsyncIOEventEmitter._emit_run
import asyncio

import pytest
from pyee.asyncio import AsyncIOEventEmitter


class Boom(Exception):
    pass


@pytest.mark.asyncio
async def test_a_coroutine_handler_is_scheduled_on_the_given_loop():
    ee = AsyncIOEventEmitter(loop=asyncio.get_running_loop())
    done = []

    @ee.on("e")
    async def handler(value):
        await asyncio.sleep(0)
        done.append(value)

    ee.emit("e", 7)
    assert done == [] and len(ee._waiting) == 1
    await ee.wait_for_complete()
    assert done == [7] and ee._waiting == set()


@pytest.mark.asyncio
async def test_without_a_loop_the_running_loop_is_used():
    ee = AsyncIOEventEmitter()
    done = []

    @ee.on("e")
    async def handler():
        done.append("ran")

    ee.emit("e")
    await ee.wait_for_complete()
    assert done == ["ran"]


@pytest.mark.asyncio
async def test_a_handler_returning_a_future_is_tracked():
    ee = AsyncIOEventEmitter()
    future = asyncio.get_running_loop().create_future()
    ee.on("e", lambda: future)
    ee.emit("e")
    assert ee._waiting == {future}
    future.set_result("ok")
    await asyncio.sleep(0)
    assert ee._waiting == set()


@pytest.mark.asyncio
async def test_errors_of_coroutines_are_emitted_as_error_events():
    ee = AsyncIOEventEmitter()
    errors = []
    ee.on("error", errors.append)

    @ee.on("e")
    async def handler():
        raise Boom("inside")

    ee.emit("e")
    await ee.wait_for_complete()
    await asyncio.sleep(0)
    assert [str(e) for e in errors] == ["inside"]


@pytest.mark.asyncio
async def test_a_cancelled_future_emits_no_error():
    ee = AsyncIOEventEmitter()
    errors = []
    ee.on("error", errors.append)
    future = asyncio.get_running_loop().create_future()
    ee.on("e", lambda: future)
    ee.emit("e")
    future.cancel()
    await asyncio.sleep(0)
    assert errors == [] and ee._waiting == set()


def test_errors_of_plain_handlers_are_emitted_as_error_events():
    ee = AsyncIOEventEmitter()
    errors = []
    ee.on("error", errors.append)

    @ee.on("e")
    def handler():
        raise Boom("sync")

    assert ee.emit("e") is True
    assert [str(e) for e in errors] == ["sync"]


def test_a_plain_handler_result_is_not_scheduled():
    ee = AsyncIOEventEmitter()
    results = []
    ee.on("e", lambda v: results.append(v) or "a plain value")
    ee.emit("e", 3)
    assert results == [3] and ee._waiting == set()
