"""AWS Price List rules shared by the JSON and CSV offer files: which products and terms are prices.

A region file lists many products per instance type; exactly one of them is the Linux,
shared-tenancy, on-demand box (price-feed-formats.md section 1.3). The others are decoys
and are reported with a reason when they are accelerator products.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from decimal import Decimal
from pathlib import Path

from catalog.pricefeeds.collector import ResultCollector
from catalog.pricefeeds.errors import MalformedPayload
from catalog.pricefeeds.mapping import AcceleratorMatch
from catalog.pricefeeds.mapping import InstanceMap
from catalog.pricefeeds.records import FeedResult
from catalog.pricefeeds.records import ParsedPrice
from catalog.pricefeeds.records import PricingModel
from catalog.pricefeeds.records import RejectionReason

PROVIDER = "aws"
COMPUTE_FAMILIES = frozenset({"Compute Instance", "Compute Instance (bare metal)"})
LEASES = {"1yr": PricingModel.RESERVED_1Y, "3yr": PricingModel.RESERVED_3Y}
PAID_UPFRONT = frozenset({"Partial Upfront", "All Upfront"})


@dataclass(frozen=True)
class AwsProduct:
    """The little we keep of an accelerator product while its terms are still to come."""

    sku: str
    instance_type: str
    region: str
    market_option: str
    accelerator: AcceleratorMatch


@dataclass(frozen=True)
class AwsTerm:
    """One OnDemand or Reserved term with its price dimensions already read."""

    sku: str
    offer_term_code: str
    term_type: str  # "OnDemand" | "Reserved"
    effective_date: dt.date
    lease_contract_length: str  # "1yr" | "3yr" | ""
    purchase_option: str
    offering_class: str
    hourly: Decimal | None  # the "Hrs" dimension [currency / instance-hour]
    upfront: Decimal | None  # the "Quantity" dimension, one-time fee for the term [currency]
    currency: str


@dataclass(frozen=True)
class ProductDecision:
    """What to do with one product: price its terms, reject it, or ignore it."""

    product: AwsProduct | None = None
    reason: RejectionReason | None = None
    detail: str = ""
    region: str = ""  # the product's regionCode ("" for the global free-tier product)

    @classmethod
    def priced(cls, product: AwsProduct) -> ProductDecision:
        """Price the product's terms, in the product's region."""
        return cls(product=product, region=product.region)


IGNORE = ProductDecision()


@dataclass(frozen=True)
class OfferRead:
    """One offer file being read, whichever its format: the region kept (None keeps every
    region), the accelerator map, the prices collected, and where the file came from."""

    path: Path
    region: str | None
    instance_map: InstanceMap
    collector: ResultCollector
    source_url: str
    other_regions: set[str] = field(default_factory=set)

    def kept(self, sku: str, decision: ProductDecision) -> AwsProduct | None:
        """The product to price, or None: rejected (and reported) or of another region."""
        if self.region is not None and decision.region not in (self.region, ""):
            if decision.product is not None:
                self.other_regions.add(decision.region)
            return None
        if decision.reason is not None:
            self.collector.reject(sku, decision.reason, decision.detail)
        return decision.product

    def result(self, *, version: str | None, priced_any: bool) -> FeedResult:
        """The prices found; a file holding only other regions' products is the wrong file."""
        if self.other_regions and not priced_any:
            held = sorted(self.other_regions)
            raise MalformedPayload(
                PROVIDER, str(self.path), f"asked for {self.region}, the file holds {held}"
            )
        return self.collector.result(source_version=version)


def classify_product(
    sku: str,
    product_family: str,
    attributes: Mapping[str, str],
    *,
    instance_map: InstanceMap,
) -> ProductDecision:
    """Decide whether a product's terms are accelerator prices (see module docstring).

    ``attributes`` uses the JSON attribute names (``instanceType``, ``operatingSystem``...).
    Products outside the accelerator families are ignored without a report, except the
    free-tier pseudo-product, which a careless parser would price at $0.
    """
    get = attributes.get
    family = get("instanceFamily", "")
    region = get("regionCode", "")
    if family not in instance_map.aws_accelerator_families:
        if get("group") == "FreeTrial" or "freetrial" in get("usagetype", "").lower():
            return ProductDecision(
                reason=RejectionReason.FREE_TIER,
                detail="free-tier pseudo-product (location Any)",
                region=region,
            )
        return IGNORE
    instance_type = get("instanceType", "")
    usage = get("usagetype", "")
    if not region:
        raise MalformedPayload(PROVIDER, sku, f"{instance_type} product has no regionCode")

    def reject(reason: RejectionReason, detail: str) -> ProductDecision:
        return ProductDecision(reason=reason, detail=f"{instance_type}: {detail}", region=region)

    if product_family not in COMPUTE_FAMILIES:
        reason = (
            RejectionReason.DEDICATED_TENANCY
            if product_family == "Dedicated Host"
            else RejectionReason.OTHER_OFFER
        )
        return reject(reason, f"productFamily {product_family!r}")
    if get("tenancy") != "Shared":
        return reject(RejectionReason.DEDICATED_TENANCY, f"tenancy {get('tenancy')!r}")
    if get("capacitystatus") != "Used":
        return reject(
            RejectionReason.CAPACITY_RESERVATION,
            f"capacitystatus {get('capacitystatus')!r} ({usage})",
        )
    if get("licenseModel") == "Bring your own license":
        return reject(RejectionReason.BYOL, f"{get('operatingSystem')} BYOL")
    if (
        get("operatingSystem") != "Linux"
        or get("preInstalledSw") != "NA"
        or get("licenseModel") != "No License required"
    ):
        return reject(
            RejectionReason.LICENSED_OS,
            f"{get('operatingSystem')}, pre-installed {get('preInstalledSw')!r}, {get('licenseModel')!r}",
        )
    market_option = get("marketoption", "")
    if market_option not in ("OnDemand", "CapacityBlock") or "BoxUsage" not in usage:
        return reject(RejectionReason.OTHER_OFFER, f"marketoption {market_option!r} {usage}")
    match = instance_map.lookup(PROVIDER, instance_type)
    if match is None:
        return reject(
            RejectionReason.UNMAPPED_ACCELERATOR,
            f"{family}, gpu {get('gpu')!r}, gpuMemory {get('gpuMemory')!r}",
        )
    published_count = get("gpu", "")
    if published_count.isdigit() and int(published_count) != match.accelerators_per_instance:
        return reject(
            RejectionReason.MAPPING_MISMATCH,
            f"feed says gpu {published_count}, instance_map.yaml says {match.accelerators_per_instance}",
        )
    return ProductDecision.priced(
        AwsProduct(
            sku=sku,
            instance_type=instance_type,
            region=region,
            market_option=market_option,
            accelerator=match,
        )
    )


def add_term_price(
    product: AwsProduct,
    term: AwsTerm,
    *,
    collector: ResultCollector,
    source_url: str,
    source_version: str | None,
) -> None:
    """Turn one term of an accelerator product into a price or a rejection."""
    record = f"{term.sku}.{term.offer_term_code}"
    if term.hourly is None:
        raise MalformedPayload(PROVIDER, record, "term has no hourly (Hrs) price dimension")
    upfront_fee = None
    purchase_option = offering_class = ""
    if term.term_type == "OnDemand":
        pricing_model = PricingModel.ON_DEMAND
        if product.market_option == "CapacityBlock":
            if term.hourly == 0:
                collector.reject(
                    term.sku,
                    RejectionReason.CAPACITY_BLOCK_ZERO_PRICE,
                    f"{product.instance_type}: Capacity Block row at $0; the block is billed "
                    "upfront outside the price list",
                )
                return
            pricing_model = PricingModel.CAPACITY_BLOCK
    elif term.term_type == "Reserved":
        if product.market_option != "OnDemand":
            collector.reject(
                term.sku, RejectionReason.OTHER_OFFER, f"reserved term on {product.market_option}"
            )
            return
        pricing_model = _lease_model(term, record)
        purchase_option = term.purchase_option
        offering_class = term.offering_class
        if purchase_option in PAID_UPFRONT:
            if term.upfront is None:
                raise MalformedPayload(
                    PROVIDER, record, f"{purchase_option} term has no upfront fee dimension"
                )
            upfront_fee = term.upfront
    else:
        raise MalformedPayload(PROVIDER, record, f"unknown term type {term.term_type!r}")
    collector.add(
        ParsedPrice.hourly(
            PROVIDER, product.accelerator, sku=record, instance_type=product.instance_type,
            region=product.region, pricing_model=pricing_model, price=term.hourly, currency=term.currency,
            effective_date=term.effective_date, source_url=source_url, upfront_fee=upfront_fee,
            purchase_option=purchase_option, offering_class=offering_class, source_version=source_version,
        )
    )


def _lease_model(term: AwsTerm, record: str) -> PricingModel:
    try:
        return LEASES[term.lease_contract_length]
    except KeyError as exc:
        raise MalformedPayload(
            PROVIDER, record, f"LeaseContractLength {term.lease_contract_length!r} is not 1yr/3yr"
        ) from exc
