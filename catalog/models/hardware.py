"""Accelerators, their throughput and power caps, systems, and measured throughput."""
from __future__ import annotations

import re
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from catalog.choices import AcceleratorKind
from catalog.choices import FormFactor
from catalog.choices import Precision
from catalog.choices import SystemCooling
from catalog.choices import SystemKind
from catalog.choices import Vendor
from catalog.models.fields import _figure
from catalog.models.fields import _known
from catalog.models.fields import _positive
from catalog.models.sources import CatalogEntry
from catalog.models.sources import ProvenancedModel
from catalog.models.sources import Source
from catalog.validators import validate_not_negative
from catalog.validators import validate_positive

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

class SystemPowerFigure(models.Model):
    """Another source's maximum power of a system, kept beside the figure the catalog costs
    (``SystemSku.power_max_kw``): a vendor's datasheet beside a seed's derived figure."""

    system = models.ForeignKey(SystemSku, on_delete=models.CASCADE, related_name="power_figures")
    power_max_kw = models.DecimalField("power at full load (kW)", max_digits=8, decimal_places=3,
                                       validators=[validate_positive])
    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="power_figures")
    note = models.TextField(blank=True, help_text="The source's wording; derivations.")

    class Meta:
        ordering = ["system", "power_max_kw"]
        verbose_name = "system power figure"
        constraints = [
            models.UniqueConstraint(fields=["system", "source", "power_max_kw"],
                                    name="catalog_system_power_figure_unique"),
            models.CheckConstraint(condition=Q(power_max_kw__gt=0),
                                   name="catalog_system_power_figure_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.system}: {self.power_max_kw} kW ({self.source.key})"

    @property
    def difference_kw(self) -> Decimal | None:
        """This figure minus the one the catalog costs (None when the system has none)."""
        used = self.system.power_max_kw
        return None if used is None else self.power_max_kw - used


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
    serving_software = models.CharField(max_length=120, blank=True, help_text=(
        "The software stack measured: serving engine and its version."))
    measured_on = models.DateField(null=True, blank=True, help_text=(
        "When the result was published: the row's own date, else its document's."))
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
