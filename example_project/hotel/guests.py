"""Guest records, import and export."""

import csv
import json
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass
class Guest:
    name: str
    email: str
    stays: int = 0
    vip: bool = False

    def display_name(self) -> str:
        """Name as printed on key cards: 'Ada Lovelace' -> 'A. Lovelace', VIPs get a star."""
        parts = self.name.split()
        if len(parts) >= 2:
            label = f"{parts[0][0]}. {parts[-1]}"
        else:
            label = self.name.strip() or "Guest"
        return f"* {label}" if self.vip else label

    def loyalty_tier(self) -> str | None:
        """Tier earned from past stays; VIPs are always at least silver."""
        if self.stays >= 20:
            return "gold"
        if self.stays >= 10 or self.vip:
            return "silver"
        if self.stays >= 3:
            return "bronze"
        return None


def validate_email(email: str) -> bool:
    """A deliberately simple check: one '@', a dot in the domain, no spaces."""
    if " " in email or email.count("@") != 1:
        return False
    local, domain = email.split("@")
    if not local or "." not in domain:
        return False
    return not domain.startswith(".") and not domain.endswith(".")


def parse_guest(record: dict[str, str]) -> Guest:
    """Build a Guest from a raw CSV/JSON record; raises ValueError on bad data."""
    name = record.get("name", "").strip()
    email = record.get("email", "").strip().lower()
    if not name:
        raise ValueError("guest without a name")
    if not validate_email(email):
        raise ValueError(f"invalid email for {name}: {email!r}")
    try:
        stays = int(record.get("stays") or 0)
    except ValueError:
        stays = 0
    vip = str(record.get("vip", "")).strip().lower() in {"1", "yes", "true", "y"}
    return Guest(name, email, max(stays, 0), vip)


def merge_guests(first: Guest, second: Guest) -> Guest:
    """Combine two records of the same person; the longer name wins, stays add up."""
    if first.email != second.email:
        raise ValueError("cannot merge guests with different emails")
    name = first.name if len(first.name) >= len(second.name) else second.name
    return Guest(name, first.email, first.stays + second.stays, first.vip or second.vip)


def dedupe_guests(guests: list[Guest]) -> list[Guest]:
    """Merge duplicates by email, keeping first-seen order."""
    by_email: dict[str, Guest] = {}
    for guest in guests:
        if guest.email in by_email:
            by_email[guest.email] = merge_guests(by_email[guest.email], guest)
        else:
            by_email[guest.email] = guest
    return list(by_email.values())


def load_guests_csv(path: str | Path) -> tuple[list[Guest], list[str]]:
    """Read guests from a CSV file with a header row; returns (guests, errors)."""
    guests, errors = [], []
    with open(path, newline="", encoding="utf-8") as handle:
        for line_no, record in enumerate(csv.DictReader(handle), start=2):
            try:
                guests.append(parse_guest(record))
            except ValueError as exc:
                errors.append(f"line {line_no}: {exc}")
    return guests, errors


def save_guests_json(guests: list[Guest], path: str | Path) -> int:
    """Write guests to a JSON file sorted by email; returns the number written."""
    records = sorted((asdict(g) for g in guests), key=lambda r: r["email"])
    Path(path).write_text(json.dumps(records, indent=2) + "\n", encoding="utf-8")
    return len(records)
