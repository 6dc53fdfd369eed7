# quest: pyee/trio.py::TrioEventEmitter.context
import pytest
import trio
from pyee.base import PyeeError
from pyee.trio import TrioEventEmitter


@pytest.mark.trio
async def test_with_a_manager_the_context_opens_and_runs_the_nursery():
    ee = TrioEventEmitter()
    seen = []

    @ee.on("e")
    async def handler(value):
        await trio.sleep(0)
        seen.append(value)

    async with ee.context() as inside:
        assert inside is ee and ee._nursery is not None
        ee.emit("e", "x")
    assert seen == ["x"]  # the nursery waited for the handler


@pytest.mark.trio
async def test_with_a_nursery_the_context_yields_at_once():
    async with trio.open_nursery() as nursery:
        ee = TrioEventEmitter(nursery=nursery)
        async with ee.context() as inside:
            assert inside is ee and ee._nursery is nursery


@pytest.mark.trio
async def test_without_a_nursery_or_a_manager_it_refuses():
    ee = TrioEventEmitter()
    ee._manager = None
    with pytest.raises(PyeeError, match="Uninitialized nursery or nursery manager"):
        async with ee.context():
            pass


@pytest.mark.trio
async def test_errors_of_handlers_become_error_events_inside_the_context():
    errors = []
    async with TrioEventEmitter() as ee:
        @ee.on("error")
        async def on_error(exc):  # trio handlers are awaited, so async
            errors.append(exc)

        @ee.on("e")
        async def handler():
            raise ValueError("bad")

        ee.emit("e")
    assert [str(e) for e in errors] == ["bad"]
