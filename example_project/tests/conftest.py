import pytest

from hotel.rooms import Room


@pytest.fixture
def double_room():
    return Room("204", "double", 2, rate=120.0)
