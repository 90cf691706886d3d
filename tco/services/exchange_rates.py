"""The exchange rates a team's scenarios are converted with, as the engine's RateBook.

The ECB's history alone is some 80,000 rows, so the book asks the database for the one rate it
needs (the newest of a pair on or before a date) and remembers the answer.
"""
from __future__ import annotations

import functools
from collections.abc import Sequence
from datetime import date
from decimal import Decimal

from django.conf import settings
from django.db.models import Case
from django.db.models import IntegerField
from django.db.models import Q
from django.db.models import Value
from django.db.models import When

from catalog.models import ExchangeRate
from costmodel.currency import Rate
from costmodel.currency import RateBook


class StoredRateBook(RateBook):
    """Public rates and the team's own (which win a tie on the same day)."""

    def __init__(self, team_ids: Sequence[int] = ()) -> None:
        super().__init__((), max_age_days=settings.EXCHANGE_RATE_MAX_AGE_DAYS)
        self.visible = Q(team__isnull=True) | Q(team_id__in=list(team_ids))

    @functools.cache  # noqa: B019 - one book lives for one evaluation
    def currencies(self) -> set[str]:
        pairs = ExchangeRate.objects.filter(self.visible).values_list("base", "quote").distinct()
        return {code for pair in pairs for code in pair}

    @functools.cache  # noqa: B019
    def newest(self, base: str, quote: str, on: date) -> Rate | None:
        row = (ExchangeRate.objects.filter(self.visible, base=base, quote=quote, on__lte=on)
               .select_related("source")
               .order_by("-on", Case(When(team__isnull=True, then=Value(1)), default=Value(0),
                                     output_field=IntegerField()))
               .first())
        if row is None:
            return None
        return Rate(row.base, row.quote, _exact(row.rate), row.on, row.source.title or row.source.key,
                    row.id)


def _exact(rate: Decimal) -> Decimal:
    """The stored rate without the column's trailing zeros: 1.1606, not 1.1606000000."""
    return rate.quantize(Decimal(1)) if rate == rate.to_integral() else rate.normalize()


def rate_book(team_ids: Sequence[int] = ()) -> RateBook:
    """Every rate a team may use; an older rate is used up to EXCHANGE_RATE_MAX_AGE_DAYS before a
    figure's date."""
    return StoredRateBook(team_ids)
