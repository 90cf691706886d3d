"""Scenarios: one workload, one buy option and several rent options, over a horizon.

A field left empty falls back to the referenced catalog row (system, facility, offering);
tco/services/engine_inputs.py records which value came from where.

A scenario belongs to a team. Every save is recorded (django-simple-history) and bumps its
``revision`` with a conditional UPDATE, so two people editing the same revision cannot both
win. An approved scenario is frozen: editing it makes a new draft version (tco/services/scenarios.py).
"""
from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F
from django.db.models import Q
from simple_history.models import HistoricalRecords

from catalog.choices import Precision
from core.currency import Currency
from core.verdict_basis import VerdictBasis
from costmodel.inputs import InputError
from costmodel.validation import check_residual_curve
from tco.choices import BillingBasis
from tco.choices import PriceRangePoint
from tco.choices import ScenarioStatus
from tco.choices import TaxDepreciation
from tco.inputs import API_OPTION_INPUTS
from tco.inputs import RENT_OPTION_INPUTS
from tco.inputs import SCENARIO_INPUTS
from tco.inputs import bound_fields
from tco.inputs import bounds_constraints

MONEY = {"max_digits": 16, "decimal_places": 4}
RATE = {"max_digits": 9, "decimal_places": 6}
HOURS = {"max_digits": 10, "decimal_places": 4}
PUE = {"max_digits": 5, "decimal_places": 3}
GRID_INTENSITY = {"max_digits": 7, "decimal_places": 5}  # kg CO2e/kWh


def optional_decimal(digits: dict[str, int], help_text: str) -> models.DecimalField:
    """A figure the user may leave empty; ``help_text`` says what empty means."""
    return models.DecimalField(**digits, null=True, blank=True, help_text=help_text)


class StaleRevision(Exception):
    """A save based on a revision someone else has since replaced; ``current`` is the stored one."""

    def __init__(self, scenario_id: int, current: int | None) -> None:
        super().__init__(f"scenario {scenario_id} is at revision {current}; reload it and "
                         "apply your change again")
        self.scenario_id = scenario_id
        self.current = current


class Scenario(models.Model):
    """A buy-vs-rent case: workload, buy option, facility and finance; rent options hang off it."""

    team = models.ForeignKey("teams.Team", on_delete=models.PROTECT, related_name="scenarios",
                             help_text="Only this team's members see the scenario.")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                              related_name="scenarios", null=True, blank=True,
                              help_text="Who created it.")
    status = models.CharField(max_length=16, choices=ScenarioStatus.choices,
                              default=ScenarioStatus.DRAFT)
    approved_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                    related_name="+", null=True, blank=True)
    approved_at = models.DateTimeField(null=True, blank=True)
    version = models.PositiveIntegerField(default=1, editable=False,
                                          help_text="1 for a new scenario; +1 per new version.")
    previous_version = models.OneToOneField(
        "self", on_delete=models.SET_NULL, null=True, blank=True, editable=False,
        related_name="next_version", help_text="The approved version this one was edited from.")
    revision = models.PositiveIntegerField(
        default=1, editable=False,
        help_text="Bumped by every save; an edit must name the revision it was made on.")
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    prices_as_of = models.DateField(
        null=True, blank=True,
        help_text="Catalog prices in force on this date are used; empty = today.")
    currency = models.CharField(
        max_length=3, choices=Currency.choices, blank=True,
        help_text="Currency (ISO 4217) of the money figures typed on this scenario and its "
                  "options; empty = the reporting currency.")
    reporting_currency = models.CharField(
        max_length=3, choices=Currency.choices, blank=True,
        help_text="Currency the figures are reported in; empty = the team's.")
    starts_on = models.DateField(
        null=True, blank=True,
        help_text="Month 0 (the up-front payment) falls in this date's month, for fiscal years "
                  "and quarters; empty = the month of the price date (prices_as_of, else today).")
    rates_as_of = models.DateField(
        null=True, blank=True,
        help_text="Convert every figure at the exchange rates of this date; empty = each figure "
                  "at the rate of its own date (a catalog price's, else the price date's).")
    price_range_point = models.CharField(
        max_length=8, choices=PriceRangePoint.choices, default=PriceRangePoint.TYPICAL,
        help_text="Where a catalog price is a range (low-high), the point costed: low end, "
                  "middle or high end. A single or open-ended ('$X+') price is used as it is.")

    # Workload
    accelerator = models.ForeignKey("catalog.Accelerator", on_delete=models.PROTECT,
                                    related_name="+")
    accelerators = models.PositiveIntegerField(
        null=True, blank=True, help_text="Accelerators needed; empty when a sizing gives it.")
    # Wider than a share needs, so 70 (a percent) reaches the bounds check and its message.
    utilisation = models.DecimalField(max_digits=8, decimal_places=4,
                                      help_text="Share of hours doing useful work, 0 to 1.")
    hours_per_month = models.DecimalField(max_digits=6, decimal_places=2, default=730)
    precision = models.CharField(
        max_length=8, choices=Precision.choices, default=Precision.FP16,
        help_text="Number format the workload runs at: compares accelerators' dense throughput "
                  "when a rent option offers a different accelerator.")
    tokens_per_s_per_accelerator = models.DecimalField(
        max_digits=12, decimal_places=3, null=True, blank=True,
        help_text="Throughput, for cost per million tokens; empty = not a token workload.")
    sizing = models.JSONField(
        null=True, blank=True,
        help_text="Workload sizing spec (see POST /api/v1/sizing/): gives the accelerator count "
                  "and inference throughput when those are empty.")

    # Buy: hardware
    system = models.ForeignKey("catalog.SystemSku", on_delete=models.PROTECT, related_name="+")
    system_price_usd = models.DecimalField(**MONEY, null=True, blank=True,
                                           help_text="Empty = the catalog's purchase price.")
    network_usd_per_system = models.DecimalField(**MONEY, default=0)
    network_share_of_compute = models.DecimalField(**RATE, default=0)
    storage_usd = models.DecimalField(**MONEY, default=0)
    racks_install_usd_per_rack = models.DecimalField(**MONEY, default=0)
    spares_share = models.DecimalField(**RATE, default=0, help_text="Spares, share of the systems' price.")
    power_cap_share = models.DecimalField(
        **RATE, default=1, help_text="Power cap as a share of TDP; 1 = no cap.")
    power_cap_throughput_loss = models.DecimalField(
        **RATE, default=0, help_text="Share of throughput lost under the cap (seed 003).")
    import_duty_vat_share = models.DecimalField(**RATE, default=0)

    # Buy: operations
    support_share_per_year = models.DecimalField(**RATE, default=0)
    staff_fte_per_system = models.DecimalField(**RATE, default=0)
    staff_usd_per_fte_year = models.DecimalField(**MONEY, default=0)
    licence_usd_per_accelerator_year = models.DecimalField(**MONEY, default=0)

    # Facility (empty = the facility profile's figure)
    facility = models.ForeignKey("catalog.FacilityProfile", on_delete=models.PROTECT,
                                 related_name="+")
    site = models.ForeignKey(
        "dcim_sites.Site", on_delete=models.PROTECT, null=True, blank=True, related_name="+",
        help_text="Where the systems run: the site's prices and its racks' power fill what the "
                  "scenario leaves empty (before the facility profile's), and a build that does not "
                  "fit its feeds, racks or cooling is warned about.")
    electricity_usd_per_kwh = models.DecimalField(**RATE, null=True, blank=True)
    electricity_escalation_per_year = models.DecimalField(**RATE, default=0)
    pue = models.DecimalField(**PUE, null=True, blank=True)
    colocation_usd_per_kw_month = models.DecimalField(**MONEY, null=True, blank=True)
    buildout_capex_usd_per_kw = models.DecimalField(**MONEY, null=True, blank=True)
    buildout_opex_usd_per_kw_month = models.DecimalField(**MONEY, null=True, blank=True)
    rack_power_limit_kw = models.DecimalField(max_digits=8, decimal_places=2,
                                              null=True, blank=True)
    rack_units_per_rack = models.PositiveSmallIntegerField(null=True, blank=True)

    # Finance
    horizon_months = models.PositiveSmallIntegerField(default=36)
    discount_rate_per_year = models.DecimalField(**RATE, default=0)
    depreciation_months = models.PositiveSmallIntegerField(default=60)
    residual_value_share = models.DecimalField(**RATE, default=0)
    financed_share = models.DecimalField(**RATE, default=0)
    loan_rate_per_year = models.DecimalField(**RATE, default=0)
    loan_term_months = models.PositiveSmallIntegerField(default=36)
    residual_curve = models.JSONField(
        null=True, blank=True,
        help_text="Resale value by age: [[month, share of the system price], ...], never rising; "
                  "empty = the decline rate, else the single residual value share.")
    residual_decline_per_year = optional_decimal(
        RATE, "Resale value falls by this share a year (0.25 = 25 %/yr); empty = not used.")
    next_generation_launch_month = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Month the next generation launches; empty = not modelled.")
    next_generation_value_drop = models.DecimalField(
        **RATE, default=0, help_text="Share of the resale value lost from that launch on.")

    # Tax and ways to pay (costmodel/tax.py, costmodel/payment.py)
    tax_rate = models.DecimalField(**RATE, default=0)
    tax_depreciation = models.CharField(
        max_length=20, choices=TaxDepreciation.choices, default=TaxDepreciation.STRAIGHT_LINE,
        help_text="How the tax return depreciates the capex (the books: straight line over "
                  "depreciation_months).")
    tax_depreciation_months = models.PositiveSmallIntegerField(default=60)
    declining_balance_factor = models.DecimalField(max_digits=4, decimal_places=2, default=2)
    verdict_basis = models.CharField(
        max_length=10, choices=VerdictBasis.choices, blank=True, default="",
        help_text="What the verdict ranks the options on: before or after tax; empty = the "
                  "team's choice, else after tax once a tax rate is entered.")
    finance_lease_usd_per_month = optional_decimal(
        MONEY, "Finance lease of the hardware: the monthly payment; empty = not compared.")
    finance_lease_term_months = models.PositiveSmallIntegerField(default=36)
    finance_lease_buyout_usd = models.DecimalField(
        **MONEY, default=0, help_text="Paid at the end of the finance lease's term to own the "
                                      "hardware.")
    operating_lease_usd_per_month = optional_decimal(
        MONEY, "Operating lease of the hardware: the monthly payment (the hardware is returned at "
               "the end); empty = not compared.")
    operating_lease_term_months = models.PositiveSmallIntegerField(default=36)

    # Goodput (empty = the stated default, see tco/services/stated_defaults.py)
    failures_per_accelerator_hour = models.DecimalField(
        max_digits=14, decimal_places=12, null=True, blank=True,
        help_text="Failures per accelerator-hour; empty = Llama 3's 1.97e-5 (Meta, 2024).")
    accelerators_per_job = models.PositiveIntegerField(
        null=True, blank=True, help_text="Accelerators one failure stops; empty = the whole fleet.")
    checkpoint_interval_h = optional_decimal(
        HOURS, "Hours of work between checkpoints; empty = Young/Daly sqrt(2 x cost x MTBF).")
    # In minutes, as people time a checkpoint: 5 min in hours (0.0833) lost digits that moved the
    # Young/Daly interval (tco/services/engine_inputs.py converts it to the engine's hours).
    checkpoint_cost_min = models.DecimalField(
        "checkpoint time (minutes)", max_digits=12, decimal_places=4, null=True, blank=True,
        help_text="Minutes to write a checkpoint; empty = 3 minutes (stated assumption).")
    restart_h = optional_decimal(
        HOURS, "Hours to restart after a failure; empty = 0.25 h (stated assumption).")

    # Carbon (empty = the stated default)
    grid_kg_co2e_per_kwh = optional_decimal(
        GRID_INTENSITY, "The facility's grid intensity, kg CO2e/kWh; empty = US average (eGRID2022).")
    embodied_kg_co2e_per_system = models.DecimalField(
        max_digits=12, decimal_places=2, null=True, blank=True,
        help_text="Embodied emissions of one system, kg CO2e; empty = left at zero.")
    cloud_grid_kg_co2e_per_kwh = optional_decimal(
        GRID_INTENSITY, "Grid intensity for rent options that give none; empty = US average (eGRID2022).")
    cloud_pue = optional_decimal(PUE, "PUE of rented capacity; empty = 1.10 (Google, 2023).")
    carbon_price_usd_per_tonne = models.DecimalField(
        **MONEY, default=0, help_text="Carbon price per tonne CO2e; 0 = emissions are not costed.")

    # Token mix (for per-token API options)
    token_input_share = models.DecimalField(**RATE, default=0)
    token_cached_input_share = models.DecimalField(**RATE, default=0)
    token_output_share = models.DecimalField(
        **RATE, default=1, help_text="Input, cached-input and output shares sum to 1.")

    history = HistoricalRecords()

    class Meta:
        ordering = ["name", "version"]
        constraints = [
            models.CheckConstraint(condition=Q(status__in=ScenarioStatus.values),
                                   name="scenario_status_known"),
            models.CheckConstraint(condition=Q(price_range_point__in=PriceRangePoint.values),
                                   name="scenario_price_range_point_known"),
            models.CheckConstraint(condition=Q(precision__in=Precision.values),
                                   name="scenario_precision_known"),
            models.CheckConstraint(condition=Q(status=ScenarioStatus.DRAFT)
                                   | Q(approved_at__isnull=False, approved_by__isnull=False),
                                   name="scenario_approved_says_by_whom_and_when"),
            models.CheckConstraint(condition=Q(version__gte=1) & Q(revision__gte=1),
                                   name="scenario_version_and_revision_from_1"),
            *bounds_constraints("scenario", SCENARIO_INPUTS),
            models.CheckConstraint(condition=Q(currency="") | Q(currency__in=Currency.values),
                                   name="scenario_currency_known"),
            models.CheckConstraint(condition=Q(reporting_currency="")
                                   | Q(reporting_currency__in=Currency.values),
                                   name="scenario_reporting_currency_known"),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        """Save, bumping ``revision`` only if the stored row is still at this instance's revision.

        Raises
        ------
        StaleRevision
            Someone saved the scenario since this instance's revision was read; nothing is saved.
        """
        if not self.currency:
            # What is typed keeps the currency it was typed in: a later switch of the reporting
            # currency converts these amounts at the scenario's rate date, never relabels them.
            self.currency = self.reported_in()
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "currency"}
        if self.pk is not None and not self._state.adding:
            stored = Scenario.objects.filter(pk=self.pk)
            # The conditional UPDATE locks the row: a concurrent writer waits, then finds the
            # revision moved and fails, instead of overwriting.
            if not stored.filter(revision=self.revision).update(revision=F("revision") + 1):
                raise StaleRevision(self.pk, stored.values_list("revision", flat=True).first())
            self.revision += 1
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "revision"}
        super().save(*args, **kwargs)

    def clean(self) -> None:
        """The token mix sums to 1 and the resale curve never rises (the engine's own checks)."""
        super().clean()
        errors = {}
        mix = (self.token_input_share, self.token_cached_input_share, self.token_output_share)
        if None not in mix and abs(sum(Decimal(share) for share in mix) - 1) > Decimal("1e-6"):
            errors["token_output_share"] = (f"input, cached-input and output shares must sum to 1, "
                                            f"not {sum(Decimal(share) for share in mix)}")
        try:
            check_residual_curve(tuple(tuple(point) if isinstance(point, (list, tuple)) else (point,)
                                       for point in self.residual_curve or ()))
        except InputError as exc:
            errors["residual_curve"] = exc.message
        if errors:
            raise ValidationError(errors)

    def reported_in(self) -> str:
        """The currency its figures are reported in: its own, else its team's, else US dollars."""
        if self.reporting_currency:
            return self.reporting_currency
        return self.team.reporting_currency if self.team_id is not None else Currency.USD

    @property
    def is_approved(self) -> bool:
        """Approved, hence frozen: an edit makes a new version."""
        return self.status == ScenarioStatus.APPROVED


class RentOption(models.Model):
    """One way to rent the workload's accelerators: a catalog offering or a quoted price."""

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="rent_options")
    name = models.CharField(max_length=200, blank=True,
                            help_text="Empty = the offering's provider, instance and pricing.")
    offering = models.ForeignKey("catalog.CloudOffering", on_delete=models.PROTECT,
                                 related_name="+")
    price_usd_per_instance_hour = optional_decimal(
        MONEY, "Empty = the offering's price in force on the scenario's price date.")
    cheapest_region = models.BooleanField(
        default=False,
        help_text="Rent the offering's instance type and pricing model in whichever region is "
                  "cheapest on the scenario's price date (the result names the region used); "
                  "off = the offering's own region.")
    equivalence_factor = models.DecimalField(
        max_digits=9, decimal_places=4, null=True, blank=True,
        help_text="How many of the offering's accelerators do the work of one of the scenario's "
                  "(e.g. 8 V100 per H100). Needed when the offering's accelerator differs; "
                  "empty = the same accelerator, or the catalog's throughput ratio if asked.")
    equivalence_from_throughput = models.BooleanField(
        default=False,
        help_text="When the accelerators differ and no factor is given: use the catalog's dense "
                  "throughput at the workload's precision (scenario's accelerator / offering's).")
    commitment_months = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Reserved term; empty = from the pricing model.")
    billing_basis = models.CharField(
        max_length=8, blank=True, choices=BillingBasis.choices,
        help_text="Empty = the pricing model's: every hour held for on-demand (a cluster you "
                  "keep) and reserved, the hours used for spot. Reserved and committed capacity "
                  "is always paid for every hour.")
    upfront_usd = models.DecimalField(**MONEY, default=0)
    spot_interruption_overhead = models.DecimalField(**RATE, default=0)
    egress_tb_per_month = models.DecimalField(**RATE, default=0)
    egress_usd_per_gb = models.DecimalField(
        **RATE, null=True, blank=True,
        help_text="Internet egress price per GB; empty = the provider's published rate in the "
                  "catalog (nothing where it has none).")
    storage_tb = models.DecimalField(**RATE, default=0)
    storage_usd_per_gb_month = models.DecimalField(**RATE, default=0)
    price_change_per_year = models.DecimalField(
        **RATE, default=0, help_text="Yearly change in the price, e.g. -0.10 = falls 10%/yr.")
    spot_interruptions_per_hour = models.DecimalField(
        **RATE, default=0, help_text="Spot only: interruptions per hour of the job (goodput).")
    grid_kg_co2e_per_kwh = optional_decimal(
        GRID_INTENSITY, "The provider's or region's grid intensity; empty = the scenario's default.")

    history = HistoricalRecords()

    class Meta:
        ordering = ["scenario", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(cheapest_region=False)
                                   | Q(price_usd_per_instance_hour__isnull=True),
                                   name="rent_cheapest_region_catalog_priced"),
            *bounds_constraints("rent", RENT_OPTION_INPUTS),
        ]

    def __str__(self) -> str:
        """Its own name, else its offering's; in the cheapest region 'AWS p5.48xlarge (8x H100
        SXM5 80 GB), cheapest region, on-demand', whichever region that is today."""
        if self.name:
            return self.name
        return self.offering.named("cheapest region") if self.cheapest_region else str(self.offering)

    def clean(self) -> None:
        super().clean()
        errors = {}
        # An offering a team's quote introduced is that team's; elsewhere it does not exist.
        offering_team = self.offering.team_id if self.offering_id else None
        if offering_team is not None and offering_team != self.scenario.team_id:
            errors["offering"] = f"no offering {self.offering_id} in the scenario's team"
        if self.cheapest_region and self.price_usd_per_instance_hour is not None:
            errors["cheapest_region"] = CHEAPEST_REGION_WITH_PRICE
        if errors:
            raise ValidationError(errors)


#: Why a rent option cannot both quote a price and ask for the cheapest region.
CHEAPEST_REGION_WITH_PRICE = (
    "a quoted price is one region's price: leave price_usd_per_instance_hour empty to rent in "
    "the cheapest region, or untick cheapest_region to use the quoted price")


class ApiOption(models.Model):
    """Paying a model API per token instead: a catalog price row, or prices quoted here."""

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="api_options")
    name = models.CharField(max_length=200, blank=True,
                            help_text="Empty = the catalog price row's provider and model.")
    price = models.ForeignKey("catalog.TokenApiPrice", on_delete=models.PROTECT, null=True,
                              blank=True, related_name="+",
                              help_text="Catalog prices; each price left empty below comes from it.")
    usd_per_million_input = models.DecimalField(**MONEY, null=True, blank=True,
                                                verbose_name="input (USD per million tokens)")
    usd_per_million_cached_input = models.DecimalField(**MONEY, null=True, blank=True,
                                                       verbose_name="cached input (USD per million tokens)")
    usd_per_million_output = models.DecimalField(**MONEY, null=True, blank=True,
                                                 verbose_name="output (USD per million tokens)")
    price_change_per_year = models.DecimalField(
        **RATE, default=0, help_text="Yearly change in the API's prices, e.g. -0.3.")
    minimum_usd_per_month = models.DecimalField(
        **MONEY, default=0, verbose_name="minimum spend (USD per month)",
        help_text="Committed spend paid even when usage costs less.")
    rate_limit_tokens_per_month = models.BigIntegerField(
        null=True, blank=True, verbose_name="rate limit (tokens per month)",
        help_text="Most tokens a month the API serves; empty = no limit.")

    history = HistoricalRecords()

    class Meta:
        ordering = ["scenario", "id"]
        constraints = [
            *bounds_constraints("api", API_OPTION_INPUTS),
        ]

    def __str__(self) -> str:
        return self.name or str(self.price or "API option")


# Each bounded field checks its engine input's bounds (tco/inputs.py).
bound_fields(Scenario, SCENARIO_INPUTS)
bound_fields(RentOption, RENT_OPTION_INPUTS)
bound_fields(ApiOption, API_OPTION_INPUTS)
