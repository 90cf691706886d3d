"""RunPod adapter: the GraphQL ``gpuTypes`` query, prices per GPU-hour in USD."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from catalog.pricefeeds.collector import ResultCollector
from catalog.pricefeeds.errors import MalformedPayload
from catalog.pricefeeds.keyed import KeyedFeed
from catalog.pricefeeds.mapping import AcceleratorMatch
from catalog.pricefeeds.money import decimal_amount
from catalog.pricefeeds.records import GLOBAL_REGION
from catalog.pricefeeds.records import FeedResult
from catalog.pricefeeds.records import ParsedPrice
from catalog.pricefeeds.records import PricingModel
from catalog.pricefeeds.records import RejectionReason
from catalog.pricefeeds.sources import is_url
from catalog.pricefeeds.sources import load_json_document

PROVIDER = "runpod"
RUNPOD_GRAPHQL_URL = "https://api.runpod.io/graphql"
GPU_TYPES_QUERY = (
    "query GpuTypes { gpuTypes { id displayName memoryInGb secureCloud communityCloud "
    "securePrice communityPrice secureSpotPrice communitySpotPrice } }"
)
CURRENCY = "USD"  # the API names no currency; its prices are US dollars
# Secure and community cloud are different products; each has an on-demand and a spot price.
PRICE_FIELDS = (
    ("secure", "securePrice", PricingModel.ON_DEMAND),
    ("secure", "secureSpotPrice", PricingModel.SPOT),
    ("community", "communityPrice", PricingModel.ON_DEMAND),
    ("community", "communitySpotPrice", PricingModel.SPOT),
)


class RunPodFeed(KeyedFeed):
    """RunPod pod prices, converted from per GPU-hour to per instance-hour.

    A RunPod "instance" here is a pod of ``count`` GPUs from ``instance_map.yaml`` (1 for
    every type), so ``price_per_instance_hour`` = published price x count and
    ``price_per_accelerator_hour`` gives the published figure back. Instance types are
    ``"<gpu type id> (secure cloud)"`` / ``"(community cloud)"``, region ``"global"``. A
    ``null`` or ``0`` price means "not offered" (the API's convention) and gives no row.
    No effective date is published (``effective_date`` is None).

    Parameters
    ----------
    location
        The GraphQL endpoint (default) or a local JSON file with the query's answer.
    api_key, client, instance_map, limits
        As for every keyed feed (``KeyedFeed``).
    """

    provider = PROVIDER
    default_location = RUNPOD_GRAPHQL_URL

    def fetch(self) -> FeedResult:
        """Every GPU type's prices; raises a FeedError (returning nothing) on a bad answer."""
        address = str(self.location)
        if is_url(self.location):
            document = self.client.post_json(
                address, provider=PROVIDER, body={"query": GPU_TYPES_QUERY}, headers=self.headers
            )
        else:
            address, document = load_json_document(Path(self.location), provider=PROVIDER)
        gpu_types = _gpu_types(document, address=address)
        collector = ResultCollector(PROVIDER, self.limits)
        for gpu_type in gpu_types:
            self._add(gpu_type, address=address, collector=collector)
        return collector.result(source_version=None)

    def _add(self, gpu_type: Any, *, address: str, collector: ResultCollector) -> None:
        if not isinstance(gpu_type, dict) or not gpu_type.get("id"):
            raise MalformedPayload(PROVIDER, address, f"gpu type {gpu_type!r} has no id")
        gpu_id = str(gpu_type["id"])
        offered = [
            (cloud, field, model)
            for cloud, field, model in PRICE_FIELDS
            if gpu_type.get(f"{cloud}Cloud") and gpu_type.get(field)
        ]
        match = self.instance_map.lookup(PROVIDER, gpu_id)
        if match is None:
            if offered:
                collector.reject(
                    gpu_id,
                    RejectionReason.UNMAPPED_ACCELERATOR,
                    f"{gpu_id} ({gpu_type.get('displayName')!r}) is not in instance_map.yaml",
                )
            return
        for cloud, field, model in offered:
            record = f"{gpu_id} {field}"
            per_gpu = decimal_amount(gpu_type[field], provider=PROVIDER, record=record)
            collector.add(_price(gpu_id, cloud, model, per_gpu, match, address=address))


def _gpu_types(document: Any, *, address: str) -> list[Any]:
    if isinstance(document, dict) and document.get("errors"):
        messages = "; ".join(str(e.get("message", e)) for e in document["errors"])
        raise MalformedPayload(PROVIDER, address, f"GraphQL errors: {messages}")
    data = document.get("data") if isinstance(document, dict) else None
    gpu_types = data.get("gpuTypes") if isinstance(data, dict) else None
    if not isinstance(gpu_types, list) or not gpu_types:
        raise MalformedPayload(PROVIDER, address, "no data.gpuTypes list")
    return gpu_types


def _price(
    gpu_id: str,
    cloud: str,
    model: PricingModel,
    per_gpu_hour: Any,
    match: AcceleratorMatch,
    *,
    address: str,
) -> ParsedPrice:
    return ParsedPrice.hourly(
        PROVIDER, match, sku=f"{gpu_id}:{cloud}:{model}", instance_type=f"{gpu_id} ({cloud} cloud)",
        region=GLOBAL_REGION, pricing_model=model, price=per_gpu_hour * match.accelerators_per_instance,
        currency=CURRENCY, effective_date=None, source_url=address,
    )
