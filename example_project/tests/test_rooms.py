from hotel.rooms import occupancy_rate


def test_room_basics(double_room):
    assert double_room.number == "204"
    assert double_room.capacity == 2


def test_double_room_hosts_two_adults(double_room):
    assert double_room.can_host(2)
    assert not double_room.can_host(3)


def test_occupancy_rate():
    assert occupancy_rate(45, 60) == 75.0
    assert occupancy_rate(0, 0) == 0.0
