"""The evaluation as API v1 returns it: every figure declared here, typed in the schema.

The engine's result dataclasses (costmodel/result.py) are walked into a dict by
``Evaluation.to_dict``; these serializers name each key of that dict, so renaming or adding an
engine figure fails tests/tco/test_evaluation_output.py instead of changing API v1 unseen.
Labels and units come from the engine's vocabulary. A batch of one: a figure is one number,
a monthly line a list (month 0 first); null is "none" or "never" (NaN or infinity).
"""
from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from costmodel.vocabulary import RESULTS
from costmodel.vocabulary import WHOLE_KINDS
from costmodel.vocabulary import Kind
from tco.api.alerts import PriceAlertSerializer
from tco.api.sizing import SizingResultSerializer


class FigureField(serializers.FloatField):
    """A number as the engine gave it (a whole one stays whole); null = none or never."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(allow_null=True, **kwargs)

    def to_representation(self, value: Any) -> Any:
        return value


def figure(path: str, help_text: str = "") -> serializers.Field:
    """The field of a result figure, typed and described by its vocabulary term when it has one
    (``rent.breakeven_month`` is a whole month, "Breakeven (month)")."""
    term = RESULTS.get(path)
    if term is None:
        return FigureField(help_text=help_text)
    help_text = help_text or term.heading()
    if term.kind in WHOLE_KINDS:
        return serializers.IntegerField(allow_null=True, help_text=help_text)
    if term.kind == Kind.TEXT:
        return serializers.CharField(help_text=help_text)
    if term.kind == Kind.FLAG:
        return serializers.BooleanField(help_text=help_text)
    return FigureField(help_text=help_text)


def monthly(help_text: str) -> serializers.ListField:
    """A line over the months, month 0 first [USD]."""
    return serializers.ListField(child=FigureField(), allow_null=True, help_text=help_text)


class FiguresSerializer(serializers.Serializer):
    """Result figures named once: ``figures`` lists them in output order, each typed by its
    vocabulary term ``<prefix>.<name>``; a field declared on the class (a nested serializer, or
    one with its own help) takes its name's place."""

    prefix = ""
    figures: tuple[str, ...] = ()

    def get_fields(self) -> dict[str, serializers.Field]:
        declared = super().get_fields()
        return {name: declared[name] if name in declared else figure(f"{self.prefix}.{name}")
                for name in self.figures}


@extend_schema_field(SizingResultSerializer)
class SizingField(serializers.JSONField):
    """The scenario's sizing as POST /api/v1/sizing/ returns it."""


class CashFlowsSerializer(serializers.Serializer):
    lines_usd = serializers.DictField(child=serializers.ListField(child=FigureField()),
                                      help_text="Each cost line by name, per month [USD].")
    per_month_usd = monthly("Total per month [USD].")
    cumulative_usd = monthly("Running total [USD].")


class GoodputSerializer(serializers.Serializer):
    share = FigureField(help_text="Share of paid accelerator-hours doing useful work.")
    efficiency = FigureField(help_text="Share of busy hours not lost to failures and "
                                       "checkpoints.")
    checkpoint_interval_h = FigureField(help_text="Checkpoint interval used [h]; null = never.")
    mtbf_h = FigureField(help_text="Mean time between failures of one job [h].")


class ResidualSerializer(serializers.Serializer):
    resale_share = FigureField(help_text="Resale value at the horizon, share of the price.")
    resale_value_usd = FigureField(help_text="Resale value at the horizon [USD].")
    book_value_usd = FigureField(help_text="Book value at the horizon [USD].")


class EmissionsSerializer(serializers.Serializer):
    kwh_per_month = FigureField(help_text="[kWh/month]")
    grid_kg_co2e_per_kwh = FigureField(help_text="[kg CO2e/kWh]")
    tonnes_per_year = FigureField(help_text="[t CO2e/year]")
    embodied_tonnes = FigureField(help_text="[t CO2e]")
    total_tonnes = FigureField(help_text="Over the horizon [t CO2e].")
    tonnes_per_million_tokens = FigureField(help_text="[t CO2e]; null without a throughput.")


class BuyResultSerializer(serializers.Serializer):
    cash_flows = CashFlowsSerializer()
    capex_usd = serializers.DictField(child=FigureField(),
                                      help_text="Each capex line before financing [USD].")
    total_capex_usd = figure("buy.total_capex_usd")
    depreciation_usd_per_month = figure("buy.depreciation_usd_per_month")
    depreciation_line_usd = monthly("Straight-line depreciation per month (accounting view, in "
                                    "no cash total) [USD].")
    total_usd = figure("buy.total_usd")
    npv_usd = figure("buy.npv_usd")
    cost_per_useful_accelerator_hour_usd = figure("buy.cost_per_useful_accelerator_hour_usd")
    cost_per_million_tokens_usd = figure("buy.cost_per_million_tokens_usd")
    goodput = GoodputSerializer()
    residual = ResidualSerializer()
    carbon = EmissionsSerializer()


class RentResultSerializer(FiguresSerializer):
    """One rent option: its cost and what buying saves against it."""

    prefix = "rent"
    figures = (
        "name", "pricing_model", "equivalence_factor", "accelerators_rented", "instances",
        "cash_flows", "total_usd", "npv_usd", "cost_per_useful_accelerator_hour_usd",
        "cost_per_million_tokens_usd", "saving_usd", "npv_saving_usd", "breakeven_month",
        "breakeven_utilisation", "irr_per_year", "goodput", "carbon", "utilisation_slope_usd",
    )
    cash_flows = CashFlowsSerializer()
    saving_usd = figure("rent.saving_usd", "Rent minus buy: positive means buying saves [USD].")
    npv_saving_usd = figure("rent.npv_saving_usd",
                            "Rent NPV minus buy NPV: positive means buying saves [USD].")
    goodput = GoodputSerializer()
    carbon = EmissionsSerializer()


class ApiResultSerializer(serializers.Serializer):
    name = serializers.CharField()
    cash_flows = CashFlowsSerializer()
    total_usd = FigureField(help_text="[USD]")
    npv_usd = FigureField(help_text="[USD]")
    blended_usd_per_million_tokens = FigureField(help_text="Price for the token mix [USD].")
    cost_per_million_tokens_usd = FigureField(help_text="[USD]")
    within_rate_limit = serializers.BooleanField()
    saving_by_buying_usd = FigureField(help_text="API minus buy [USD].")
    breakeven_tokens_per_month_buy = FigureField(
        help_text="Above this volume buying costs less; null = never within the fleet.")
    breakeven_utilisation_buy = FigureField()
    breakeven_tokens_per_month_rent = serializers.DictField(
        child=FigureField(), help_text="The same against each rent option, by name.")


class FootprintSerializer(FiguresSerializer):
    """The bought fleet in the building: systems, racks, power and cooling."""

    prefix = "footprint"
    figures = (
        "accelerators_bought", "systems", "system_power_max_kw", "system_power_idle_kw",
        "systems_per_rack", "racks", "kw_per_rack", "it_kw_max", "it_kw_average",
        "facility_kw_max", "facility_kw_average", "mwh_per_year", "cooling_tier_index",
        "cooling_tier_name", "needs_new_cooling", "cooling_capex_usd_per_kw",
        "cooling_opex_usd_per_kw_month", "warnings",
    )
    warnings = serializers.DictField(child=serializers.BooleanField(),
                                     help_text="Each footprint flag: true = raised.")


class RentSummarySerializer(FiguresSerializer):
    """Buying against one rent option, in headline figures."""

    prefix = "summary"
    figures = (
        "breakeven_month", "npv_saving_usd", "saving_usd",
        "cost_per_useful_accelerator_hour_buy_usd", "cost_per_useful_accelerator_hour_rent_usd",
        "winner",
    )
    winner = serializers.ChoiceField(choices=["buy", "rent"], help_text="The lower NPV.")


class StandingSerializer(serializers.Serializer):
    """One option in the verdict."""

    kind = serializers.CharField(help_text="buy, rent or api (a per-token API).")
    name = serializers.CharField()
    label = serializers.CharField(help_text="As the page and the reports name it: 'Buy', 'Rent X', "
                                            "'Pay per token: X'.")
    npv_usd = serializers.FloatField(help_text="NPV of its costs, in the verdict's ``currency``.")
    total_usd = serializers.FloatField(help_text="Its costs in cash over the horizon, in ``currency``.")
    breakeven_month = serializers.IntegerField(
        allow_null=True, help_text="The month buying breaks even against it, discounted as the "
                                   "NPVs are; null = never, or buying itself.")
    cost_per_accelerator_hour = serializers.FloatField(
        allow_null=True, help_text="Per useful accelerator-hour, in ``currency``; null for a per-token API.")
    cost_per_million_tokens = serializers.FloatField(
        allow_null=True, help_text="Per million tokens, in ``currency``; null without a token rate.")


class RankedStandingSerializer(StandingSerializer):
    margin_over_winner = serializers.FloatField(help_text="How much more it costs than the cheapest (NPV).")


class LeftOutSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="buy, rent or api (a per-token API).")
    name = serializers.CharField()
    reason = serializers.CharField()


class VerdictSerializer(serializers.Serializer):
    """The cheapest of every option given, by NPV of costs: the same words as the page, the
    list, the chart, the PDF and the workbook."""

    currency = serializers.CharField(help_text="The currency of every amount of the verdict (ISO 4217): "
                                               "the scenario's reporting currency.")
    cheapest = StandingSerializer()
    runner_up = StandingSerializer(allow_null=True, help_text="The next cheapest; null when buying "
                                                              "is the only option.")
    margin_usd = serializers.FloatField(allow_null=True, help_text="Runner-up NPV minus the "
                                                                   "cheapest's, in ``currency``.")
    breakeven_month = serializers.IntegerField(
        allow_null=True, help_text="Buying's discounted breakeven against the cheapest other "
                                   "option; null = never or no other option.")
    horizon_months = serializers.IntegerField()
    basis = serializers.ChoiceField(choices=["pre_tax", "after_tax"], help_text=(
        "What every figure of the verdict is: before tax, or after tax (the scenario's "
        "verdict_basis, else its team's, else after tax once a tax rate is entered)."))
    sentence = serializers.CharField()
    options = RankedStandingSerializer(many=True, help_text="Every ranked option, cheapest first.")
    left_out = LeftOutSerializer(many=True, help_text="Options that could not be ranked, and why.")


class EvaluationResultSerializer(serializers.Serializer):
    months = serializers.ListField(child=serializers.IntegerField(), help_text="0 to the horizon.")
    horizon_months = figure("horizon_months")
    footprint = FootprintSerializer()
    buy = BuyResultSerializer()
    rent = RentResultSerializer(many=True)
    tokens_per_month = FigureField(help_text="Tokens the workload produces a month; null = not "
                                             "a token workload.")
    api = ApiResultSerializer(many=True)
    summary = serializers.DictField(child=RentSummarySerializer(),
                                    help_text="Each rent option against buying, by name.")
    recommendation = serializers.CharField(allow_null=True)
    verdict = VerdictSerializer(allow_null=True, help_text="Every option ranked by NPV of costs.")


class InputAssumptionSerializer(serializers.Serializer):
    """One engine input: its value and where it came from."""

    path = serializers.CharField(help_text="The engine input, e.g. buy.system_price_usd.")
    value = FigureField()
    unit = serializers.CharField()
    origin = serializers.ChoiceField(choices=["scenario", "catalog", "site", "sizing", "default"])
    source = serializers.CharField()
    as_of = serializers.DateField(allow_null=True)
    source_keys = serializers.ListField(
        child=serializers.CharField(), help_text="The catalog sources it came from, by key "
                                                 "(see /api/v1/sources/).")


class PriceUsedSerializer(serializers.Serializer):
    """A catalog price point the evaluation used."""

    price_point_id = serializers.IntegerField()
    target = serializers.CharField(help_text="What it prices, as people name it: a system or an "
                                             "offering (provider, instance, region, pricing).")
    amount = serializers.CharField(help_text="The price as a decimal string.")
    currency = serializers.CharField()
    as_of = serializers.DateField(help_text="The date the price is in force from.")
    source = serializers.CharField()
    path = serializers.CharField(help_text="The engine input it priced, e.g. "
                                           "rent.0.price_usd_per_instance_hour.")
    checked_on = serializers.DateField(
        allow_null=True, help_text="The last day a price refresh found it current; its age runs "
                                   "from the later of this and as_of.")


class RateUsedSerializer(serializers.Serializer):
    """An exchange rate money was converted at: 1 base = rate quote on a day."""

    base = serializers.CharField(help_text="ISO 4217 code of the currency priced.")
    quote = serializers.CharField(help_text="ISO 4217 code of the currency it is priced in.")
    rate = serializers.CharField(help_text="Units of quote per unit of base, a decimal string.")
    on = serializers.DateField(help_text="The day of the rate.")
    source = serializers.CharField()
    id = serializers.IntegerField(allow_null=True, help_text="The stored rate's id.")


def _per_month(help_text: str) -> serializers.ListField:
    return serializers.ListField(child=serializers.FloatField(), help_text=help_text)


class AfterTaxFlowsSerializer(serializers.Serializer):
    """One option's costs before and after tax (costs positive, to the cent)."""

    total_pre_tax_usd = serializers.FloatField()
    total_after_tax_usd = serializers.FloatField()
    npv_pre_tax_usd = serializers.FloatField()
    npv_after_tax_usd = serializers.FloatField()
    tax_shield_usd = serializers.FloatField(help_text="What the deductions save over the horizon.")
    pre_tax_per_month_usd = _per_month("Months 0..H before tax.")
    tax_shield_per_month_usd = _per_month("Tax rate x deductions each month (the tax on the "
                                          "sale's gain negative at the horizon).")
    after_tax_per_month_usd = _per_month("Pre-tax minus the shield.")


class RentAfterTaxSerializer(AfterTaxFlowsSerializer):
    name = serializers.CharField()
    breakeven_month = serializers.IntegerField(allow_null=True, help_text=(
        "First month whose running after-tax cost of buying is no more than renting's; null = "
        "never."))


class WayToPaySerializer(AfterTaxFlowsSerializer):
    way = serializers.ChoiceField(choices=["cash", "loan", "finance_lease", "operating_lease"])
    description = serializers.CharField()


class AfterTaxSerializer(serializers.Serializer):
    """Book and tax depreciation, the tax shield and after-tax figures; the ways to pay."""

    convention = serializers.CharField(help_text="How the figures are counted, in words.")
    tax_rate = serializers.FloatField()
    tax_depreciation = serializers.CharField()
    tax_depreciation_shares_by_year = serializers.ListField(child=serializers.FloatField())
    book_depreciation_usd = _per_month("Straight line over the book life, months 0..H.")
    tax_depreciation_usd = _per_month("The tax schedule, months 0..H.")
    buy = AfterTaxFlowsSerializer(help_text="Buying, paid as the scenario says (cash or loan).")
    rent = RentAfterTaxSerializer(many=True)
    api = RentAfterTaxSerializer(many=True, help_text="Each per-token API, expensed when paid.")
    ways_to_pay = WayToPaySerializer(many=True, help_text=(
        "Cash, the loan (when financed), and the leases given, side by side."))


class ContractCostSerializer(serializers.Serializer):
    """A rent option at list and at contracted prices (FOCUS ListCost and ContractedCost)."""

    option = serializers.CharField()
    book = serializers.CharField(allow_null=True, help_text="The contract price book applied; "
                                                            "null = list price (or a private quote).")
    terms = serializers.CharField(allow_null=True)
    list_cost_usd = serializers.FloatField(help_text="Over the horizon at list prices.")
    contracted_cost_usd = serializers.FloatField(help_text="Over the horizon at contracted prices "
                                                           "(the option's total).")
    unused_commitment_usd = serializers.FloatField(help_text="Savings-plan commitment paid for "
                                                             "nothing.")


class LeaseSerializer(serializers.Serializer):
    payment_per_month = serializers.FloatField()
    term_months = serializers.IntegerField()
    buyout = serializers.FloatField(help_text="Paid at the end of a finance lease; 0 otherwise.")


class LeasesSerializer(serializers.Serializer):
    """The leases compared with cash and the loan; null where the scenario gives none."""

    finance = LeaseSerializer(allow_null=True)
    operating = LeaseSerializer(allow_null=True)


class EvaluationWarningSerializer(serializers.Serializer):
    """One warning of the evaluation: the same list the page, the approval page, the PDF and the
    workbook show."""

    code = serializers.CharField()
    message = serializers.CharField()
    severity = serializers.ChoiceField(choices=["warning", "info"], help_text=(
        "warning: the figures may mislead, check before signing; info: an assumption that "
        "decides them, stated."))


class OptionFiguresSerializer(serializers.Serializer):
    """Buying against one rent option, in brief."""

    name = serializers.CharField()
    winner = serializers.ChoiceField(choices=["buy", "rent"], help_text="Cheaper by NPV.")
    breakeven_month = figure("rent.breakeven_month")
    saving_usd = figure("rent.saving_usd")
    npv_saving_usd = figure("rent.npv_saving_usd")


class TodaysPricesSerializer(serializers.Serializer):
    """An approved scenario evaluated on today's catalog prices."""

    prices_as_of = serializers.DateField()
    differs = serializers.BooleanField(help_text="Whether the figures differ from the approved ones.")
    options = OptionFiguresSerializer(many=True)
    prices = PriceUsedSerializer(many=True)
    rates = RateUsedSerializer(many=True)


class PinnedSerializer(serializers.Serializer):
    """An approved scenario's pinned answer and, beside it, the answer at today's prices."""

    pinned_at = serializers.DateTimeField(help_text="When the inputs were pinned (approval).")
    options = OptionFiguresSerializer(many=True, help_text="The approved figures.")
    at_todays_prices = TodaysPricesSerializer(allow_null=True, help_text=(
        "null when today's catalog cannot evaluate it (at_todays_prices_error says why)."))
    at_todays_prices_error = serializers.CharField(allow_blank=True)
    price_alerts = PriceAlertSerializer(many=True, required=False, help_text=(
        "Alerts raised since approval: today's prices flipped the winner or moved breakeven "
        "by the configured months."))


class BillingSerializer(serializers.Serializer):
    """How one rent option is billed."""

    name = serializers.CharField()
    basis = serializers.ChoiceField(choices=["every hour held", "hours used"])
    why = serializers.CharField(help_text="Reserved, chosen for the option, or the pricing model's "
                                          "default.")
class PricedForSerializer(serializers.Serializer):
    """Whose prices an unsaved evaluation used (the team saving the same body would pick)."""

    team = serializers.CharField(allow_null=True, help_text="The team's slug; null: no team.")
    prices = serializers.CharField(help_text="In words: the team's quotes beside public prices, "
                                             "or public prices only.")


class ApiKindCostSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="input, cached input or output")
    tokens_per_month = serializers.FloatField(help_text="The fleet's tokens of this kind a month.")
    price_per_million = serializers.FloatField(help_text="The API's first-year price of a "
                                                         "million of them [currency].")
    cost_per_month = serializers.FloatField(help_text="[currency a month]")


class ApiAtFleetTokensSerializer(serializers.Serializer):
    api = serializers.CharField()
    currency = serializers.CharField(help_text="ISO 4217 code of the prices and costs.")
    cost_per_month = serializers.FloatField(help_text="The three kinds' bills summed "
                                                      "[currency a month].")
    kinds = ApiKindCostSerializer(many=True)


class EvaluationSerializer(serializers.Serializer):
    """The result of an evaluation: summary, monthly lines, footprint, assumptions, prices."""

    engine_version = serializers.CharField()
    currency = serializers.CharField(help_text="ISO 4217 code every money figure is in (the "
                                               "engine's names say usd for it).")
    rates = RateUsedSerializer(many=True, help_text="The exchange rates money was converted at.")
    result = EvaluationResultSerializer()
    after_tax = AfterTaxSerializer(allow_null=True)
    contracts = ContractCostSerializer(many=True, help_text=(
        "Each rent option at list and at contracted prices, with its price book."))
    leases = LeasesSerializer(help_text=(
        "The finance lease and the operating lease compared (null = not given), in the "
        "reporting currency."))
    assumptions = InputAssumptionSerializer(many=True)
    prices = PriceUsedSerializer(many=True)
    warnings = EvaluationWarningSerializer(many=True)
    billing = BillingSerializer(many=True, help_text="How each rent option is billed.")
    api_at_fleet_tokens = ApiAtFleetTokensSerializer(many=True, help_text=(
        "Each per-token API billed for the tokens the fleet produces a month, input, cached "
        "input and output at the scenario's mix: like for like with the fleet's cost."))
    sizing = SizingField(required=False, help_text="The scenario's sizing, when it has one.")
    pinned = PinnedSerializer(required=False, help_text="An approved scenario only.")
    priced_for = PricedForSerializer(required=False, help_text="POST /evaluate/ only.")
