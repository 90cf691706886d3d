"""Dates as the feeds write them (``2026-09-01``, ``2026-09-01T00:00:00Z``, ``...T07:42:18.391Z``)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from catalog.pricefeeds.errors import MalformedPayload


def iso_date(value: Any, *, provider: str, record: str) -> dt.date:
    """The calendar date at the start of an ISO 8601 date or timestamp (UTC as published)."""
    try:
        return dt.date.fromisoformat(str(value)[:10])
    except ValueError as exc:
        raise MalformedPayload(provider, record, f"{value!r} is not an ISO date") from exc
