"""Which of a reservation's purchase options becomes the price of its catalog offering.

A catalog offering is (provider, instance type, region, pricing model), but AWS sells a
1- or 3-year reservation with no, partial or all upfront payment, as a standard or a
convertible class: up to six prices for one offering. One of them is stored, so the offering
has one price in force and a refresh can tell a changed price from another option's price.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from catalog.pricefeeds import ParsedPrice

OfferingKey = tuple[str, str, str, str]  # provider, instance type, region, pricing model


@dataclass(frozen=True)
class TermPreference:
    """Purchase options and offering classes, most preferred first ("" = the feed has none).

    The default prefers "No Upfront" standard reservations: they are paid by the hour like
    the rent model costs every offering, so their cash flows need no upfront fee to be right.
    Options not listed rank after every listed one.
    """

    purchase_options: tuple[str, ...] = ("", "No Upfront", "Partial Upfront", "All Upfront")
    offering_classes: tuple[str, ...] = ("", "standard", "convertible")

    def rank(self, price: ParsedPrice) -> tuple[int, int, str]:
        """Sort key of a price among the options of its offering (lowest wins; sku breaks ties)."""
        return (
            _position(self.purchase_options, price.purchase_option),
            _position(self.offering_classes, price.offering_class),
            price.sku,
        )


def _position(preferred: tuple[str, ...], value: str) -> int:
    return preferred.index(value) if value in preferred else len(preferred)


def offering_key(price: ParsedPrice) -> OfferingKey:
    """The catalog offering a feed price belongs to."""
    return (price.provider, price.instance_type, price.region, str(price.pricing_model))


def preferred_prices(
    prices: Iterable[ParsedPrice], preference: TermPreference
) -> tuple[dict[OfferingKey, ParsedPrice], int]:
    """One price per catalog offering, and how many other purchase options were left out."""
    chosen: dict[OfferingKey, ParsedPrice] = {}
    seen = 0
    for price in prices:
        seen += 1
        key = offering_key(price)
        kept = chosen.get(key)
        if kept is None or preference.rank(price) < preference.rank(kept):
            chosen[key] = price
    return chosen, seen - len(chosen)
