"""Checks every price passes before a run may return it; a failure aborts the whole run."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from decimal import Decimal

from catalog.pricefeeds.errors import AbsurdPrice
from catalog.pricefeeds.errors import UnknownCurrency
from catalog.pricefeeds.records import ParsedPrice


@dataclass(frozen=True)
class PriceLimits:
    """What a run accepts: currencies, and the ceiling per accelerator-hour in that currency."""

    accepted_currencies: frozenset[str] = field(default=frozenset({"USD"}))
    max_price_per_accelerator_hour: Decimal = Decimal(1000)


def check_currency(currency: str, *, limits: PriceLimits, provider: str, record: str) -> None:
    """Raise UnknownCurrency unless ``currency`` is one the run accepts."""
    if currency not in limits.accepted_currencies:
        accepted = ", ".join(sorted(limits.accepted_currencies))
        raise UnknownCurrency(provider, record, f"currency {currency!r} is not one of {accepted}")


def check_accelerator_hour_rate(
    price_per_accelerator_hour: Decimal,
    *,
    limits: PriceLimits,
    provider: str,
    record: str,
) -> None:
    """Raise AbsurdPrice unless 0 < price <= the ceiling [currency / accelerator-hour]."""
    if price_per_accelerator_hour <= 0:
        raise AbsurdPrice(
            provider, record, f"{price_per_accelerator_hour} per accelerator-hour is not positive"
        )
    if price_per_accelerator_hour > limits.max_price_per_accelerator_hour:
        raise AbsurdPrice(
            provider,
            record,
            f"{price_per_accelerator_hour} per accelerator-hour is above the ceiling of "
            f"{limits.max_price_per_accelerator_hour}",
        )


def check_price(price: ParsedPrice, *, limits: PriceLimits) -> None:
    """Check the currency and the per-accelerator-hour rate of one parsed price."""
    record = f"{price.sku} {price.instance_type} {price.region} {price.pricing_model}"
    check_currency(price.currency, limits=limits, provider=price.provider, record=record)
    check_accelerator_hour_rate(
        price.price_per_accelerator_hour, limits=limits, provider=price.provider, record=record
    )
