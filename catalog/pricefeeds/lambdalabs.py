"""Lambda Cloud adapter: ``GET /api/v1/instance-types``, on-demand prices per instance in cents."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from catalog.pricefeeds.collector import ResultCollector
from catalog.pricefeeds.errors import MalformedPayload
from catalog.pricefeeds.keyed import KeyedFeed
from catalog.pricefeeds.money import decimal_amount
from catalog.pricefeeds.records import GLOBAL_REGION
from catalog.pricefeeds.records import FeedResult
from catalog.pricefeeds.records import ParsedPrice
from catalog.pricefeeds.records import PricingModel
from catalog.pricefeeds.records import RejectionReason
from catalog.pricefeeds.sources import load_json_document

PROVIDER = "lambda"
LAMBDA_INSTANCE_TYPES_URL = "https://cloud.lambda.ai/api/v1/instance-types"
CENTS_PER_DOLLAR = Decimal(100)
CURRENCY = "USD"  # the API states prices in US cents and names no currency


class LambdaCloudFeed(KeyedFeed):
    """Lambda on-demand prices per instance-hour (``price_cents_per_hour`` / 100, in USD).

    Lambda prices an instance, not a GPU, and the price is the same in every region, so each
    instance type gives one price with region ``"global"``; ``regions_with_capacity_available``
    (empty when sold out) says nothing about the price and is not read. No effective date is
    published: ``effective_date`` is None and the caller records when it observed the price.

    Parameters
    ----------
    location
        The instance-types URL (default) or a local JSON file.
    api_key, client, instance_map, limits
        As for every keyed feed (``KeyedFeed``).
    """

    provider = PROVIDER
    default_location = LAMBDA_INSTANCE_TYPES_URL

    def fetch(self) -> FeedResult:
        """All instance types' prices; raises a FeedError (returning nothing) on a bad payload."""
        address, document = load_json_document(
            self.location, provider=PROVIDER, client=self.client, headers=self.headers
        )
        data = document.get("data") if isinstance(document, dict) else None
        if not isinstance(data, dict) or not data:
            raise MalformedPayload(PROVIDER, address, "no 'data' object of instance types")
        collector = ResultCollector(PROVIDER, self.limits)
        for name, entry in data.items():
            self._add(name, entry, address=address, collector=collector)
        return collector.result(source_version=None)

    def _add(self, name: str, entry: Any, *, address: str, collector: ResultCollector) -> None:
        instance = entry.get("instance_type") if isinstance(entry, dict) else None
        if not isinstance(instance, dict):
            raise MalformedPayload(PROVIDER, name, "no instance_type object")
        cents = decimal_amount(instance.get("price_cents_per_hour"), provider=PROVIDER, record=name)
        match = self.instance_map.lookup(PROVIDER, name)
        if match is None:
            collector.reject(
                name,
                RejectionReason.UNMAPPED_ACCELERATOR,
                f"{name} ({instance.get('description')!r}) is not in instance_map.yaml",
            )
            return
        published_count = (instance.get("specs") or {}).get("gpus")
        if published_count != match.accelerators_per_instance:
            collector.reject(
                name,
                RejectionReason.MAPPING_MISMATCH,
                f"{name}: specs.gpus is {published_count!r}, instance_map.yaml says "
                f"{match.accelerators_per_instance}",
            )
            return
        collector.add(
            ParsedPrice.hourly(
                PROVIDER, match, sku=name, instance_type=name, region=GLOBAL_REGION,
                pricing_model=PricingModel.ON_DEMAND, price=cents / CENTS_PER_DOLLAR, currency=CURRENCY,
                effective_date=None, source_url=address,
            )
        )
