"""GCP Cloud Billing Catalog adapter: Compute Engine SKUs, paged with ``nextPageToken``.

GCP bills a GPU VM by component: GPUs per GPU-hour in their own SKUs, plus the machine
family's vCPU-hours, GiB-hours of RAM and, where the machine type bundles it, local SSD
per GiB-month (price-feed-formats.md section 3.3). A machine type's price per instance-hour
is therefore composed here, region by region and pricing model by pricing model:

    gpus x GPU + vcpus x core + memory_gib x RAM + local_ssd_gib x SSD / 730

with the counts from ``catalog/data/instance_map.yaml``. The component prices themselves
are returned too (``FeedResult.components``), so the per-GPU-hour figure stays available.
A machine whose CPU, RAM or SSD component is missing from the listing is reported as
``incomplete_components`` rather than priced from its GPUs alone.
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from urllib.parse import parse_qsl
from urllib.parse import urlencode
from urllib.parse import urlsplit
from urllib.parse import urlunsplit

from catalog.pricefeeds.collector import ResultCollector
from catalog.pricefeeds.dates import iso_date
from catalog.pricefeeds.errors import AbsurdPrice
from catalog.pricefeeds.errors import MalformedPayload
from catalog.pricefeeds.keyed import KeyedFeed
from catalog.pricefeeds.mapping import GcpMachineType
from catalog.pricefeeds.money import HOURLY_QUANTUM
from catalog.pricefeeds.money import HOURS_PER_YEAR
from catalog.pricefeeds.money import units_nanos_amount
from catalog.pricefeeds.records import ComponentPrice
from catalog.pricefeeds.records import FeedResult
from catalog.pricefeeds.records import ParsedPrice
from catalog.pricefeeds.records import PricingModel
from catalog.pricefeeds.records import RejectionReason
from catalog.pricefeeds.sanity import check_accelerator_hour_rate
from catalog.pricefeeds.sanity import check_currency
from catalog.pricefeeds.sources import iter_json_pages

PROVIDER = "gcp"
COMPUTE_ENGINE_SKUS_URL = (
    "https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus?currencyCode=USD&pageSize=5000"
)
USAGE_TYPES = {
    "OnDemand": PricingModel.ON_DEMAND,
    "Preemptible": PricingModel.SPOT,
    "Commit1Yr": PricingModel.RESERVED_1Y,
    "Commit3Yr": PricingModel.RESERVED_3Y,
}
# GCP turns per-month resources (local SSD) into hours with 730 hours a month.
HOURS_PER_MONTH = HOURS_PER_YEAR // 12  # Google prices local SSD per GiB-month
USAGE_UNITS = {"gpu": "h", "vcpu": "h", "ram": "GiBy.h", "local_ssd": "GiBy.mo"}
# SKUs that also read "<GPU or family> ... running in", but are not the VM price (section 3.3).
DECOYS = (
    (re.compile(r"^Reserved ", re.IGNORECASE), RejectionReason.RESERVATION_ONLY),
    (re.compile(r"sole[ -]tenan", re.IGNORECASE), RejectionReason.DEDICATED_TENANCY),
    (
        re.compile(
            r"^DWS |Dynamic Workload|Capacity Optimized|Custom|Premium|vGPU|Virtual Workstation",
            re.IGNORECASE,
        ),
        RejectionReason.OTHER_OFFER,
    ),
)
GPU_DESCRIPTION = re.compile(
    r"^(?:Commitment v1: )?(?P<name>.+?)(?: GPU)?(?: attached to Spot Preemptible VMs)?"
    r" (?:running )?in (?P<geo>.+?)(?: for \d+ Years?)?$"
)
LOCAL_SSD_DESCRIPTION = re.compile(
    r"^(?:SSD backed Local Storage(?: attached to Spot Preemptible VMs)? in "
    r"|Commitment v1: Local SSD in )",
    re.IGNORECASE,
)


def family_component_pattern(family: str) -> re.Pattern[str]:
    """Matches the vCPU ("core") and RAM SKUs of one machine family, in every usage type.

    Examples: "A3 Instance Core running in Americas", "Spot Preemptible A3 Instance Ram
    running in Americas", "Commitment v1: A3 Cpu in Americas for 1 Year".
    """
    name = re.escape(family)
    return re.compile(
        rf"^(?:Spot Preemptible )?{name} Instance (?P<kind>Core|Ram) running in "
        rf"|^Commitment v1: {name} (?P<commit_kind>Cpu|Core|Ram) in "
    )


@dataclass(frozen=True)
class _Component:
    """A component price found in the listing, keyed for composition."""

    kind: str  # "gpu" | "vcpu" | "ram" | "local_ssd"
    name: str  # GPU name or machine family; "" for local SSD
    price: ComponentPrice


class GcpBillingCatalogFeed(KeyedFeed):
    """GCP machine-type prices (on-demand, spot, 1/3-year commitments) from component SKUs.

    Parameters
    ----------
    location
        The Compute Engine SKU listing URL (default), a page file, a directory of pages
        or a list of page files.
    api_key, client, instance_map, limits
        As for every keyed feed (``KeyedFeed``); the key is sent as ``X-Goog-Api-Key``.
    """

    provider = PROVIDER
    default_location = COMPUTE_ENGINE_SKUS_URL
    key_header = "X-Goog-Api-Key"
    key_prefix = ""

    @functools.cached_property
    def _family_patterns(self) -> dict[str, re.Pattern[str]]:
        families = {m.family for m in self.instance_map.gcp_machine_types if m.family}
        return {family: family_component_pattern(family) for family in families}

    def fetch(self) -> FeedResult:
        """Read every page, then compose machine prices; raises a FeedError on any bad page."""
        collector = ResultCollector(PROVIDER, self.limits)
        components: dict[tuple[str, str, PricingModel, str], _Component] = {}
        sku_count = 0
        pages = iter_json_pages(
            self.location,
            provider=PROVIDER,
            next_page=_next_page_url,
            client=self.client,
            headers=self.headers,
        )
        for address, page in pages:
            skus = page.get("skus") if isinstance(page, dict) else None
            if not isinstance(skus, list):
                raise MalformedPayload(PROVIDER, address, "page has no skus list")
            sku_count += len(skus)
            for sku in skus:
                for component in self._components(sku, address=address, collector=collector):
                    key = (
                        component.kind,
                        component.name,
                        component.price.pricing_model,
                        component.price.region,
                    )
                    kept = components.setdefault(key, component)
                    if kept is not component:
                        collector.reject(
                            component.price.sku,
                            RejectionReason.DUPLICATE_OFFER,
                            f"{component.price.description} in {component.price.region}: "
                            f"{kept.price.sku} already prices it",
                        )
        if sku_count == 0:
            raise MalformedPayload(PROVIDER, str(self.location), "no SKUs (wrong service id?)")
        for component in components.values():
            collector.add_component(component.price)
        self._compose(components, collector=collector)
        return collector.result(source_version=None)

    def _components(self, sku: Any, *, address: str, collector: ResultCollector) -> list[_Component]:
        """The component prices one SKU contributes (one per service region), or none."""
        if not isinstance(sku, dict):
            raise MalformedPayload(PROVIDER, address, "a SKU is not an object")
        sku_id = str(sku.get("skuId"))
        description = str(sku.get("description", ""))
        category = sku.get("category") or {}
        identified = self._identify(sku_id, description, category, collector=collector)
        pricing_model = USAGE_TYPES.get(str(category.get("usageType")))
        if identified is None or pricing_model is None:
            return []
        kind, name = identified
        record = f"{sku_id} {description!r}"
        price, unit, currency, effective = _unit_price(sku, record=record)
        if unit != USAGE_UNITS[kind]:
            raise MalformedPayload(PROVIDER, record, f"usageUnit {unit!r}, not {USAGE_UNITS[kind]!r}")
        check_currency(currency, limits=self.limits, provider=PROVIDER, record=record)
        # A $0 component would still compose a plausible-looking machine price.
        if price <= 0:
            raise AbsurdPrice(PROVIDER, record, f"{price} per {unit} is not positive")
        if kind == "gpu":
            check_accelerator_hour_rate(price, limits=self.limits, provider=PROVIDER, record=record)
        regions = sku.get("serviceRegions")
        if not isinstance(regions, list) or not regions:
            raise MalformedPayload(PROVIDER, record, "no serviceRegions")
        return [
            _Component(
                kind=kind,
                name=name,
                price=ComponentPrice(
                    provider=PROVIDER,
                    sku=sku_id,
                    description=description,
                    component=kind,
                    region=str(region),
                    pricing_model=pricing_model,
                    price_per_unit=price,
                    usage_unit=unit,
                    currency=currency,
                    effective_date=effective,
                    source_url=address,
                ),
            )
            for region in regions
        ]

    def _identify(
        self, sku_id: str, description: str, category: dict[str, Any], *, collector: ResultCollector
    ) -> tuple[str, str] | None:
        """``(kind, name)`` of the component a SKU prices, e.g. ("vcpu", "A3"), or None.

        GPU SKUs that are decoys or unmapped are reported; other SKUs that price nothing we
        compose (network, disks, "Reserved A3 Instance Core"...) are skipped silently.
        """
        decoy = next((reason for pattern, reason in DECOYS if pattern.search(description)), None)
        if category.get("resourceGroup") != "GPU":
            return None if decoy is not None else self._machine_component(description)
        if decoy is not None:
            collector.reject(sku_id, decoy, description)
            return None
        name = self._gpu_name(sku_id, description, category, collector=collector)
        return None if name is None else ("gpu", name)

    def _gpu_name(
        self, sku_id: str, description: str, category: dict[str, Any], *, collector: ResultCollector
    ) -> str | None:
        if category.get("usageType") not in USAGE_TYPES:
            collector.reject(
                sku_id,
                RejectionReason.OTHER_OFFER,
                f"{description} (usageType {category.get('usageType')!r})",
            )
            return None
        match = GPU_DESCRIPTION.match(description)
        name = match.group("name") if match else description
        if name not in self.instance_map.gcp_gpus:
            collector.reject(
                sku_id,
                RejectionReason.UNMAPPED_ACCELERATOR,
                f"{description}: GPU {name!r} is not in instance_map.yaml gcp.gpus",
            )
            return None
        return name

    def _machine_component(self, description: str) -> tuple[str, str] | None:
        if LOCAL_SSD_DESCRIPTION.match(description):
            return "local_ssd", ""
        for family, pattern in self._family_patterns.items():
            match = pattern.match(description)
            if match:
                kind = match.group("kind") or match.group("commit_kind")
                return ("ram" if kind == "Ram" else "vcpu"), family
        return None

    def _compose(
        self,
        components: dict[tuple[str, str, PricingModel, str], _Component],
        *,
        collector: ResultCollector,
    ) -> None:
        gpu_names_in_use = {m.gpu_name for m in self.instance_map.gcp_machine_types}
        for (kind, name, _, _), component in components.items():
            if kind == "gpu" and name not in gpu_names_in_use:
                collector.reject(
                    component.price.sku,
                    RejectionReason.UNMAPPED_ACCELERATOR,
                    f"{name}: priced per GPU, but no machine type in instance_map.yaml uses it",
                )
        for machine in self.instance_map.gcp_machine_types:
            missing_kinds: dict[PricingModel, set[str]] = defaultdict(set)
            missing_regions: dict[PricingModel, list[str]] = defaultdict(list)
            for (kind, name, model, region), gpu in components.items():
                if kind != "gpu" or name != machine.gpu_name:
                    continue
                parts = _machine_parts(machine, gpu, components, model=model, region=region)
                if isinstance(parts, set):
                    missing_kinds[model] |= parts
                    missing_regions[model].append(region)
                    continue
                collector.add(_machine_price(machine, gpu, parts))
            for model, kinds in missing_kinds.items():
                collector.reject(
                    machine.name,
                    RejectionReason.INCOMPLETE_COMPONENTS,
                    f"{machine.name} {model}: no {', '.join(sorted(kinds))} SKU in "
                    f"{', '.join(sorted(missing_regions[model]))}",
                )


def _machine_parts(
    machine: GcpMachineType,
    gpu: _Component,
    components: dict[tuple[str, str, PricingModel, str], _Component],
    *,
    model: PricingModel,
    region: str,
) -> list[tuple[_Component, Decimal]] | set[str]:
    """(component, quantity) pairs of a machine in one region, or the kinds that are missing."""
    wanted: list[tuple[str, str, Decimal]] = []
    if machine.family is not None:
        wanted += [
            ("vcpu", machine.family, Decimal(machine.vcpus)),
            ("ram", machine.family, Decimal(machine.memory_gib)),
        ]
    parts = [(gpu, Decimal(machine.accelerators_per_instance))]
    missing = set()
    for kind, name, quantity in wanted:
        component = components.get((kind, name, model, region))
        if component is None:
            missing.add(f"{name} {kind}".strip())
        else:
            parts.append((component, quantity))
    # Bundled local SSD (A3: 750 GiB per GPU) is a separate SKU that a listing may leave out
    # (Google's own A3 pages price the machine without it); it is under 1 % of the price, so
    # the machine is priced without it and its price note says so (see _machine_price).
    ssd = components.get(("local_ssd", "", model, region)) if machine.local_ssd_gib else None
    if ssd is not None:
        parts.append((ssd, Decimal(machine.local_ssd_gib) / HOURS_PER_MONTH))
    return missing or parts


def _machine_price(
    machine: GcpMachineType, gpu: _Component, parts: list[tuple[_Component, Decimal]]
) -> ParsedPrice:
    total = sum((c.price.price_per_unit * quantity for c, quantity in parts), Decimal(0))
    hourly = total.quantize(HOURLY_QUANTUM)
    sku = "+".join(c.price.sku for c, _ in parts)
    if machine.local_ssd_gib and not any(c.kind == "local_ssd" for c, _ in parts):
        sku += f" (without its {machine.local_ssd_gib:,} GiB local SSD: no SSD SKU in the feed)"
    return ParsedPrice.hourly(
        PROVIDER, machine, sku=sku, instance_type=machine.name,
        region=gpu.price.region, pricing_model=gpu.price.pricing_model, price=hourly,
        currency=gpu.price.currency, effective_date=gpu.price.effective_date, source_url=gpu.price.source_url,
    )


def _unit_price(sku: dict[str, Any], *, record: str) -> tuple[Decimal, str, str, Any]:
    """(price per usage unit, usage unit, currency, effective date) of the latest pricing."""
    pricing_info = sku.get("pricingInfo")
    if not isinstance(pricing_info, list) or not pricing_info:
        raise MalformedPayload(PROVIDER, record, "no pricingInfo")
    latest = pricing_info[-1]  # a timeline; without startTime only the current entry
    expression = latest.get("pricingExpression") or {}
    tiers = expression.get("tieredRates")
    if not isinstance(tiers, list) or len(tiers) != 1:
        raise MalformedPayload(PROVIDER, record, f"expected one price tier, got {tiers!r}")
    unit_price = tiers[0].get("unitPrice")
    price = units_nanos_amount(unit_price, provider=PROVIDER, record=record)
    effective = iso_date(latest.get("effectiveTime"), provider=PROVIDER, record=record)
    return price, str(expression.get("usageUnit")), str(unit_price.get("currencyCode")), effective


def _next_page_url(page: Any, address: str) -> str | None:
    token = page.get("nextPageToken") if isinstance(page, dict) else None
    if not token:
        return None
    parts = urlsplit(address)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "pageToken"]
    return urlunsplit(parts._replace(query=urlencode([*query, ("pageToken", token)])))
