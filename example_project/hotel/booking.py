"""Bookings, cancellations and confirmations."""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date

MAX_NIGHTS = 30


class BookingError(Exception):
    """Raised when a booking cannot be made."""


@dataclass(frozen=True)
class Booking:
    guest_email: str
    room_number: str
    check_in: date
    check_out: date

    @property
    def nights(self) -> int:
        return (self.check_out - self.check_in).days

    def overlaps(self, other: "Booking") -> bool:
        """Same room and intersecting dates (check-out day is free for the next guest)."""
        if self.room_number != other.room_number:
            return False
        return self.check_in < other.check_out and other.check_in < self.check_out


def validate_dates(check_in: date, check_out: date, today: date) -> int:
    """Return the number of nights, or raise BookingError for impossible dates."""
    if check_in < today:
        raise BookingError("check-in is in the past")
    nights = (check_out - check_in).days
    if nights < 1:
        raise BookingError("check-out must be after check-in")
    if nights > MAX_NIGHTS:
        raise BookingError(f"stays are limited to {MAX_NIGHTS} nights")
    return nights


def try_book(existing: list[Booking], new: Booking, today: date) -> tuple[bool, str]:
    """Add `new` to `existing` if valid and free; returns (ok, message)."""
    try:
        validate_dates(new.check_in, new.check_out, today)
        for booking in existing:
            if booking.overlaps(new):
                raise BookingError(f"room {new.room_number} is taken")
    except BookingError as exc:
        return False, str(exc)
    existing.append(new)
    return True, "booked"


def cancellation_fee(total: float, days_before: int, refundable: bool = True) -> float:
    """Fee charged when cancelling `days_before` days ahead of check-in."""
    if not refundable:
        return total
    if days_before >= 14:
        return 0.0
    if days_before >= 3:
        return round(total * 0.25, 2)
    if days_before >= 1:
        return round(total * 0.5, 2)
    return total


def late_checkout_fee(hour: int, nightly: float, vip: bool = False) -> float:
    """Charge for leaving after the standard 11:00 check-out."""
    if not 0 <= hour <= 23:
        raise ValueError("hour must be 0-23")
    if hour <= 11 or (vip and hour <= 14):
        return 0.0
    if hour <= 14:
        return round(nightly * 0.25, 2)
    if hour <= 18:
        return round(nightly * 0.5, 2)
    return nightly


async def confirm_booking(booking: Booking, send: Callable[[str, str], Awaitable[bool]]) -> str:
    """Email a confirmation via the async `send(to, body)`; returns the confirmation code."""
    code = f"{booking.room_number}-{booking.check_in:%Y%m%d}-{booking.nights}"
    body = f"Booking {code}: room {booking.room_number}, {booking.nights} night(s)"
    delivered = await send(booking.guest_email, body)
    if not delivered:
        raise BookingError(f"could not deliver confirmation {code}")
    return code
