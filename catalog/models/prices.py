"""What compute costs to rent: cloud offerings, their price points, and token API prices."""
from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from simple_history.models import HistoricalRecords

from catalog.choices import PRICING_WORDS
from catalog.choices import PricingModel
from catalog.choices import Provider
from catalog.models.fields import _known
from catalog.models.fields import _owning_team
from catalog.models.hardware import Accelerator
from catalog.models.hardware import SystemSku
from catalog.models.sources import Source
from catalog.validators import validate_not_negative
from catalog.validators import validate_positive
from core.currency import Currency

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
    ``catalog.rental_curves``), in the currency it was quoted in: a scenario reads it converted at
    its rates like every other price. History is kept: each date's curve is its own rows."""

    accelerator = models.ForeignKey(Accelerator, on_delete=models.CASCADE, related_name="rental_curve")
    as_of = models.DateField(help_text="Date of the curve.")
    term = models.CharField(max_length=16, choices=RentalTerm.choices)
    price_per_accelerator_hour = models.DecimalField(
        max_digits=10, decimal_places=4, validators=[validate_positive],
        verbose_name="price (per accelerator-hour, in its currency)",
    )
    currency = models.CharField(max_length=3, choices=Currency.choices, default=Currency.USD)
    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="rental_curve_prices")

    class Meta:
        ordering = ["accelerator", "-as_of", "id"]
        constraints = [
            models.UniqueConstraint(fields=["accelerator", "as_of", "term"],
                                    name="catalog_rental_curve_point"),
            models.CheckConstraint(condition=Q(price_per_accelerator_hour__gt=0),
                                   name="catalog_rental_curve_price_positive"),
            _known("term", RentalTerm, "catalog_rental_curve_term_known"),
            _known("currency", Currency, "catalog_rental_curve_currency_known"),
        ]

    def __str__(self) -> str:
        price = self.price_per_accelerator_hour
        return f"{self.accelerator} {self.get_term_display()} {price} {self.currency}/h as of {self.as_of}"


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
    usd_per_million_training = models.DecimalField(
        max_digits=12, decimal_places=4, null=True, blank=True,
        validators=[validate_not_negative],
        verbose_name="fine-tuning (USD per million training tokens)",
        help_text="The provider's price to fine-tune the model it serves, per training token "
                  "(tokens of the dataset x epochs); empty: it sells no fine-tuning, or no public "
                  "price was found.")
    currency = models.CharField(max_length=3, choices=Currency.choices, default=Currency.USD,
                                help_text="Currency of the prices per million tokens (ISO 4217).")
    as_of = models.DateField(help_text="Date the prices apply from.")
    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="token_api_prices")
    is_example = models.BooleanField(
        default=False, help_text="A shipped example for trying the model out, not a real price list.")
    serves_model = models.CharField(
        max_length=64, blank=True,
        help_text="The open model a host serves, as the sizing's model presets name it "
                  "(llama-3.1-70b): a self-hosted build of it is compared with this price. "
                  "Empty for a provider's own model.")
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
