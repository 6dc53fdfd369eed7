"""Management reports. Output formats are relied upon by the night auditor's scripts."""

import csv
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from datetime import date, timedelta
from pathlib import Path

from hotel.booking import Booking


def revenue_by_room(bookings: Iterable[Booking], rates: dict[str, float]) -> dict[str, float]:
    """Total nightly revenue per room; rooms without a known rate are skipped."""
    revenue: dict[str, float] = defaultdict(float)
    for booking in bookings:
        rate = rates.get(booking.room_number)
        if rate is None:
            continue
        revenue[booking.room_number] += rate * booking.nights
    return {room: round(amount, 2) for room, amount in sorted(revenue.items())}


def average_stay(bookings: Iterable[Booking]) -> float:
    """Mean number of nights, 0.0 when there are no bookings."""
    nights = [booking.nights for booking in bookings]
    if not nights:
        return 0.0
    return round(sum(nights) / len(nights), 2)


def top_guests(bookings: Iterable[Booking], limit: int = 3) -> list[tuple[str, int]]:
    """Guests with the most nights booked, ties broken alphabetically."""
    if limit < 1:
        raise ValueError("limit must be at least 1")
    nights: Counter[str] = Counter()
    for booking in bookings:
        nights[booking.guest_email] += booking.nights
    ranked = sorted(nights.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:limit]


def daily_occupancy(
    bookings: list[Booking], start: date, days: int, total_rooms: int
) -> Iterator[tuple[date, int, float]]:
    """Yield (day, rooms occupied, percent) for each night from `start`."""
    for offset in range(days):
        day = start + timedelta(days=offset)
        occupied = sum(1 for b in bookings if b.check_in <= day < b.check_out)
        percent = round(occupied * 100 / total_rooms, 1) if total_rooms else 0.0
        yield day, occupied, percent


def peak_day(bookings: list[Booking], start: date, days: int, total_rooms: int) -> date | None:
    """First day with the highest occupancy in the window, None if nobody stays."""
    best_day, best_count = None, 0
    for day, occupied, _ in daily_occupancy(bookings, start, days, total_rooms):
        if occupied > best_count:
            best_day, best_count = day, occupied
    return best_day


def write_occupancy_csv(rows: Iterable[tuple[date, int, float]], path: str | Path) -> int:
    """Write occupancy rows to a CSV file with a header; returns the data row count."""
    count = 0
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["date", "occupied", "percent"])
        for day, occupied, percent in rows:
            writer.writerow([day.isoformat(), occupied, f"{percent:.1f}"])
            count += 1
    return count


def summarize(bookings: list[Booking], total_rooms: int) -> str:
    """One-line summary for the morning briefing; flags overbooking."""
    if not bookings:
        return "No bookings."
    rooms_used = len({b.room_number for b in bookings})
    status = "OVERBOOKED" if rooms_used > total_rooms else "ok"
    return (
        f"{len(bookings)} bookings in {rooms_used}/{total_rooms} rooms, "
        f"avg stay {average_stay(bookings)} nights [{status}]"
    )
