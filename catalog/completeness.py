"""Whether a catalog row can be costed in a scenario, and if not, what is missing.

A system is costed from its purchase price, its maximum power (idle defaults to it) and its
rack units; an offering from a public price. Pickers list complete rows first, named as the
models name them (``SystemSku.label``, ``str(CloudOffering)``).
"""

from __future__ import annotations

from django.db.models import BooleanField
from django.db.models import Case
from django.db.models import Exists
from django.db.models import ExpressionWrapper
from django.db.models import OuterRef
from django.db.models import Q
from django.db.models import QuerySet
from django.db.models import Value
from django.db.models import When

from catalog.models import AcceleratorThroughput
from catalog.models import CloudOffering
from catalog.models import PricePoint
from catalog.models import SystemSku


def _public_price(target_field: str) -> Exists:
    return Exists(PricePoint.objects.filter(team__isnull=True, **{target_field: OuterRef("pk")}))


def systems_with_completeness(systems: QuerySet[SystemSku] | None = None) -> QuerySet[SystemSku]:
    """Systems annotated with ``is_complete`` (costable in a scenario), complete ones first."""
    systems = SystemSku.objects.all() if systems is None else systems
    priced = Q(purchase_price_low_usd__isnull=False) | Q(has_public_price=True)
    return (
        systems.annotate(has_public_price=_public_price("system"))
        .annotate(
            is_complete=Case(
                When(priced & Q(power_max_kw__isnull=False, rack_units__isnull=False), then=Value(True)),
                default=Value(False),
                output_field=BooleanField(),
            )
        )
        .select_related("accelerator")
        .order_by("-is_complete", "name")
    )


#: Precisions at which a dense throughput lets the catalog suggest an equivalence factor between
#: an offering's accelerator and a system's (the workloads' usual training precisions).
COMPARABLE_PRECISIONS = ("FP16", "BF16")


def _comparable() -> Q:
    """A system holds the offering's accelerator, or its dense throughput can be compared."""
    held = systems_with_completeness().filter(is_complete=True, accelerator=OuterRef("accelerator"))
    rated = AcceleratorThroughput.objects.filter(
        accelerator=OuterRef("accelerator"), is_preferred=True, precision__in=COMPARABLE_PRECISIONS)
    return Q(Exists(held)) | Q(Exists(rated))


def offerings_with_completeness(offerings: QuerySet[CloudOffering] | None = None) -> QuerySet[CloudOffering]:
    """Offerings annotated with ``is_complete`` (a public price, and a system to compare with like
    for like: one holding its accelerator, or a dense FP16/BF16 throughput for a factor),
    complete ones first."""
    offerings = CloudOffering.objects.all() if offerings is None else offerings
    return (
        offerings.annotate(has_public_price=_public_price("offering"),
                           is_comparable=ExpressionWrapper(_comparable(), output_field=BooleanField()))
        .annotate(is_complete=ExpressionWrapper(Q(has_public_price=True, is_comparable=True),
                                                output_field=BooleanField()))
        .select_related("accelerator")
        .order_by("-is_complete", "provider", "instance_type", "region", "pricing_model")
    )


def system_missing(system: SystemSku) -> list[str]:
    """What a scenario would need and the catalog lacks for this system, in words; [] = complete."""
    missing = []
    priced = getattr(system, "has_public_price", None)  # annotated by systems_with_completeness
    if priced is None:
        priced = system.prices.filter(team__isnull=True).exists()
    if system.purchase_price_low_usd is None and not priced:
        missing.append("a purchase price")
    if system.power_max_kw is None:
        missing.append("maximum power (kW)")
    if system.rack_units is None:
        missing.append(
            "rack units (a component: cost the server that holds it)"
            if system.kind in ("accelerator", "baseboard")
            else "rack units"
        )
    return missing


def offering_missing(offering: CloudOffering) -> list[str]:
    """What a rent option on this offering would lack; [] = complete."""
    if not hasattr(offering, "is_complete"):  # annotated by offerings_with_completeness
        offering = offerings_with_completeness(CloudOffering.objects.filter(pk=offering.pk)).get()
    missing = [] if offering.has_public_price else ["a price"]
    if not offering.is_comparable:
        missing.append(f"a like-for-like comparison: no system in the catalog holds "
                       f"{offering.accelerator.short_name} and it has no dense FP16 or BF16 "
                       "throughput, so a rent option on it needs an equivalence factor stated")
    return missing
