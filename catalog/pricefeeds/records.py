"""What a price-feed run returns: prices, rejected rows and the version it read."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from dataclasses import field
from decimal import Decimal
from enum import StrEnum
from typing import TYPE_CHECKING

from catalog.pricefeeds.money import spread_over_term

if TYPE_CHECKING:
    from catalog.pricefeeds.mapping import AcceleratorMatch


class PricingModel(StrEnum):
    """How a cloud price is paid."""

    ON_DEMAND = "on_demand"
    RESERVED_1Y = "reserved_1y"
    RESERVED_3Y = "reserved_3y"
    SPOT = "spot"
    CAPACITY_BLOCK = "capacity_block"


TERM_YEARS = {PricingModel.RESERVED_1Y: 1, PricingModel.RESERVED_3Y: 3}
# Region of offers priced the same everywhere (Lambda, RunPod): their feeds name no region.
GLOBAL_REGION = "global"


class RejectionReason(StrEnum):
    """Why a feed row did not become a price."""

    LICENSED_OS = "licensed_os"  # Windows, RHEL, SUSE, Ubuntu Pro, pre-installed SQL Server
    BYOL = "byol"
    DEDICATED_TENANCY = "dedicated_tenancy"  # AWS dedicated instance/host, Azure host, GCP sole tenancy
    CAPACITY_RESERVATION = "capacity_reservation"  # AWS unused/allocated capacity reservation
    CAPACITY_BLOCK_ZERO_PRICE = "capacity_block_zero_price"  # billed upfront, not in the file
    DEV_TEST = "dev_test"
    LOW_PRIORITY = "low_priority"  # Azure legacy preemptible, not the same product as spot
    RESERVATION_ONLY = "reservation_only"  # GCP "Reserved ..." SKUs
    FREE_TIER = "free_tier"
    OTHER_OFFER = "other_offer"  # e.g. GCP DWS/vGPU, Azure Cloud Services, 5-year terms
    UNMAPPED_ACCELERATOR = "unmapped_accelerator"  # a GPU/ASIC SKU missing from instance_map.yaml
    MAPPING_MISMATCH = "mapping_mismatch"  # the feed's accelerator count disagrees with the map
    INCOMPLETE_COMPONENTS = "incomplete_components"  # GCP machine lacks a CPU/RAM/SSD component
    DUPLICATE_OFFER = "duplicate_offer"  # a second row for the same offer and effective date


@dataclass(frozen=True)
class ParsedPrice:
    """One observed price of one cloud instance in one region and pricing model.

    ``price_per_instance_hour`` is the all-in effective rate in ``currency`` per instance-hour:
    for a reservation with an upfront fee it is ``recurring_price_per_instance_hour +
    upfront_fee / (years x 8760)``. Feeds that publish per accelerator-hour (GCP GPU SKUs,
    RunPod) are converted to the instance with ``accelerators_per_instance`` from
    ``catalog/data/instance_map.yaml``; ``price_per_accelerator_hour`` gives the figure back.
    """

    provider: str  # "aws" | "azure" | "gcp" | "lambda" | "runpod"
    sku: str  # the priced row: AWS "<sku>.<offerTermCode>", Azure "<skuId>:<meterId>", GCP "+"-joined
    instance_type: str  # p5.48xlarge, Standard_ND96isr_H100_v5, a3-highgpu-8g, gpu_8x_h100_sxm5
    region: str  # the provider's region code, or GLOBAL_REGION
    pricing_model: PricingModel
    purchase_option: str  # "No Upfront" | "Partial Upfront" | "All Upfront" | ""
    offering_class: str  # "standard" | "convertible" for AWS reservations, else ""
    price_per_instance_hour: Decimal
    recurring_price_per_instance_hour: Decimal
    upfront_fee: Decimal | None
    currency: str
    accelerator_slug: str
    accelerators_per_instance: int
    effective_date: dt.date | None  # None when the feed states no date (Lambda, RunPod)
    source_url: str  # the URL or local file the row was read from
    source_version: str | None  # AWS offer file "version"; None where the feed has none

    @classmethod
    def hourly(
        cls,
        provider: str,
        match: AcceleratorMatch,
        *,
        sku: str,
        instance_type: str,
        region: str,
        pricing_model: PricingModel,
        price: Decimal,
        currency: str,
        effective_date: dt.date | None,
        source_url: str,
        upfront_fee: Decimal | None = None,
        purchase_option: str = "",
        offering_class: str = "",
        source_version: str | None = None,
    ) -> ParsedPrice:
        """A price from its recurring rate per instance-hour, ``price``.

        An AWS reservation's ``upfront_fee`` is spread over the term into the effective rate;
        the other feeds' prices have no upfront fee, purchase option, offering class or version.

        ``match`` gives the accelerator and how many an instance carries.
        """
        effective = price
        if upfront_fee is not None:
            effective += spread_over_term(upfront_fee, TERM_YEARS[pricing_model])
        return cls(
            provider=provider,
            sku=sku,
            instance_type=instance_type,
            region=region,
            pricing_model=pricing_model,
            purchase_option=purchase_option,
            offering_class=offering_class,
            price_per_instance_hour=effective,
            recurring_price_per_instance_hour=price,
            upfront_fee=upfront_fee,
            currency=currency,
            accelerator_slug=match.accelerator_slug,
            accelerators_per_instance=match.accelerators_per_instance,
            effective_date=effective_date,
            source_url=source_url,
            source_version=source_version,
        )

    @property
    def price_per_accelerator_hour(self) -> Decimal:
        """Effective rate per accelerator-hour [currency / accelerator-hour]."""
        return self.price_per_instance_hour / self.accelerators_per_instance

    @property
    def offer_key(self) -> tuple[str, str, str, str, str, str]:
        """What identifies the offer this row prices, across runs."""
        return (
            self.provider,
            self.instance_type,
            self.region,
            self.pricing_model,
            self.purchase_option,
            self.offering_class,
        )


@dataclass(frozen=True)
class ComponentPrice:
    """One GCP component SKU price (GPU, vCPU, RAM or local SSD) in one region."""

    provider: str
    sku: str
    description: str
    component: str  # "gpu" | "vcpu" | "ram" | "local_ssd"
    region: str
    pricing_model: PricingModel
    price_per_unit: Decimal
    usage_unit: str  # as published: "h", "GiBy.h", "GiBy.mo"
    currency: str
    effective_date: dt.date | None
    source_url: str


@dataclass(frozen=True)
class Rejection:
    """A feed row that looked like an accelerator offer but is not a price we store."""

    provider: str
    sku: str
    reason_code: RejectionReason
    detail: str


@dataclass(frozen=True)
class FeedResult:
    """Everything one adapter run produced; only complete runs return one.

    ``source_version`` is what to store and hand back next time to skip an unchanged feed:
    for ``AwsPriceListFeed.fetch_region`` the region's ``currentVersionUrl``. ``skipped``
    is True (and the rest empty) when that version had not changed. ``components`` holds
    GCP's per-unit component prices (GPU-hour, vCPU-hour, GiB-hour, GiB-month).
    """

    prices: tuple[ParsedPrice, ...]
    rejections: tuple[Rejection, ...]
    source_version: str | None
    skipped: bool = False
    components: tuple[ComponentPrice, ...] = field(default=())

    def unmapped(self) -> tuple[Rejection, ...]:
        """Accelerator SKUs that need an entry in ``instance_map.yaml``."""
        return tuple(r for r in self.rejections if r.reason_code == RejectionReason.UNMAPPED_ACCELERATOR)
