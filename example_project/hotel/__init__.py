"""hotel: a small, old-fashioned hotel management package.

Pricing, rooms, guests, bookings and reports. Standard library only.
"""

__version__ = "0.3.1"

__all__ = ["booking", "guests", "pricing", "reports", "rooms"]
