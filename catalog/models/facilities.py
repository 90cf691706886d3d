"""Where hardware runs: cooling technologies, facility profiles and power density references."""
from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from catalog.choices import CoolingMedium
from catalog.choices import FacilityKind
from catalog.choices import Rating
from catalog.models.fields import _figure
from catalog.models.fields import _positive
from catalog.models.sources import CatalogEntry
from catalog.models.sources import Source
from catalog.validators import validate_not_negative
from catalog.validators import validate_positive
from core.currency import Currency


class CoolingTechnology(CatalogEntry):
    """A cooling tier: the rack power density it handles and what it costs per kW."""

    FIGURE_FIELDS = (
        "min_kw_per_rack",
        "max_kw_per_rack",
        "capex_rating",
        "opex_rating",
        "complexity",
        "relative_capex_per_kw",
        "relative_opex_per_kw",
        "capex_usd_per_kw",
        "opex_usd_per_kw_month",
        "medium",
    )

    min_kw_per_rack = models.DecimalField(
        max_digits=7, decimal_places=1, null=True, blank=True, validators=[validate_not_negative],
        verbose_name="from (kW per rack)",
    )
    max_kw_per_rack = _figure(7, 1, verbose_name="to (kW per rack)",
                              help_text="Empty when the tier has no upper bound.")
    capex_rating = models.CharField(max_length=16, choices=Rating.choices)
    opex_rating = models.CharField(max_length=16, choices=Rating.choices)
    complexity = models.CharField(max_length=16, choices=Rating.choices)
    relative_capex_per_kw = _figure(6, 2, null=False, verbose_name="relative capex per kW",
                                    help_text="Air (CRAC/CRAH) = 1.0.")
    relative_opex_per_kw = _figure(6, 2, null=False, verbose_name="relative opex per kW",
                                   help_text="Air (CRAC/CRAH) = 1.0.")
    capex_usd_per_kw = _figure(10, 2, null=False, verbose_name="capex (USD per kW)")
    opex_usd_per_kw_month = _figure(10, 2, null=False, verbose_name="opex (USD per kW-month)")
    medium = models.CharField(
        max_length=8, choices=CoolingMedium.choices, blank=True,
        help_text="Air-cooled systems (room air, in-row, rear-door heat exchangers) or "
                  "liquid-cooled ones (cold plates, immersion); empty when no source says (any system).")

    class Meta:
        ordering = ["min_kw_per_rack", "slug"]
        verbose_name_plural = "cooling technologies"
        constraints = [
            models.CheckConstraint(
                condition=Q(min_kw_per_rack__isnull=True) | Q(min_kw_per_rack__gte=0),
                name="catalog_cooling_min_not_negative",
            ),
            _positive("max_kw_per_rack"),
            models.CheckConstraint(
                condition=Q(min_kw_per_rack__isnull=True)
                | Q(max_kw_per_rack__isnull=True)
                | Q(max_kw_per_rack__gt=models.F("min_kw_per_rack")),
                name="catalog_cooling_range_ordered",
            ),
            _positive("relative_capex_per_kw"),
            _positive("relative_opex_per_kw"),
            _positive("capex_usd_per_kw"),
            _positive("opex_usd_per_kw_month"),
            models.CheckConstraint(condition=Q(medium__in=["", *CoolingMedium.values]),
                                   name="catalog_cooling_medium_known"),
        ]

    def clean(self) -> None:
        low, high = self.min_kw_per_rack, self.max_kw_per_rack
        if low is not None and high is not None and high <= low:
            raise ValidationError({"max_kw_per_rack": "must be above min_kw_per_rack"})
        super().clean()


class FacilityProfile(CatalogEntry):
    """Where systems run: electricity price, PUE, space cost and rack limits."""

    FIGURE_FIELDS = (
        "electricity_usd_per_kwh",
        "pue",
        "colocation_usd_per_kw_month",
        "buildout_capex_usd_per_kw",
        "buildout_opex_usd_per_kw_month",
        "rack_power_limit_kw",
        "rack_units_per_rack",
        "max_cooling",
    )

    kind = models.CharField(max_length=16, choices=FacilityKind.choices)
    currency = models.CharField(max_length=3, choices=Currency.choices, default=Currency.USD,
                                help_text="Currency of the profile's money figures (ISO 4217).")
    electricity_usd_per_kwh = _figure(8, 4, null=False, verbose_name="electricity (USD per kWh)")
    pue = models.DecimalField(max_digits=4, decimal_places=2, verbose_name="PUE",
                              help_text="Power usage effectiveness (>= 1).")
    colocation_usd_per_kw_month = _figure(10, 2, verbose_name="colocation (USD per kW-month)",
                                          help_text="Per contracted kW; colocation only.")
    buildout_capex_usd_per_kw = _figure(10, 2, verbose_name="build-out (USD per kW)",
                                        help_text="Owned space: build-out per IT kW.")
    buildout_opex_usd_per_kw_month = _figure(10, 2, verbose_name="space running cost (USD per kW-month)",
                                             help_text="Owned space: running cost per IT kW.")
    rack_power_limit_kw = _figure(7, 1, null=False, verbose_name="rack power limit (kW)")
    rack_units_per_rack = models.PositiveSmallIntegerField(validators=[validate_positive],
                                                           verbose_name="rack units per rack (U)")
    max_cooling = models.ForeignKey(
        CoolingTechnology,
        on_delete=models.PROTECT,
        related_name="facility_profiles",
        help_text="Densest cooling technology the facility offers.",
    )

    class Meta:
        ordering = ["slug"]
        constraints = [
            _positive("electricity_usd_per_kwh"),
            models.CheckConstraint(condition=Q(pue__gte=1), name="catalog_facility_pue_at_least_one"),
            _positive("colocation_usd_per_kw_month"),
            _positive("buildout_capex_usd_per_kw"),
            _positive("buildout_opex_usd_per_kw_month"),
            _positive("rack_power_limit_kw"),
            models.CheckConstraint(
                condition=Q(rack_units_per_rack__gt=0), name="catalog_facility_rack_units_positive"
            ),
            models.CheckConstraint(
                condition=Q(kind=FacilityKind.OWNED)
                | Q(kind=FacilityKind.COLOCATION, colocation_usd_per_kw_month__isnull=False),
                name="catalog_facility_colocation_has_price",
            ),
            models.CheckConstraint(
                condition=Q(kind=FacilityKind.COLOCATION)
                | Q(kind=FacilityKind.OWNED, buildout_capex_usd_per_kw__isnull=False),
                name="catalog_facility_owned_has_buildout",
            ),
        ]

    def clean(self) -> None:
        errors: dict[str, str] = {}
        if self.pue is not None and self.pue < 1:
            errors["pue"] = "must be at least 1"
        if self.kind == FacilityKind.COLOCATION and self.colocation_usd_per_kw_month is None:
            errors["colocation_usd_per_kw_month"] = "a colocation profile needs its price per kW-month"
        if self.kind == FacilityKind.OWNED and self.buildout_capex_usd_per_kw is None:
            errors["buildout_capex_usd_per_kw"] = "an owned profile needs its build-out cost per kW"
        if errors:
            raise ValidationError(errors)
        super().clean()


class PowerDensityReference(models.Model):
    """A row of the seeds' power-density tables: a configuration and the rack power it needs."""

    configuration = models.CharField(max_length=128)
    power_kw = _figure(8, 1, help_text="Power of the configuration as described (per node or in total).")
    racks = models.PositiveSmallIntegerField(null=True, blank=True, validators=[validate_positive])
    kw_per_rack_low = _figure(7, 1)
    kw_per_rack_high = _figure(7, 1)
    cooling_note = models.CharField(max_length=200, blank=True)
    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="power_densities")
    note = models.TextField(blank=True)

    #: The columns of the seeds' table, as the admin list and the API show them.
    TABLE_COLUMNS = (
        "configuration", "power_kw", "racks", "kw_per_rack_low", "kw_per_rack_high", "cooling_note", "source",
    )

    class Meta:
        ordering = ["source", "power_kw"]
        verbose_name = "power density reference"
        constraints = [
            models.UniqueConstraint(fields=["configuration", "source"], name="catalog_power_density_unique"),
            _positive("power_kw"),
            _positive("racks"),
            _positive("kw_per_rack_low"),
            models.CheckConstraint(
                condition=Q(kw_per_rack_high__isnull=True)
                | Q(kw_per_rack_high__gte=models.F("kw_per_rack_low")),
                name="catalog_power_density_range_ordered",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.configuration} ({self.source})"

    def clean(self) -> None:
        low, high = self.kw_per_rack_low, self.kw_per_rack_high
        if high is not None and (low is None or high < low):
            raise ValidationError({"kw_per_rack_high": "must not be below kw_per_rack_low"})
        super().clean()
