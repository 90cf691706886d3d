"""What AI compute costs: accelerators, systems, cloud offerings and facilities, each figure traceable
to the document it came from.

Invariants live in the database (CheckConstraint / UniqueConstraint) and, for readable field-named
errors in forms and the API, in each model's validators and ``clean()``.
"""

from __future__ import annotations

import re

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from simple_history.models import HistoricalRecords

from catalog.choices import PRICING_WORDS
from catalog.choices import AcceleratorKind
from catalog.choices import CoolingMedium
from catalog.choices import Currency
from catalog.choices import FacilityKind
from catalog.choices import FormFactor
from catalog.choices import Precision
from catalog.choices import PricingModel
from catalog.choices import Provider
from catalog.choices import QuoteImportStatus
from catalog.choices import Rating
from catalog.choices import SourceKind
from catalog.choices import SystemCooling
from catalog.choices import SystemKind
from catalog.choices import Vendor
from catalog.validators import validate_not_negative
from catalog.validators import validate_positive
from core.jobs import RecoverableJob
from core.revisions import RevisedModel


def _figure(max_digits: int = 10, decimal_places: int = 2, **kwargs) -> models.DecimalField:
    """A positive decimal figure; null when no source gives it."""
    kwargs.setdefault("null", True)
    kwargs.setdefault("blank", kwargs["null"])
    return models.DecimalField(
        max_digits=max_digits,
        decimal_places=decimal_places,
        validators=[validate_positive],
        **kwargs,
    )


def _positive(field: str) -> models.CheckConstraint:
    return models.CheckConstraint(
        condition=Q(**{f"{field}__isnull": True}) | Q(**{f"{field}__gt": 0}),
        name="%(app_label)s_%(class)s_" + f"{field}_positive",
    )


def _known(field: str, choices: type[models.Choices], name: str) -> models.CheckConstraint:
    """The column holds one of ``choices``, whatever writes the row."""
    return models.CheckConstraint(condition=Q(**{f"{field}__in": choices.values}), name=name)


def _owning_team(related_name: str, help_text: str) -> models.ForeignKey:
    """The team a confidential row belongs to, seen by its members only; null on a public row."""
    return models.ForeignKey(
        "teams.Team",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name=related_name,
        help_text=help_text,
    )


class Source(models.Model):
    """A document a catalog figure comes from: a seed document, price list, API, quote or assumption."""

    key = models.CharField(
        max_length=500,
        help_text="Short key (seed-002) or the URL of the document; unique among public sources "
        "and within a team.",
    )
    title = models.CharField(max_length=300)
    kind = models.CharField(max_length=32, choices=SourceKind.choices)
    url = models.URLField(max_length=500, blank=True)
    document = models.CharField(
        max_length=300, blank=True, help_text="Path of the document beside the project (../shared)."
    )
    published_on = models.DateField(
        null=True,
        blank=True,
        help_text="Date the document's figures apply to; the default as-of date of its prices.",
    )
    date_basis = models.TextField(
        blank=True, help_text="Where published_on comes from: stated in the document or assumed, and why."
    )
    retrieved_on = models.DateField(null=True, blank=True)
    note = models.TextField(blank=True)
    team = _owning_team(
        "sources", "The team whose confidential quote this is, seen by its members only; empty = public."
    )

    class Meta:
        ordering = ["key"]
        constraints = [
            _known("kind", SourceKind, "catalog_source_kind_known"),
            # A team's quote may name its source as it likes without learning another team's names.
            models.UniqueConstraint(
                fields=["key"], condition=Q(team__isnull=True), name="catalog_source_public_key",
                violation_error_code="unique",  # reported on the key field
                violation_error_message="A public source with this key already exists.",
            ),
            models.UniqueConstraint(
                fields=["team", "key"], condition=Q(team__isnull=False), name="catalog_source_team_key",
                violation_error_message="The team already has a source with this key.",
            ),
        ]

    def __str__(self) -> str:
        return self.key


class ProvenancedModel(models.Model):
    """Abstract base: every figure column names the sources it came from in ``field_sources``."""

    #: Columns holding figures that must each name at least one source.
    FIGURE_FIELDS: tuple[str, ...] = ()

    field_sources = models.JSONField(
        default=dict,
        blank=True,
        help_text='Source keys per figure, e.g. {"tdp_w": ["seed-002", "seed-003"]}.',
    )
    notes = models.TextField(blank=True, help_text="Disagreements between sources, assumptions.")

    class Meta:
        abstract = True

    def clean(self) -> None:
        super().clean()
        self._clean_field_sources()

    def _clean_field_sources(self) -> None:
        if not isinstance(self.field_sources, dict):
            raise ValidationError({"field_sources": "must map figure names to lists of source keys"})
        errors: list[str] = []
        unknown_fields = sorted(set(self.field_sources) - set(self.FIGURE_FIELDS))
        if unknown_fields:
            errors.append(f"not figures of this model: {', '.join(unknown_fields)}")
        for name, keys in self.field_sources.items():
            if not isinstance(keys, list) or not keys or not all(isinstance(k, str) for k in keys):
                errors.append(f"{name}: needs a non-empty list of source keys")
        unsourced = [
            name
            for name in self.FIGURE_FIELDS
            if getattr(self, self._meta.get_field(name).attname) not in (None, "")
            and name not in self.field_sources
        ]
        if unsourced:
            errors.append(f"figures without a source: {', '.join(unsourced)}")
        if not errors:
            wanted = {key for keys in self.field_sources.values() for key in keys}
            # Catalog figures are public, so they cite public sources only.
            public = Source.objects.filter(key__in=wanted, team__isnull=True)
            known = set(public.values_list("key", flat=True))
            if wanted - known:
                errors.append(f"unknown source keys: {', '.join(sorted(wanted - known))}")
        if errors:
            raise ValidationError({"field_sources": errors})


class CatalogEntry(ProvenancedModel):
    """Abstract base: a system, cooling technology or facility, picked by its slug. (An
    accelerator names itself in its own columns: its slug has a format and its name follows
    vendor and family.)"""

    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=128)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return self.slug


# Words of an accelerator's name that people leave out when they say which one they mean.
_NAME_NOISE = re.compile(r"\b(GeForce|Tesla|Instinct|Generation)\s+|\s*\(per GPU\)|\s+Blackwell GPU\b")
_MEMORY = re.compile(r"\d\s?(GB|TB)\b")


class Accelerator(ProvenancedModel):
    """A GPU or AI ASIC model with its memory, power and interconnect figures."""

    FIGURE_FIELDS = (
        "architecture",
        "year",
        "memory_gb",
        "memory_type",
        "memory_bandwidth_gb_per_s",
        "tdp_w",
        "interconnect",
        "interconnect_bandwidth_gb_per_s",
        "form_factor",
    )

    slug = models.SlugField(max_length=64, unique=True, help_text="<model>-<form factor>-<memory>gb")
    vendor = models.CharField(max_length=16, choices=Vendor.choices)
    family = models.CharField(max_length=64, help_text="Product family, e.g. H100, Instinct MI300.")
    name = models.CharField(max_length=128)
    kind = models.CharField(max_length=8, choices=AcceleratorKind.choices)
    architecture = models.CharField(max_length=64, blank=True)
    year = models.PositiveSmallIntegerField(null=True, blank=True)
    memory_gb = _figure(7, 1, verbose_name="memory (GB)")
    memory_type = models.CharField(max_length=32, blank=True)
    memory_bandwidth_gb_per_s = _figure(8, 1, verbose_name="memory bandwidth (GB/s)")
    tdp_w = models.PositiveIntegerField(null=True, blank=True, validators=[validate_positive],
                                        verbose_name="TDP (W)")
    interconnect = models.CharField(max_length=64, blank=True)
    interconnect_bandwidth_gb_per_s = _figure(8, 1, verbose_name="interconnect bandwidth (GB/s)")
    form_factor = models.CharField(max_length=16, choices=FormFactor.choices, blank=True)

    class Meta:
        ordering = ["vendor", "family", "slug"]
        constraints = [
            _positive("memory_gb"),
            _positive("memory_bandwidth_gb_per_s"),
            _positive("tdp_w"),
            _positive("interconnect_bandwidth_gb_per_s"),
            _known("vendor", Vendor, "catalog_accelerator_vendor_known"),
            _known("kind", AcceleratorKind, "catalog_accelerator_kind_known"),
        ]

    def __str__(self) -> str:
        return self.slug

    @property
    def short_name(self) -> str:
        """Model, package and memory, as people name it: 'H100 SXM5 80 GB', 'MI300X 192 GB',
        'RTX 4090 24 GB' (no vendor, no marketing words)."""
        name = self.name.removeprefix(f"{self.get_vendor_display()} ")
        name = re.sub(r"(\d)(GB|TB)\b", r"\1 \2", " ".join(_NAME_NOISE.sub(" ", name).split()))
        if self.memory_gb is not None and not _MEMORY.search(name):
            name += f" {self.memory_gb.normalize():f} GB"
        return name


class AcceleratorThroughput(models.Model):
    """Peak throughput of an accelerator at one precision, as one source quotes it.

    Sources disagree (dense vs with-sparsity figures, rounding), so every source's figure is kept;
    ``is_preferred`` marks the one dense figure per precision the catalog uses.
    """

    accelerator = models.ForeignKey(Accelerator, on_delete=models.CASCADE, related_name="throughputs")
    precision = models.CharField(max_length=8, choices=Precision.choices)
    tflops = models.DecimalField(
        max_digits=10,
        decimal_places=2,
        validators=[validate_positive],
        help_text="Tera-operations per second (TFLOPS; TOPS for integer precisions).",
    )
    is_sparse = models.BooleanField(default=False, help_text="Quoted with 2:4 structured sparsity.")
    is_preferred = models.BooleanField(
        default=False, help_text="The dense figure the catalog uses for this precision."
    )
    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="throughputs")
    note = models.TextField(blank=True, help_text="The source's wording; conversions; doubts.")

    class Meta:
        ordering = ["accelerator", "precision", "is_sparse", "-is_preferred", "source"]
        constraints = [
            models.UniqueConstraint(
                fields=["accelerator", "precision", "is_sparse", "source"],
                name="catalog_throughput_one_per_source",
            ),
            models.UniqueConstraint(
                fields=["accelerator", "precision"],
                condition=Q(is_preferred=True),
                name="catalog_throughput_one_preferred",
            ),
            models.CheckConstraint(condition=Q(tflops__gt=0), name="catalog_throughput_tflops_positive"),
            models.CheckConstraint(
                condition=~Q(is_preferred=True, is_sparse=True),
                name="catalog_throughput_preferred_is_dense",
            ),
            _known("precision", Precision, "catalog_throughput_precision_known"),
        ]

    def __str__(self) -> str:
        sparse = " sparse" if self.is_sparse else ""
        return f"{self.accelerator} {self.precision} {self.tflops}{sparse} ({self.source})"

    def clean(self) -> None:
        super().clean()
        if self.is_preferred and self.is_sparse:
            raise ValidationError({"is_preferred": "a with-sparsity figure cannot be the preferred one"})


class AcceleratorPowerCap(models.Model):
    """Throughput lost when an accelerator is power-capped below its TDP."""

    accelerator = models.ForeignKey(Accelerator, on_delete=models.CASCADE, related_name="power_caps")
    power_limit_w = models.PositiveIntegerField(validators=[validate_positive])
    throughput_loss_pct_low = models.DecimalField(
        max_digits=5, decimal_places=2, validators=[validate_not_negative]
    )
    throughput_loss_pct_high = models.DecimalField(
        max_digits=5, decimal_places=2, validators=[validate_not_negative]
    )
    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="power_caps")
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["accelerator", "-power_limit_w"]
        constraints = [
            models.UniqueConstraint(
                fields=["accelerator", "power_limit_w", "source"], name="catalog_power_cap_unique"
            ),
            models.CheckConstraint(condition=Q(power_limit_w__gt=0), name="catalog_power_cap_limit_positive"),
            models.CheckConstraint(
                condition=Q(throughput_loss_pct_low__gte=0)
                & Q(throughput_loss_pct_high__gte=models.F("throughput_loss_pct_low"))
                & Q(throughput_loss_pct_high__lte=100),
                name="catalog_power_cap_loss_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.accelerator} at {self.power_limit_w} W"

    def clean(self) -> None:
        super().clean()
        low, high = self.throughput_loss_pct_low, self.throughput_loss_pct_high
        if low is not None and high is not None and not low <= high <= 100:
            raise ValidationError({"throughput_loss_pct_high": "must be between the low loss and 100 %"})


class SystemSku(CatalogEntry):
    """A purchasable system: a bare accelerator, a baseboard, a server/node or a rack-scale system."""

    FIGURE_FIELDS = (
        "accelerators_per_system",
        "cpu",
        "power_max_kw",
        "power_idle_kw",
        "rack_units",
        "purchase_price_low_usd",
        "purchase_price_high_usd",
        "cooling",
    )

    vendor = models.CharField(max_length=64, help_text="Who sells or builds it.")
    kind = models.CharField(max_length=16, choices=SystemKind.choices)
    accelerator = models.ForeignKey(Accelerator, on_delete=models.PROTECT, related_name="systems")
    accelerators_per_system = models.PositiveSmallIntegerField(validators=[validate_positive])
    cpu = models.CharField(max_length=200, blank=True, verbose_name="CPU")
    power_max_kw = _figure(8, 3, verbose_name="power at full load (kW)")
    power_idle_kw = models.DecimalField(
        max_digits=8, decimal_places=3, null=True, blank=True, validators=[validate_not_negative],
        verbose_name="power idle (kW)",
    )
    rack_units = models.PositiveSmallIntegerField(null=True, blank=True, validators=[validate_positive],
                                                  verbose_name="height (rack units, U)")
    purchase_price_low_usd = _figure(14, 2, verbose_name="purchase price, low (USD)",
                                     help_text="Low end of the planning price range.")
    purchase_price_high_usd = _figure(14, 2, verbose_name="purchase price, high (USD)",
                                      help_text="High end; empty for an open-ended '$X+'.")
    cooling = models.CharField(
        max_length=8, choices=SystemCooling.choices, blank=True,
        help_text="Air-cooled systems are never placed in liquid-only rooms or cooling tiers, "
                  "liquid-cooled ones never in air-cooled rooms; empty when no source says (either).")

    class Meta:
        ordering = ["kind", "slug"]
        verbose_name = "system SKU"
        constraints = [
            models.CheckConstraint(
                condition=Q(accelerators_per_system__gt=0),
                name="catalog_systemsku_accelerators_positive",
            ),
            _positive("power_max_kw"),
            _positive("rack_units"),
            _positive("purchase_price_low_usd"),
            _positive("purchase_price_high_usd"),
            models.CheckConstraint(
                condition=Q(power_idle_kw__isnull=True)
                | (
                    Q(power_idle_kw__gte=0)
                    & Q(power_max_kw__isnull=False)
                    & Q(power_idle_kw__lte=models.F("power_max_kw"))
                ),
                name="catalog_systemsku_idle_within_max",
            ),
            models.CheckConstraint(
                condition=Q(purchase_price_high_usd__isnull=True)
                | (
                    Q(purchase_price_low_usd__isnull=False)
                    & Q(purchase_price_high_usd__gte=models.F("purchase_price_low_usd"))
                ),
                name="catalog_systemsku_price_range_ordered",
            ),
            _known("kind", SystemKind, "catalog_systemsku_kind_known"),
            models.CheckConstraint(condition=Q(cooling__in=["", *SystemCooling.values]),
                                   name="catalog_systemsku_cooling_known"),
        ]

    @property
    def label(self) -> str:
        """As people name it: 'NVIDIA DGX H200 (8x H200 SXM 141 GB)'; a name's own
        '(RTX 4090)' or '(per GPU)' gives way to the count."""
        name = re.sub(r"\s*\([^)]*\)$", "", self.name)
        return f"{name} ({self.accelerators_per_system}x {self.accelerator.short_name})"

    def clean(self) -> None:
        errors: dict[str, str] = {}
        if self.power_idle_kw is not None:
            if self.power_max_kw is None:
                errors["power_idle_kw"] = "needs power_max_kw"
            elif self.power_idle_kw > self.power_max_kw:
                errors["power_idle_kw"] = "must not exceed power_max_kw"
        if self.purchase_price_high_usd is not None:
            if self.purchase_price_low_usd is None:
                errors["purchase_price_high_usd"] = "needs purchase_price_low_usd"
            elif self.purchase_price_high_usd < self.purchase_price_low_usd:
                errors["purchase_price_high_usd"] = "must not be below purchase_price_low_usd"
        if errors:
            raise ValidationError(errors)
        super().clean()


#: The price bands a survey quotes across providers (catalog/data/README.md, naming).
OFFERING_BAND_WORDS = {"midrange": "mid-range", "hyperscaler": "hyperscaler", "typical": "typical",
                       "cheapest": "cheapest"}


class CloudOffering(models.Model):
    """An instance type a provider rents in a region under one pricing model.

    One row per (provider, instance type, region, pricing model), whatever fed its prices (the
    catalog's seed data, a price feed, a team's quote): one offering, one price history.
    """

    #: The region of an offering whose source names none.
    UNSPECIFIED_REGION = "unspecified"

    provider = models.CharField(max_length=16, choices=Provider.choices)
    instance_type = models.CharField(
        max_length=128,
        help_text="Provider's name; '1x-<accelerator slug>' when a source quotes per GPU-hour only.",
    )
    region = models.CharField(
        max_length=64, help_text="Cloud region code; 'unspecified' when the source names none."
    )
    accelerator = models.ForeignKey(Accelerator, on_delete=models.PROTECT, related_name="offerings")
    accelerators_per_instance = models.PositiveSmallIntegerField(validators=[validate_positive])
    pricing_model = models.CharField(max_length=16, choices=PricingModel.choices)
    notes = models.TextField(blank=True)
    team = _owning_team(
        "offerings",
        "The team whose quote introduced this offering, seen by its members only; empty = public.",
    )
    # django-simple-history's rows use the name ``instance_type`` themselves, so that column
    # cannot be tracked; the row id still says which offering changed.
    history = HistoricalRecords(excluded_fields=["instance_type"])

    class Meta:
        ordering = ["provider", "instance_type", "region", "pricing_model"]
        constraints = [
            models.UniqueConstraint(
                fields=["provider", "instance_type", "region", "pricing_model"],
                condition=Q(team__isnull=True),
                name="catalog_offering_natural_key",
                violation_error_message="A public offering with this provider, instance type, region "
                "and pricing model already exists.",
            ),
            models.UniqueConstraint(
                fields=["team", "provider", "instance_type", "region", "pricing_model"],
                condition=Q(team__isnull=False),
                name="catalog_offering_team_natural_key",
                violation_error_message="The team already has an offering with this provider, instance "
                "type, region and pricing model.",
            ),
            models.CheckConstraint(
                condition=Q(accelerators_per_instance__gt=0),
                name="catalog_offering_accelerators_positive",
            ),
            _known("provider", Provider, "catalog_offering_provider_known"),
            _known("pricing_model", PricingModel, "catalog_offering_pricing_model_known"),
        ]

    def __str__(self) -> str:
        """As people say it: 'AWS p5.48xlarge (8x H100 SXM5 80 GB), us-east-1, on-demand'."""
        return self.named(self.region)

    def named(self, region: str) -> str:
        """Named with other words for its region: 'AWS p5.48xlarge (8x H100 SXM5 80 GB),
        cheapest region, on-demand'."""
        provider = "Market survey" if self.provider == Provider.MARKET else self.get_provider_display()
        region = "" if region == self.UNSPECIFIED_REGION else f", {region}"
        pricing = PRICING_WORDS.get(self.pricing_model, self.pricing_model)
        return (f"{provider} {self.instance_words()} ({self.accelerators_per_instance}x "
                f"{self.accelerator.short_name}){region}, {pricing}")

    def instance_words(self) -> str:
        """The instance type, or in words where a source quotes per GPU-hour only and the
        catalog made up the key ('1x-l40s-pcie-48gb' -> 'per-GPU price', 'typical-1x-...' ->
        'typical price per GPU')."""
        band, _, slug = self.instance_type.rpartition("1x-")
        if slug != self.accelerator.slug:
            return self.instance_type
        band = band.removesuffix("-")
        return f"{OFFERING_BAND_WORDS.get(band, band)} price per GPU" if band else "per-GPU price"


class PricePoint(models.Model):
    """A price of a cloud offering (per instance-hour) or a system (per unit) at a date.

    History is kept: a new price is a new row, and loading the same price twice adds nothing.
    A price with a team is that team's confidential quote; without one it is public.
    """

    offering = models.ForeignKey(
        CloudOffering, on_delete=models.CASCADE, null=True, blank=True, related_name="prices"
    )
    system = models.ForeignKey(
        SystemSku, on_delete=models.CASCADE, null=True, blank=True, related_name="prices"
    )
    amount = models.DecimalField(
        max_digits=14,
        decimal_places=4,
        validators=[validate_positive],
        help_text="Price, or the low end when the source quotes a range.",
    )
    amount_high = models.DecimalField(
        max_digits=14,
        decimal_places=4,
        null=True,
        blank=True,
        validators=[validate_positive],
        help_text="High end when the source quotes a range.",
    )
    currency = models.CharField(max_length=3, choices=Currency.choices, default=Currency.USD)
    as_of = models.DateField(help_text="Date the price applies from.")
    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="prices")
    source_url = models.URLField(max_length=500, blank=True)
    retrieved_at = models.DateTimeField()
    note = models.TextField(blank=True, help_text="The source's wording and any conversion.")
    team = _owning_team(
        "prices", "The team whose confidential quote this is; empty = a public catalog price."
    )
    history = HistoricalRecords()

    class Meta:
        ordering = ["-as_of", "-retrieved_at", "-id"]
        indexes = [
            models.Index(fields=["offering", "-as_of"], name="catalog_price_offering_asof"),
            models.Index(fields=["system", "-as_of"], name="catalog_price_system_asof"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(offering__isnull=False, system__isnull=True)
                | Q(offering__isnull=True, system__isnull=False),
                name="catalog_price_exactly_one_target",
            ),
            models.CheckConstraint(condition=Q(amount__gt=0), name="catalog_price_amount_positive"),
            models.CheckConstraint(
                condition=Q(amount_high__isnull=True) | Q(amount_high__gte=models.F("amount")),
                name="catalog_price_range_ordered",
            ),
            _known("currency", Currency, "catalog_price_currency_known"),
            # A price is recorded once among the public prices and once per team.
            models.UniqueConstraint(
                fields=["offering", "as_of", "source", "amount"],
                condition=Q(offering__isnull=False, team__isnull=True),
                name="catalog_price_offering_natural_key",
            ),
            models.UniqueConstraint(
                fields=["system", "as_of", "source", "amount"],
                condition=Q(system__isnull=False, team__isnull=True),
                name="catalog_price_system_natural_key",
            ),
            models.UniqueConstraint(
                fields=["team", "offering", "as_of", "source", "amount"],
                condition=Q(offering__isnull=False, team__isnull=False),
                name="catalog_price_team_offering_natural_key",
            ),
            models.UniqueConstraint(
                fields=["team", "system", "as_of", "source", "amount"],
                condition=Q(system__isnull=False, team__isnull=False),
                name="catalog_price_team_system_natural_key",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.target} {self.amount} {self.currency} {self.unit} as of {self.as_of}"

    @property
    def target(self) -> CloudOffering | SystemSku | None:
        """The offering or system this price is for."""
        return self.offering or self.system

    @property
    def unit(self) -> str:
        """What one `amount` buys: an instance-hour of an offering or one unit of a system."""
        return "per instance-hour" if self.offering_id else "per unit"

    def clean(self) -> None:
        errors: dict[str, str] = {}
        if (self.offering_id is None) == (self.system_id is None):
            errors["offering"] = "give exactly one of offering or system"
        if self.amount_high is not None and self.amount is not None and self.amount_high < self.amount:
            errors["amount_high"] = "must not be below amount"
        if errors:
            raise ValidationError(errors)
        super().clean()


class RentalTerm(models.TextChoices):
    """How long a rental commits to: spot and on demand month by month, or 1 to 36 months
    (``costmodel.term_structure.TERM_LADDER``, in the same order)."""

    SPOT = "spot", "Spot"
    ON_DEMAND = "on_demand", "On demand"
    MONTHS_1 = "1", "1 month"
    MONTHS_3 = "3", "3 months"
    MONTHS_6 = "6", "6 months"
    MONTHS_12 = "12", "12 months"
    MONTHS_24 = "24", "24 months"
    MONTHS_36 = "36", "36 months"


class RentalCurvePrice(models.Model):
    """One point of an accelerator's rental term structure: the price per accelerator-hour of a
    term on a date, from a published index or a broker's quote sheet (imported as CSV,
    ``catalog.rental_curves``). History is kept: each date's curve is its own rows."""

    accelerator = models.ForeignKey(Accelerator, on_delete=models.CASCADE, related_name="rental_curve")
    as_of = models.DateField(help_text="Date of the curve.")
    term = models.CharField(max_length=16, choices=RentalTerm.choices)
    usd_per_accelerator_hour = models.DecimalField(
        max_digits=10, decimal_places=4, validators=[validate_positive],
        verbose_name="price (USD per accelerator-hour)",
    )
    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="rental_curve_prices")

    class Meta:
        ordering = ["accelerator", "-as_of", "id"]
        constraints = [
            models.UniqueConstraint(fields=["accelerator", "as_of", "term"],
                                    name="catalog_rental_curve_point"),
            models.CheckConstraint(condition=Q(usd_per_accelerator_hour__gt=0),
                                   name="catalog_rental_curve_price_positive"),
            _known("term", RentalTerm, "catalog_rental_curve_term_known"),
        ]

    def __str__(self) -> str:
        price = self.usd_per_accelerator_hour
        return f"{self.accelerator} {self.get_term_display()} ${price}/h as of {self.as_of}"


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


class TokenApiPrice(models.Model):
    """A model API's price per million tokens on a date, from a source (or a shipped example)."""

    provider = models.CharField(max_length=64)
    model_name = models.CharField(max_length=128)
    usd_per_million_input = models.DecimalField(max_digits=12, decimal_places=4,
                                                verbose_name="input (USD per million tokens)",
                                                validators=[validate_not_negative])
    usd_per_million_cached_input = models.DecimalField(max_digits=12, decimal_places=4,
                                                       verbose_name="cached input (USD per million tokens)",
                                                       validators=[validate_not_negative])
    usd_per_million_output = models.DecimalField(max_digits=12, decimal_places=4,
                                                 verbose_name="output (USD per million tokens)",
                                                 validators=[validate_not_negative])
    currency = models.CharField(max_length=3, choices=Currency.choices, default=Currency.USD,
                                help_text="Currency of the prices per million tokens (ISO 4217).")
    as_of = models.DateField(help_text="Date the prices apply from.")
    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="token_api_prices")
    is_example = models.BooleanField(
        default=False, help_text="A shipped example for trying the model out, not a real price list.")
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["provider", "model_name", "-as_of"]
        verbose_name = "token API price"
        constraints = [
            models.UniqueConstraint(fields=["provider", "model_name", "as_of"],
                                    name="catalog_token_api_price_unique"),
            *[models.CheckConstraint(condition=Q(**{f"{f}__gte": 0}),
                                     name=f"catalog_token_api_{f}_nonnegative")
              for f in ("usd_per_million_input", "usd_per_million_cached_input",
                        "usd_per_million_output")],
        ]

    def __str__(self) -> str:
        example = " (example)" if self.is_example else ""
        return f"{self.provider} {self.model_name}, {self.as_of}{example}"


class RefreshStatus(models.TextChoices):
    """Where a price refresh job stands."""

    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


class PriceRefreshJob(models.Model):
    """One run of a provider's price feed: what it found and wrote, or why it wrote nothing.

    A run writes its prices in one transaction; a failed run writes none and says why in
    ``error_code`` (the feed error's code) and ``error``.
    """

    provider = models.CharField(max_length=16, choices=Provider.choices)
    location = models.CharField(
        max_length=1000, blank=True, help_text="URL or local path the feed was read from."
    )
    status = models.CharField(max_length=16, choices=RefreshStatus.choices, default=RefreshStatus.RUNNING)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    prices_new = models.PositiveIntegerField(
        default=0, help_text="First price of an offering from this feed."
    )
    prices_changed = models.PositiveIntegerField(
        default=0, help_text="Price differs from the last one stored."
    )
    prices_unchanged = models.PositiveIntegerField(
        default=0, help_text="Same as the last one; nothing written."
    )
    prices_rejected = models.PositiveIntegerField(
        default=0, help_text="Feed rows that are not prices we store (decoys, unmapped, conflicts)."
    )
    prices_other_terms = models.PositiveIntegerField(
        default=0,
        help_text="Reservation prices of a less preferred purchase option of an offering already priced.",
    )
    offerings_new = models.PositiveIntegerField(default=0)
    source_versions = models.JSONField(
        default=dict, blank=True, help_text="Version read per region (AWS offer files)."
    )
    regions_skipped = models.JSONField(
        default=list, blank=True, help_text="Regions whose feed version had not changed."
    )
    rejections = models.JSONField(
        default=list, blank=True, help_text="Rejected rows: sku, reason and detail."
    )
    warnings = models.JSONField(
        default=list, blank=True,
        help_text="What the refresh left out and why, in sentences (a region missing from a mirror).",
    )
    error_code = models.CharField(max_length=64, blank=True)
    error = models.TextField(blank=True)
    # Recovery after a dead worker (catalog/refresh/recovery.py): each try has its own row.
    attempt = models.PositiveSmallIntegerField(default=1, help_text="Which try of this refresh it is.")
    worker = models.CharField(max_length=200, blank=True, help_text="The worker running it.")
    task_id = models.CharField(max_length=64, blank=True)
    written_prices = models.ManyToManyField(
        PricePoint, blank=True, related_name="refresh_jobs", help_text="Price points this run added."
    )

    class Meta:
        ordering = ["-started_at", "-id"]
        indexes = [models.Index(fields=["provider", "status", "-started_at"], name="catalog_refresh_latest")]
        constraints = [
            _known("status", RefreshStatus, "catalog_refresh_status_known"),
            models.CheckConstraint(
                condition=Q(status=RefreshStatus.RUNNING, finished_at__isnull=True)
                | (~Q(status=RefreshStatus.RUNNING) & Q(finished_at__isnull=False)),
                name="catalog_refresh_finished_when_done",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.provider} refresh {self.started_at:%Y-%m-%d %H:%M} ({self.status})"


class PriceCheck(models.Model):
    """When a price refresh last found a stored price still current; a price's age runs from here."""

    price_point = models.OneToOneField(
        PricePoint, on_delete=models.CASCADE, primary_key=True, related_name="last_check"
    )
    checked_at = models.DateTimeField()
    job = models.ForeignKey(
        PriceRefreshJob, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        verbose_name = "price check"

    def __str__(self) -> str:
        return f"{self.price_point} checked {self.checked_at:%Y-%m-%d}"


class QuoteImport(RecoverableJob):
    """A vendor quote file imported on a worker: its progress, and what it wrote or why not.

    All or nothing: a file with any bad row writes nothing, and ``errors`` names each row,
    column and reason. The file stays on the row, so a worker that dies mid-import leaves
    something to import again (catalog/quote_imports.py).
    """

    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, null=True, blank=True,
                             related_name="quote_imports",
                             help_text="Whose confidential prices these are; empty for public prices.")
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                    blank=True, related_name="+")
    file_name = models.CharField(max_length=255)
    content = models.BinaryField(help_text="The uploaded file, as received.")
    status = models.CharField(max_length=8, choices=QuoteImportStatus.choices,
                              default=QuoteImportStatus.PENDING)
    rows_total = models.PositiveIntegerField(null=True, blank=True, help_text="Price rows in the file.")
    rows_checked = models.PositiveIntegerField(default=0, help_text="Rows checked so far.")
    prices_created = models.PositiveIntegerField(default=0)
    prices_unchanged = models.PositiveIntegerField(default=0,
                                                   help_text="Already recorded: not written again.")
    offerings_created = models.PositiveIntegerField(default=0)
    errors = models.JSONField(default=list, blank=True, help_text="Each bad row: row, field and reason.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            _known("status", QuoteImportStatus, "catalog_quote_import_status_known"),
        ]

    def __str__(self) -> str:
        return f"{self.file_name} ({self.get_status_display()})"

    @property
    def progress_percent(self) -> int:
        """Rows checked out of the file's rows, 0-100 (100 only once imported)."""
        if self.status == QuoteImportStatus.DONE:
            return 100
        if not self.rows_total:
            return 0
        return min(99, 100 * self.rows_checked // self.rows_total)


class ThroughputMeasurementKind(models.TextChoices):
    """A measurement with its configuration, or a document's bare claim."""

    MEASUREMENT = "measurement", "Published measurement"
    SEED_CLAIM = "seed_claim", "Seed document's claim"


class ThroughputMeasurement(models.Model):
    """A published serving throughput and the configuration it was measured on (see
    catalog/data/throughput_measurements.yaml); the throughput estimate is calibrated on the rows
    marked ``calibrated``."""

    key = models.SlugField(max_length=80, unique=True)
    kind = models.CharField(max_length=16, choices=ThroughputMeasurementKind.choices)
    source = models.ForeignKey(Source, on_delete=models.PROTECT,
                               related_name="throughput_measurements")
    where = models.CharField(max_length=300, help_text="Where in the document the figure is.")
    model_key = models.CharField(max_length=64, help_text="Model preset of the sizing "
                                 "(costmodel.model_presets).")
    model_note = models.CharField(max_length=200, blank=True)
    accelerator = models.ForeignKey(Accelerator, on_delete=models.PROTECT,
                                    related_name="throughput_measurements")
    accelerators = models.PositiveIntegerField(validators=[validate_positive])
    tensor_parallel = models.PositiveIntegerField(null=True, blank=True)
    precision = models.CharField(max_length=8, help_text="Weights' number format.")
    serving_software = models.CharField(max_length=120, blank=True)
    concurrency = models.FloatField(null=True, blank=True, help_text=(
        "Requests in flight (batch size); empty: all requests queued at once, the engine chose."))
    input_tokens = models.PositiveIntegerField(null=True, blank=True)
    output_tokens = models.PositiveIntegerField(null=True, blank=True)
    tokens_per_s = models.DecimalField("output tokens/s", max_digits=12, decimal_places=2,
                                       validators=[validate_positive],
                                       help_text="Output tokens per second of the configuration.")
    physically_possible = models.BooleanField(default=True)
    judgement = models.TextField(blank=True, help_text="The memory and bandwidth arithmetic.")
    calibrated = models.BooleanField(default=False, help_text="The estimate is fitted on it.")
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["kind", "accelerator__slug", "key"]
        constraints = [
            _known("kind", ThroughputMeasurementKind, "catalog_throughput_measurement_kind_known"),
            models.CheckConstraint(condition=Q(tokens_per_s__gt=0),
                                   name="catalog_throughput_measurement_positive"),
        ]

    def __str__(self) -> str:
        return self.key


class CatalogRevision(RevisedModel):
    """One row whose revision moves with every change of the catalog's specifications: sources,
    accelerators and their throughputs and power caps, systems, cloud offerings, cooling
    technologies, facility profiles, power densities, token API prices and throughput
    measurements, saved or deleted, and exchange rates deleted (catalog/signals.py). Prices and
    their checks are named by the evaluation cache's key on their own, row by row, as is the
    newest exchange rate; this is the rest of what a scenario's figures read from the catalog
    (tco/services/evaluation_cache.py)."""

    ROW = 1

    revision = models.BigIntegerField(default=1)

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(id=1), name="catalog_catalogrevision_one_row")]

    def __str__(self) -> str:
        return f"catalog revision {self.revision}"


# Exchange rates live in their own module; importing them here registers the model with the app.
from catalog.exchange_rates.models import ExchangeRate  # noqa: E402,F401
