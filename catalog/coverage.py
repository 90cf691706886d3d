"""What the catalog can answer, per accelerator: which providers, regions and pricing models have a
price in force today, and how old each is (the catalog's coverage page)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from dataclasses import dataclass
from decimal import Decimal

from django.utils import timezone

from catalog.choices import PRICING_WORDS
from catalog.choices import PricingModel
from catalog.models import Accelerator
from catalog.models import CloudOffering
from catalog.refresh.admin import price_shown
from catalog.refresh.freshness import PriceAge
from catalog.refresh.freshness import price_point_age
from catalog.regions import country_words
from catalog.regions import place_of
from catalog.selectors import prices_at
from catalog.selectors import visible_rows


@dataclass(frozen=True)
class CoveredPrice:
    """One offering of an accelerator and its price in force (None: listed without a price)."""

    offering: CloudOffering
    amount_per_accelerator_hour: Decimal | None
    currency: str
    as_of: dt.date | None
    age: PriceAge | None
    source: str

    @property
    def price_words(self) -> str:
        """'$6.88', 'EUR 3.06' (four decimals only where they are not zero)."""
        return price_shown(self.amount_per_accelerator_hour, self.currency)

    @property
    def provider(self) -> str:
        return self.offering.get_provider_display()

    @property
    def region(self) -> str:
        """'eu-central-1 (Frankfurt, Germany (EU))', or the code alone where the catalog cannot
        place it ('global', 'unspecified')."""
        place = place_of(self.offering.region)
        if place is None:
            return self.offering.region
        return f"{self.offering.region} ({place.name}, {country_words(place.country)})"

    @property
    def pricing(self) -> str:
        return PRICING_WORDS.get(PricingModel(self.offering.pricing_model), self.offering.pricing_model)


@dataclass(frozen=True)
class AcceleratorCoverage:
    """An accelerator and every offering of it, priced ones first."""

    accelerator: Accelerator
    prices: tuple[CoveredPrice, ...]

    @property
    def providers(self) -> list[str]:
        return sorted({p.provider for p in self.prices if p.as_of is not None})

    @property
    def pricing_models(self) -> list[str]:
        return sorted({p.pricing for p in self.prices if p.as_of is not None})


def catalog_coverage(*, team_ids: Collection[int] = (),
                     on: dt.date | None = None) -> list[AcceleratorCoverage]:
    """Every accelerator some offering rents, with each offering's price in force on ``on``
    (today by default) and its age; offerings with no price stay listed, as lacking one."""
    on = on or timezone.localdate()
    offerings = list(CloudOffering.objects.filter(visible_rows(team_ids))
                     .select_related("accelerator").order_by("provider", "region", "pricing_model"))
    prices = prices_at(offerings, on=on, team_ids=team_ids)
    by_accelerator: dict[int, list[CoveredPrice]] = {}
    for offering in offerings:
        point = prices.get(offering)
        by_accelerator.setdefault(offering.accelerator_id, []).append(CoveredPrice(
            offering,
            None if point is None else point.amount / offering.accelerators_per_instance,
            "" if point is None else point.currency,
            None if point is None else point.as_of,
            None if point is None else price_point_age(point, today=on),
            "" if point is None else point.source.key))
    coverage = []
    for accelerator in Accelerator.objects.filter(pk__in=by_accelerator).order_by("vendor", "family", "slug"):
        rows = sorted(by_accelerator[accelerator.pk], key=lambda p: (p.as_of is None, p.provider, p.region,
                                                                      p.pricing))
        coverage.append(AcceleratorCoverage(accelerator, tuple(rows)))
    return coverage
