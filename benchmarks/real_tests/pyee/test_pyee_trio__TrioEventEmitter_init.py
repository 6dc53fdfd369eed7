# quest: pyee/trio.py::TrioEventEmitter.__init__
import pytest
import trio
from pyee.base import PyeeError
from pyee.trio import TrioEventEmitter


@pytest.mark.trio
async def test_by_default_a_nursery_manager_is_made_lazily():
    ee = TrioEventEmitter()
    assert ee._nursery is None
    assert ee._manager is not None and hasattr(ee._manager, "__aenter__")


@pytest.mark.trio
async def test_a_given_nursery_is_used_as_is():
    async with trio.open_nursery() as nursery:
        ee = TrioEventEmitter(nursery=nursery)
        assert ee._nursery is nursery and ee._manager is None
        seen = []

        @ee.on("e")
        async def handler(value):
            seen.append(value)

        ee.emit("e", 1)
    assert seen == [1]


@pytest.mark.trio
async def test_a_given_manager_is_kept_until_entered():
    manager = trio.open_nursery()
    ee = TrioEventEmitter(manager=manager)
    assert ee._manager is manager and ee._nursery is None
    async with ee:
        assert ee._nursery is not None
    assert ee._manager is None


@pytest.mark.trio
async def test_a_nursery_and_a_manager_together_are_refused():
    async with trio.open_nursery() as nursery:
        with pytest.raises(PyeeError, match="either pass a nursery or a nursery manager"):
            TrioEventEmitter(nursery=nursery, manager=trio.open_nursery())


@pytest.mark.trio
async def test_it_starts_with_no_listeners():
    ee = TrioEventEmitter()
    assert ee.event_names() == set()
