"""The exchange rates a team's scenarios are converted with, as the engine's RateBook.

The ECB's history alone is some 80,000 rows, so the book asks the database for the one rate it
needs (the newest of a pair on or before a date) and remembers the answer. The tolerance of a
rate's age is the team's (Team.exchange_rate_tolerance_days), else the site's setting.
"""
from __future__ import annotations

import functools
from collections.abc import Sequence
from datetime import date
from decimal import Decimal

from django.conf import settings
from django.db.models import Case
from django.db.models import IntegerField
from django.db.models import Min
from django.db.models import Q
from django.db.models import Value
from django.db.models import When

from catalog.models import ExchangeRate
from costmodel.currency import Rate
from costmodel.currency import RateBook
from teams.models import Team


class StoredRateBook(RateBook):
    """Public rates and the team's own (which win a tie on the same day)."""

    def __init__(self, team_ids: Sequence[int] = ()) -> None:
        super().__init__(())
        self.team_ids = list(team_ids)
        self.visible = Q(team__isnull=True) | Q(team_id__in=self.team_ids)

    @functools.cached_property
    def tolerance_days(self) -> int:
        """The strictest tolerance of the book's teams; asked only once a rate is used."""
        own = (Team.objects.filter(pk__in=self.team_ids)
               .aggregate(days=Min("exchange_rate_tolerance_days"))["days"] if self.team_ids else None)
        return settings.EXCHANGE_RATE_MAX_AGE_DAYS if own is None else own

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
    """Every rate a team may use: the newest on or before a figure's date, flagged when older
    than the team's tolerance."""
    return StoredRateBook(team_ids)
