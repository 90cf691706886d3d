"""Compare a feed's prices with the last ones stored from that feed and write only what changed.

Runs inside the refresh's transaction: every query here is a bulk one (offerings, latest
prices, new rows, checks), so a refresh costs a handful of queries whatever its size.
A price point is new when the offering had no price from this feed, changed when it differs
from the feed's last price of the offering, and otherwise nothing is written: the existing
point's PriceCheck moves to now, so its age restarts.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from decimal import ROUND_HALF_EVEN
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db.models import Q
from simple_history.utils import bulk_create_with_history

from catalog.models import Accelerator
from catalog.models import CloudOffering
from catalog.models import PriceCheck
from catalog.models import PricePoint
from catalog.models import PriceRefreshJob
from catalog.models import Source
from catalog.pricefeeds import ParsedPrice
from catalog.pricefeeds.sources import is_url
from catalog.refresh.feeds import Progress
from catalog.refresh.feeds import no_progress
from catalog.refresh.terms import OfferingKey
from catalog.selectors import PRICE_RECENCY

AMOUNT_QUANTUM = Decimal(1).scaleb(-PricePoint._meta.get_field("amount").decimal_places)


class WriteRejection:
    """Reason codes of prices the writer refuses (the feed's own rejections have theirs)."""

    UNKNOWN_ACCELERATOR = "unknown_accelerator"
    OFFERING_CONFLICT = "offering_conflict"
    PRICE_CONFLICT = "price_conflict"


@dataclass
class WriteOutcome:
    """What one refresh wrote."""

    new: int = 0
    changed: int = 0
    unchanged: int = 0
    offerings_new: int = 0
    rejections: list[dict[str, str]] = field(default_factory=list)
    written: list[PricePoint] = field(default_factory=list)


@dataclass(frozen=True)
class _Latest:
    """The last stored price of an offering from this feed."""

    id: int
    amount: Decimal
    currency: str


def stored_amount(price: ParsedPrice) -> Decimal:
    """The feed's price at the precision PricePoint.amount keeps [currency / instance-hour]."""
    return price.price_per_instance_hour.quantize(AMOUNT_QUANTUM, rounding=ROUND_HALF_EVEN)


def prices_write(
    *,
    job: PriceRefreshJob,
    source: Source,
    prices: Mapping[OfferingKey, ParsedPrice],
    observed_on: dt.date,
    retrieved_at: dt.datetime,
    progress: Progress = no_progress,
) -> WriteOutcome:
    """Write the new and changed prices of one refresh; call inside its transaction.

    Parameters
    ----------
    job : PriceRefreshJob
        The run; it is recorded on the checks and lists the points it wrote.
    source : Source
        The provider feed's Source.
    prices : mapping
        One feed price per catalog offering (see ``terms.preferred_prices``).
    observed_on : date
        As-of date of prices whose feed states no effective date.
    retrieved_at : datetime
        When the feed was read.
    """
    outcome = WriteOutcome()
    offerings = _offerings(prices, outcome)
    history = list(
        PricePoint.objects.filter(
            source=source, offering__in=[o.pk for o in offerings.values()], team__isnull=True
        )
        .order_by(*PRICE_RECENCY)
        .values("id", "offering_id", "amount", "currency", "as_of")
    )
    latest: dict[int, _Latest] = {}
    for row in history:
        latest.setdefault(row["offering_id"], _Latest(row["id"], row["amount"], row["currency"]))
    stored_keys = {(row["offering_id"], row["as_of"], row["amount"]) for row in history}
    confirmed: list[int] = []
    new_points: list[PricePoint] = []
    pairs = [(prices[key], offering) for key, offering in offerings.items()]
    for price, offering in progress(pairs, desc="compare prices", total=len(pairs)):
        amount = stored_amount(price)
        last = latest.get(offering.pk)
        if last is not None and (last.amount, last.currency) == (amount, price.currency):
            confirmed.append(last.id)
            outcome.unchanged += 1
            continue
        as_of = price.effective_date or observed_on
        if (offering.pk, as_of, amount) in stored_keys:
            # The feed went back to an earlier price without a new effective date: the earlier
            # row exists, so the return is recorded as of the day it was seen.
            as_of = observed_on
        if (offering.pk, as_of, amount) in stored_keys:
            _reject(
                outcome, price, WriteRejection.PRICE_CONFLICT, f"{amount} as of {as_of} is already stored"
            )
            continue
        new_points.append(_price_point(price, offering, source, amount, as_of, observed_on, retrieved_at))
        if last is None:
            outcome.new += 1
        else:
            outcome.changed += 1
    # With history rows, as every other price write has (who: no one; why: this job).
    outcome.written = bulk_create_with_history(
        new_points, PricePoint, default_change_reason=f"price refresh job {job.pk}"
    )
    job.written_prices.add(*outcome.written)
    prices_check(
        job=job, price_point_ids=confirmed + [p.pk for p in outcome.written], checked_at=retrieved_at
    )
    return outcome


def prices_check(*, job: PriceRefreshJob, price_point_ids: Iterable[int], checked_at: dt.datetime) -> None:
    """Record that ``job`` found these price points current at ``checked_at``."""
    PriceCheck.objects.bulk_create(
        [PriceCheck(price_point_id=pk, checked_at=checked_at, job=job) for pk in price_point_ids],
        update_conflicts=True,
        unique_fields=["price_point"],
        update_fields=["checked_at", "job"],
    )


def unchanged_regions_check(
    *,
    job: PriceRefreshJob,
    previous_job: PriceRefreshJob,
    regions: Iterable[str],
    checked_at: dt.datetime,
) -> int:
    """Carry the checks of regions whose feed version is unchanged over to ``job``; how many.

    Exactly the points ``previous_job`` found current in those regions are current still: the
    feed version they came from has not changed.
    """
    regions = list(regions)
    in_regions = Q(price_point__offering__region__in=regions)
    if settings.PRICE_REFRESH_CATALOG_REGIONS.get(previous_job.provider) in regions:
        # The catalog's own offerings hold that region's prices (see _offerings).
        in_regions |= Q(price_point__offering__region=CloudOffering.UNSPECIFIED_REGION)
    ids = list(
        PriceCheck.objects.filter(in_regions, job=previous_job).values_list("price_point_id", flat=True)
    )
    PriceCheck.objects.filter(price_point_id__in=ids).update(checked_at=checked_at, job=job)
    return len(ids)


def _offerings(
    prices: Mapping[OfferingKey, ParsedPrice], outcome: WriteOutcome
) -> dict[OfferingKey, CloudOffering]:
    """The catalog offering of every price, creating missing ones; conflicting prices are rejected."""
    providers = {key[0] for key in prices}
    # A feed prices the public catalog; an offering a team's quote introduced is the team's alone.
    public = CloudOffering.objects.filter(provider__in=providers, team__isnull=True)
    existing = {offering_key_of(o): o for o in public}
    # The catalog's own offering of an instance type (from the seeds, no region) takes the
    # price of the provider's catalog region, instead of the feed adding a twin beside it.
    catalog_regions = settings.PRICE_REFRESH_CATALOG_REGIONS
    own = {(o.provider, o.instance_type, o.pricing_model): o for o in public
           if o.region == CloudOffering.UNSPECIFIED_REGION}
    accelerators = {
        a.slug: a for a in Accelerator.objects.filter(slug__in={p.accelerator_slug for p in prices.values()})
    }
    found: dict[OfferingKey, CloudOffering] = {}
    created: list[CloudOffering] = []
    for key, price in prices.items():
        accelerator = accelerators.get(price.accelerator_slug)
        if accelerator is None:
            _reject(
                outcome,
                price,
                WriteRejection.UNKNOWN_ACCELERATOR,
                f"accelerator {price.accelerator_slug!r} is not in the catalog",
            )
            continue
        offering = existing.get(key)
        if catalog_regions.get(price.provider) == price.region:
            offering = own.get((price.provider, price.instance_type, str(price.pricing_model)), offering)
        if offering is None:
            offering = CloudOffering(
                provider=price.provider,
                instance_type=price.instance_type,
                region=price.region,
                pricing_model=str(price.pricing_model),
                accelerator=accelerator,
                accelerators_per_instance=price.accelerators_per_instance,
            )
            offering.full_clean(exclude=["accelerator"], validate_unique=False, validate_constraints=False)
            created.append(offering)
        elif (offering.accelerator_id, offering.accelerators_per_instance) != (
            accelerator.pk,
            price.accelerators_per_instance,
        ):
            _reject(
                outcome,
                price,
                WriteRejection.OFFERING_CONFLICT,
                f"the catalog has {offering} with {offering.accelerators_per_instance} x accelerator "
                f"{offering.accelerator_id}; the feed says {price.accelerators_per_instance} x "
                f"{price.accelerator_slug}",
            )
            continue
        found[key] = offering
    CloudOffering.objects.bulk_create(created)
    outcome.offerings_new = len(created)
    return found


def offering_key_of(offering: CloudOffering) -> OfferingKey:
    """The key a feed price of this offering has."""
    return (offering.provider, offering.instance_type, offering.region, offering.pricing_model)


def _price_point(
    price: ParsedPrice,
    offering: CloudOffering,
    source: Source,
    amount: Decimal,
    as_of: dt.date,
    observed_on: dt.date,
    retrieved_at: dt.datetime,
) -> PricePoint:
    point = PricePoint(
        offering=offering,
        amount=amount,
        currency=price.currency,
        as_of=as_of,
        source=source,
        source_url=price.source_url if is_url(price.source_url) else "",
        retrieved_at=retrieved_at,
        note=price_note(price, amount, as_of=as_of, observed_on=observed_on,
                        offering_region=offering.region),
    )
    point.full_clean(
        exclude=["offering", "system", "source"], validate_unique=False, validate_constraints=False
    )
    return point


def price_note(price: ParsedPrice, amount: Decimal, *, as_of: dt.date, observed_on: dt.date,
               offering_region: str | None = None) -> str:
    """Where a feed price came from, in words: sku, terms, rounding, version, read from where."""
    parts = [f"{price.provider} feed sku {price.sku}"]
    if offering_region not in (None, price.region):
        parts.append(f"the {price.region} price (the provider's catalog region)")
    terms = " ".join(part for part in (price.purchase_option, price.offering_class) if part)
    if terms:
        parts.append(terms)
    if price.upfront_fee:
        parts.append(
            f"{price.recurring_price_per_instance_hour} {price.currency}/h + upfront {price.upfront_fee} "
            "spread over the term"
        )
    if amount != price.price_per_instance_hour:
        parts.append(f"feed figure {price.price_per_instance_hour} rounded")
    if price.accelerators_per_instance > 1:
        parts.append(f"{price.accelerators_per_instance} x {price.accelerator_slug}")
    if price.effective_date is None:
        parts.append(f"no effective date in the feed: as of the day read ({observed_on})")
    elif as_of != price.effective_date:
        parts.append(f"feed effective date {price.effective_date}; as of the day it was seen again")
    if price.source_version:
        parts.append(f"offer version {price.source_version}")
    if not is_url(price.source_url):
        parts.append(f"read from {price.source_url}")
    return "; ".join(parts)


def _reject(outcome: WriteOutcome, price: ParsedPrice, reason: str, detail: str) -> None:
    outcome.rejections.append(
        rejection_row(price.sku, reason, f"{price.instance_type} {price.region}: {detail}")
    )


def rejection_row(sku: str, reason: Any, detail: str) -> dict[str, str]:
    """A rejected feed row as the job stores it."""
    return {"sku": sku, "reason": str(reason), "detail": detail}
