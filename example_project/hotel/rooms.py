"""Room inventory."""

from collections.abc import Iterable, Iterator

ROOM_KINDS = {"S": "single", "D": "double", "T": "twin", "X": "suite"}
MAX_CAPACITY = 6


class Room:
    """A bookable room. `number` is a normalised string such as "204" or "12A"."""

    def __init__(self, number: str, kind: str, capacity: int, rate: float = 100.0):
        self.number = number
        self.kind = kind
        self.rate = rate
        self.capacity = capacity

    @property
    def capacity(self) -> int:
        return self._capacity

    @capacity.setter
    def capacity(self, value: int) -> None:
        if not 1 <= value <= MAX_CAPACITY:
            raise ValueError(f"capacity must be between 1 and {MAX_CAPACITY}")
        self._capacity = value

    def can_host(self, adults: int, children: int = 0) -> bool:
        """True if the party fits. Two children count as one adult; suites take one extra child."""
        if adults < 1 or children < 0:
            return False
        needed = adults + (children + 1) // 2
        if self.kind == "suite" and children > 0:
            needed -= 1
        return needed <= self.capacity

    @staticmethod
    def normalize_number(raw: str) -> str:
        """Turn user input like ' 12a ' or '0204' into '12A' / '204'."""
        cleaned = raw.strip().upper()
        digits = cleaned.rstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        suffix = cleaned[len(digits):]
        if not digits.isdigit() or len(suffix) > 1:
            raise ValueError(f"bad room number: {raw!r}")
        return str(int(digits)) + suffix

    @classmethod
    def from_code(cls, code: str) -> "Room":
        """Parse an inventory code such as 'D-204-2' (kind letter, number, capacity)."""
        parts = code.split("-")
        if len(parts) != 3:
            raise ValueError(f"bad room code: {code!r}")
        letter, number, capacity = parts
        if letter not in ROOM_KINDS:
            raise ValueError(f"unknown room kind: {letter!r}")
        return cls(cls.normalize_number(number), ROOM_KINDS[letter], int(capacity))


def available_rooms(rooms: Iterable[Room], adults: int, booked: set[str]) -> Iterator[Room]:
    """Yield rooms that are free and large enough, smallest first."""
    for room in sorted(rooms, key=lambda r: (r.capacity, r.number)):
        if room.number in booked:
            continue
        if room.can_host(adults):
            yield room


def find_room(rooms: Iterable[Room], number: str) -> Room:
    """Look a room up by number (normalising the input); KeyError if absent."""
    wanted = Room.normalize_number(number)
    for room in rooms:
        if room.number == wanted:
            return room
    raise KeyError(wanted)


def occupancy_rate(occupied: int, total: int) -> float:
    """Occupied share of rooms as a percentage with one decimal."""
    if total <= 0:
        return 0.0
    occupied = min(max(occupied, 0), total)
    return round(occupied * 100 / total, 1)
