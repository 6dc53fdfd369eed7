# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/rooms.py::Room.can_host
# expect: mutation-pseudo-tested
# claim: 30 adults below one are rejected by the booking form
# claim: 31 adults below one are rejected by the booking form
# claim: 32 reached only through the booking form
# claim: 33 reached only through the booking form
# claim: 34 suites are not sold online
# claim: 35 reached only through the booking form
#
# RED TEAM 4, finding 01: every line of the body claimed unreachable and a test that never
# calls the target got a free REVIEW in swap mode.
# What: the project's conftest imports hotel.rooms, so the judge installs mutants by swapping
#   (install "swap"). The test never calls Room.can_host; all six body lines are claimed.
#   Since the claims reach the judge, the mutation stage ran, and `_import_time_only` asked
#   "is every executed line of the body one the judge saw at import?": with no line executed,
#   yes (vacuously), so no extreme or classic mutant ran.
# Observed: verdict REVIEW (six coverage-unreachable-claim facts, mutation-import-time-only
#   "the function ran only while modules were imported"), no try spent, the quest off the
#   agent's queue for a human who is told something false.
# Fix: a body none of whose lines ran is not import-time-only; the extreme mutants run and
#   survive, and the pseudo-test FAILs (a try spent).
from hotel.rooms import Room


def test_room_kind(double_room):
    assert double_room.kind == "double"
    assert Room("1", "single", 1).number == "1"
