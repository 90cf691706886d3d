"""How figures read in reports: money to the cent, shares as percentages, "never" for no answer."""

from __future__ import annotations

import math
from datetime import UTC
from datetime import date
from datetime import datetime

from costmodel.vocabulary import money

NO_ANSWER = "never"


def format_usd_cents(amount: float | None) -> str:
    """Money to the cent, as the API gives it, in the reporting currency (``money_in``).

    Examples
    --------
    >>> format_usd_cents(1234567.891), format_usd_cents(-45.6), format_usd_cents(float("nan"))
    ('$1,234,567.89', '-$45.60', 'n/a')
    """
    if amount is None or not math.isfinite(amount):
        return "n/a"
    return money(amount)


def format_share(value: float | None, digits: int = 1) -> str:
    """A share as a percentage; "none" where there is none.

    Examples
    --------
    >>> format_share(0.4128), format_share(float("nan"))
    ('41.3%', 'none')
    """
    if value is None or not math.isfinite(value):
        return "none"
    return f"{value:.{digits}%}"


def format_month(month: float | None) -> str:
    """A breakeven month, or "never"."""
    if month is None or not math.isfinite(month):
        return NO_ANSWER
    return f"month {int(month)}"


def format_number(value: float | None, digits: int = 2) -> str:
    """A plain quantity with thousands separators; "n/a" for NaN and "no limit" for +inf."""
    if value is None or math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "no limit"
    return f"{value:,.{digits}f}"


def source_words(origin: str, source: str) -> str:
    """Where an input came from, in words: a figure typed into the scenario is recorded as its
    field ('scenario.storage_usd'), which the input's label already names."""
    return "entered in the scenario" if origin == "scenario" and source.startswith("scenario.") else source


def timestamp(moment: datetime | date | None) -> str:
    """A date or an instant in UTC, to the minute; "" when unknown."""
    if moment is None:
        return ""
    if isinstance(moment, datetime):
        return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return moment.isoformat()
