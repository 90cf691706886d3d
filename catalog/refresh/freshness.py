"""How old a price's information is, and whether it is too old to trust (stale).

A price is known to hold on its as-of date and, for feed prices, on the last day a refresh
found it still current (its PriceCheck). Its age is the days from the later of the two to
today; retrieving an old document does not make its prices young. Prices older than
``settings.PRICE_STALE_AFTER_DAYS`` are stale.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.utils import timezone

from catalog.models import PricePoint


def staleness_limit_days() -> int:
    """The staleness limit [days]: a price last known to hold longer ago than this is stale
    (``settings.PRICE_STALE_AFTER_DAYS``)."""
    return settings.PRICE_STALE_AFTER_DAYS


def is_stale_age(age_days: int, limit_days: int | None = None) -> bool:
    """Whether a price ``age_days`` old is past ``limit_days`` (default: the staleness limit)."""
    return age_days > (staleness_limit_days() if limit_days is None else limit_days)


@dataclass(frozen=True)
class PriceAge:
    """When a price was last known to hold, how many days ago that is, and whether it is stale."""

    known_on: dt.date
    age_days: int
    is_stale: bool


def price_age(
    *,
    as_of: dt.date,
    checked_on: dt.date | None,
    today: dt.date | None = None,
    stale_after_days: int | None = None,
) -> PriceAge:
    """Age of a price as of ``today`` (default: the local date).

    Parameters
    ----------
    as_of : date
        The price's as-of date.
    checked_on : date or None
        Last day a refresh found it current; None when none has.
    today : date, optional
    stale_after_days : int, optional
        Default ``settings.PRICE_STALE_AFTER_DAYS`` [days].

    Returns
    -------
    PriceAge
        ``age_days`` [days] is 0 for a price that takes effect in the future.

    Examples
    --------
    A price as of 2026-01-01 found current on 2026-11-20, seen on 2026-11-25: 5 days old.
    """
    today = today or timezone.localdate()
    known_on = max(as_of, checked_on) if checked_on is not None else as_of
    age_days = max((today - known_on).days, 0)
    return PriceAge(known_on=known_on, age_days=age_days, is_stale=is_stale_age(age_days, stale_after_days))


def checked_on(point: PricePoint) -> dt.date | None:
    """The last day a refresh found a stored price current; None when none has
    (select_related("last_check") saves a query per point)."""
    try:
        return timezone.localdate(point.last_check.checked_at)
    except ObjectDoesNotExist:
        return None


def price_point_age(point: PricePoint, *, today: dt.date | None = None) -> PriceAge:
    """Age of a stored price."""
    return price_age(as_of=point.as_of, checked_on=checked_on(point), today=today)


def stale_sentence(target: str, age: PriceAge, *, stale_after_days: int) -> str:
    """What a reader is told of a stale price, in every place that shows one."""
    return (f"The price of {target} is {age.age_days:,} days old (last known current on "
            f"{age.known_on.isoformat()}), older than the {stale_after_days}-day limit: check it "
            "before signing.")
