"""Collects one run's prices and rejections, checks them and settles duplicate offers."""

from __future__ import annotations

from catalog.pricefeeds.records import ComponentPrice
from catalog.pricefeeds.records import FeedResult
from catalog.pricefeeds.records import ParsedPrice
from catalog.pricefeeds.records import Rejection
from catalog.pricefeeds.records import RejectionReason
from catalog.pricefeeds.sanity import PriceLimits
from catalog.pricefeeds.sanity import check_price


class ResultCollector:
    """Accumulates what an adapter parsed; ``result()`` builds the FeedResult at the end."""

    def __init__(self, provider: str, limits: PriceLimits) -> None:
        self.provider = provider
        self.limits = limits
        self._prices: list[ParsedPrice] = []
        self._rejections: dict[tuple[str, RejectionReason, str], Rejection] = {}
        self._components: list[ComponentPrice] = []

    def add(self, price: ParsedPrice) -> None:
        """Keep a price; raises UnknownCurrency or AbsurdPrice, which abort the run."""
        check_price(price, limits=self.limits)
        self._prices.append(price)

    def add_component(self, component: ComponentPrice) -> None:
        """Keep a component price (GCP) as published."""
        self._components.append(component)

    def reject(self, sku: str, reason: RejectionReason, detail: str) -> None:
        """Record why a row did not become a price (one entry per sku, reason and detail)."""
        self._rejections.setdefault((sku, reason, detail), Rejection(self.provider, sku, reason, detail))

    def result(self, *, source_version: str | None) -> FeedResult:
        """The run's FeedResult, keeping one price per offer (see ``_settle_duplicates``)."""
        prices = self._settle_duplicates()
        return FeedResult(
            prices=tuple(prices),
            rejections=tuple(self._rejections.values()),
            source_version=source_version,
            components=tuple(self._components),
        )

    def _settle_duplicates(self) -> list[ParsedPrice]:
        # Paging over a live listing can return a row twice, and Azure sometimes lists two
        # meters for one offer: the latest effective date wins, identical repeats vanish, and
        # a conflicting price on the same date is kept out and reported.
        chosen: dict[tuple[str, ...], ParsedPrice] = {}
        for price in self._prices:
            kept = chosen.get(price.offer_key)
            if kept is None or _is_later(price, kept):
                chosen[price.offer_key] = price
        for price in self._prices:
            kept = chosen[price.offer_key]
            same_date = price.effective_date == kept.effective_date
            if same_date and price.price_per_instance_hour != kept.price_per_instance_hour:
                self.reject(
                    price.sku,
                    RejectionReason.DUPLICATE_OFFER,
                    f"{price.instance_type} {price.region} {price.pricing_model}: "
                    f"{price.price_per_instance_hour} conflicts with {kept.price_per_instance_hour} "
                    f"(sku {kept.sku}) on the same date; kept the first",
                )
        return list(chosen.values())


def _is_later(candidate: ParsedPrice, kept: ParsedPrice) -> bool:
    if candidate.effective_date is None or kept.effective_date is None:
        return False
    return candidate.effective_date > kept.effective_date
