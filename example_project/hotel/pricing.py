"""Room pricing rules. Most of this predates the current finance team."""


def nightly_rate(base: float, season: str, nights: int) -> float:
    """Per-night rate after seasonal and long-stay adjustments."""
    if nights <= 0:
        raise ValueError("nights must be positive")
    if season == "high":
        rate = base * 1.25
    elif season == "low":
        rate = base * 0.8
    else:
        rate = base
    if nights >= 7:
        rate = rate * 0.9
    return round(rate, 2)


TAX_RATE = 0.12
CITY_TAX_PER_NIGHT = 2.5
LOYALTY_PERCENT = {"bronze": 5, "silver": 10, "gold": 15}


def round_to_cents(amount: float) -> float:
    """Round half-up to two decimals (finance dislikes banker's rounding)."""
    cents = int(abs(amount) * 100 + 0.5)
    sign = -1 if amount < 0 else 1
    return sign * cents / 100


def apply_discount(price: float, percent: float) -> float:
    """Take `percent` off `price`; percent must be within 0..100."""
    if percent < 0 or percent > 100:
        raise ValueError(f"invalid discount: {percent}")
    return round_to_cents(price * (100 - percent) / 100)


def loyalty_discount(tier: str | None, nights: int) -> float:
    """Discount percent for a loyalty tier; gold members get a bonus on long stays."""
    if tier is None:
        return 0.0
    tier = tier.lower()
    if tier not in LOYALTY_PERCENT:
        return 0.0
    percent = float(LOYALTY_PERCENT[tier])
    if tier == "gold" and nights > 5:
        percent += 5
    return percent


def tax_amount(subtotal: float, nights: int, exempt: bool = False) -> float:
    """VAT plus a flat city tax per night. Exempt guests pay neither."""
    if exempt or subtotal <= 0:
        return 0.0
    vat = subtotal * TAX_RATE
    city = CITY_TAX_PER_NIGHT * min(nights, 14)
    return round_to_cents(vat + city)


def total_price(base: float, season: str, nights: int, tier: str | None = None) -> float:
    """Full price of a stay including loyalty discount and taxes."""
    subtotal = nightly_rate(base, season, nights) * nights
    subtotal = apply_discount(subtotal, loyalty_discount(tier, nights))
    return round_to_cents(subtotal + tax_amount(subtotal, nights))


def cheapest_option(options: dict[str, float], budget: float | None = None) -> str | None:
    """Name of the cheapest option, optionally limited to those within budget."""
    candidates = list(options.items())
    if budget is not None:
        candidates = [item for item in candidates if item[1] <= budget]
    if not candidates:
        return None
    name, _ = min(candidates, key=lambda item: (item[1], item[0]))
    return name


def price_breakdown(base: float, season: str, nights: int, tier: str | None = None) -> list[str]:
    """Human-readable invoice lines for a stay."""

    def line(label: str, amount: float) -> str:
        text = f"{amount:,.2f}"
        return f"{label:<12}{text:>10}"

    rate = nightly_rate(base, season, nights)
    gross = round_to_cents(rate * nights)
    net = apply_discount(gross, loyalty_discount(tier, nights))
    tax = tax_amount(net, nights)
    lines = [line("Room", gross)]
    if net != gross:
        lines.append(line("Discount", net - gross))
    lines.append(line("Tax", tax))
    lines.append(line("Total", round_to_cents(net + tax)))
    return lines
