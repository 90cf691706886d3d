"""Amounts as Decimal, from the string and units+nanos forms the feeds publish."""

from __future__ import annotations

from decimal import Decimal
from decimal import InvalidOperation
from typing import Any

from catalog.pricefeeds.errors import MalformedPayload

# AWS and Azure spread a reservation's fee over 365 x 24 hours a year.
HOURS_PER_YEAR = 8760
# Hourly rates keep AWS's own precision (10 decimals) when we derive them by division.
HOURLY_QUANTUM = Decimal("1E-10")
NANOS_PER_UNIT = Decimal(1_000_000_000)


def decimal_amount(value: Any, *, provider: str, record: str) -> Decimal:
    """Read a price published as a string, an int or a Decimal (never a float) [currency]."""
    if isinstance(value, bool) or not isinstance(value, str | int | Decimal):
        raise MalformedPayload(provider, record, f"price {value!r} is not a decimal number")
    try:
        amount = Decimal(value)
    except InvalidOperation as exc:
        raise MalformedPayload(provider, record, f"price {value!r} is not a number") from exc
    if not amount.is_finite():
        raise MalformedPayload(provider, record, f"price {value!r} is not finite")
    return amount


def units_nanos_amount(money: Any, *, provider: str, record: str) -> Decimal:
    """Read a Google ``Money`` (``units`` int64 as a string + ``nanos`` / 1e9) exactly [currency].

    Examples
    --------
    >>> units_nanos_amount({"units": "2", "nanos": 933908000}, provider="gcp", record="x")
    Decimal('2.933908')
    """
    if not isinstance(money, dict):
        raise MalformedPayload(provider, record, "unitPrice is not an object")
    units = decimal_amount(money.get("units", "0"), provider=provider, record=record)
    nanos = money.get("nanos", 0)
    if isinstance(nanos, bool) or not isinstance(nanos, int) or abs(nanos) >= NANOS_PER_UNIT:
        raise MalformedPayload(provider, record, f"nanos {nanos!r} is not an int below 1e9")
    return units + Decimal(nanos) / NANOS_PER_UNIT


def spread_over_term(total: Decimal, years: int) -> Decimal:
    """Turn a fee for a whole term into a rate per hour of the term [currency / hour].

    Examples
    --------
    Azure's 1-year reservation of ND96isr_H100_v5 costs 551221 USD for the term:

    >>> spread_over_term(Decimal("551221"), 1)
    Decimal('62.9247716895')
    """
    return (total / (years * HOURS_PER_YEAR)).quantize(HOURLY_QUANTUM)
