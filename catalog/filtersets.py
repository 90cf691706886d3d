"""Explicit filters of the catalog API (django-filter)."""

from __future__ import annotations

from django.db.models import Exists
from django.db.models import OuterRef
from django.db.models import Q
from django.db.models import QuerySet
from django.utils import timezone
from django_filters import rest_framework as filters

from catalog.choices import AcceleratorKind
from catalog.choices import FacilityKind
from catalog.choices import FormFactor
from catalog.choices import PricingModel
from catalog.choices import Provider
from catalog.choices import SourceKind
from catalog.choices import SystemKind
from catalog.choices import Vendor
from catalog.models import Accelerator
from catalog.models import CloudOffering
from catalog.models import CoolingTechnology
from catalog.models import FacilityProfile
from catalog.models import PowerDensityReference
from catalog.models import PricePoint
from catalog.models import Source
from catalog.models import SystemSku
from catalog.selectors import offerings_with_price_at
from catalog.selectors import visible_rows
from teams.selectors import team_ids_of


class SourceFilterSet(filters.FilterSet):
    """Sources by key and kind."""

    key = filters.CharFilter()
    kind = filters.MultipleChoiceFilter(choices=SourceKind.choices)

    class Meta:
        model = Source
        fields = ["key", "kind"]


class AcceleratorFilterSet(filters.FilterSet):
    """Accelerators by vendor, kind, form factor, family and minimum memory."""

    slug = filters.CharFilter()
    vendor = filters.MultipleChoiceFilter(choices=Vendor.choices)
    kind = filters.ChoiceFilter(choices=AcceleratorKind.choices)
    form_factor = filters.MultipleChoiceFilter(choices=FormFactor.choices)
    family = filters.CharFilter(lookup_expr="iexact")
    memory_gb_min = filters.NumberFilter(
        field_name="memory_gb", lookup_expr="gte", label="Memory at least (GB)"
    )

    class Meta:
        model = Accelerator
        fields = ["slug", "vendor", "kind", "form_factor", "family", "memory_gb_min"]


class SystemSkuFilterSet(filters.FilterSet):
    """Systems by kind, vendor and accelerator."""

    slug = filters.CharFilter()
    kind = filters.MultipleChoiceFilter(choices=SystemKind.choices)
    vendor = filters.CharFilter(lookup_expr="iexact")
    accelerator_id = filters.NumberFilter()
    accelerator = filters.CharFilter(field_name="accelerator__slug", label="Accelerator (slug)")

    class Meta:
        model = SystemSku
        fields = ["slug", "kind", "vendor", "accelerator_id", "accelerator"]


class CloudOfferingFilterSet(filters.FilterSet):
    """Offerings by provider, region, pricing model and accelerator; priced on a date.

    Every offering carries the price in force on ``price_at`` (today when absent); with
    ``price_at`` only offerings priced on or before that date are listed.
    """

    provider = filters.MultipleChoiceFilter(choices=Provider.choices)
    region = filters.CharFilter()
    pricing_model = filters.MultipleChoiceFilter(choices=PricingModel.choices)
    instance_type = filters.CharFilter()
    accelerator_id = filters.NumberFilter()
    accelerator = filters.CharFilter(field_name="accelerator__slug", label="Accelerator (slug)")
    price_at = filters.DateFilter(method="filter_price_at", label="Price in force on (YYYY-MM-DD)")

    class Meta:
        model = CloudOffering
        fields = [
            "provider",
            "region",
            "pricing_model",
            "instance_type",
            "accelerator_id",
            "accelerator",
            "price_at",
        ]

    def filter_price_at(self, queryset: QuerySet, name: str, value) -> QuerySet:
        priced = PricePoint.objects.filter(
            visible_rows(self._team_ids()), offering=OuterRef("pk"), as_of__lte=value
        )
        return queryset.filter(Exists(priced))

    def filter_queryset(self, queryset: QuerySet) -> QuerySet:
        on = self.form.cleaned_data.get("price_at") or timezone.localdate()
        return offerings_with_price_at(super().filter_queryset(queryset), on=on, team_ids=self._team_ids())

    def _team_ids(self) -> list[int]:
        """The requesting user's teams, whose quotes count beside public prices."""
        return team_ids_of(self.request.user) if self.request is not None else []


class PricePointFilterSet(filters.FilterSet):
    """Price history of an offering or a system over a date range."""

    offering_id = filters.NumberFilter()
    system_id = filters.NumberFilter()
    system = filters.CharFilter(field_name="system__slug", label="System (slug)")
    provider = filters.MultipleChoiceFilter(field_name="offering__provider", choices=Provider.choices)
    source = filters.CharFilter(field_name="source__key", label="Source (key)")
    currency = filters.CharFilter()
    as_of = filters.DateFromToRangeFilter(label="As-of date range (as_of_after, as_of_before)")
    team = filters.CharFilter(field_name="team__slug", label="Team (slug) whose quotes to list")
    public = filters.BooleanFilter(field_name="team", lookup_expr="isnull", label="Public prices only")

    class Meta:
        model = PricePoint
        fields = [
            "offering_id",
            "system_id",
            "system",
            "provider",
            "source",
            "currency",
            "as_of",
            "team",
            "public",
        ]


class CoolingTechnologyFilterSet(filters.FilterSet):
    """Cooling tiers that handle a rack power density."""

    kw_per_rack = filters.NumberFilter(method="filter_kw_per_rack", label="Handles this kW per rack")

    class Meta:
        model = CoolingTechnology
        fields = ["kw_per_rack"]

    def filter_kw_per_rack(self, queryset: QuerySet, name: str, value) -> QuerySet:
        above_min = Q(min_kw_per_rack__isnull=True) | Q(min_kw_per_rack__lte=value)
        below_max = Q(max_kw_per_rack__isnull=True) | Q(max_kw_per_rack__gte=value)
        return queryset.filter(above_min & below_max)


class FacilityProfileFilterSet(filters.FilterSet):
    """Facility profiles by kind and rack power."""

    kind = filters.ChoiceFilter(choices=FacilityKind.choices)
    rack_power_limit_kw_min = filters.NumberFilter(field_name="rack_power_limit_kw", lookup_expr="gte")

    class Meta:
        model = FacilityProfile
        fields = ["kind", "rack_power_limit_kw_min"]


class PowerDensityReferenceFilterSet(filters.FilterSet):
    """Power-density rows by source."""

    source = filters.CharFilter(field_name="source__key", label="Source (key)")

    class Meta:
        model = PowerDensityReference
        fields = ["source"]
