"""Scenario serializers: CRUD with nested rent options, history and side-by-side rows.

The evaluation's output is declared in tco/api/evaluation.py."""
from __future__ import annotations

from typing import Any

from rest_framework import serializers

import costmodel as engine
from catalog.api.serializers import VisibleOfferingField
from catalog.models import Accelerator
from catalog.models import FacilityProfile
from catalog.models import SystemSku
from core.currency import Currency
from core.limits import MAX_CURVE_POINTS
from sites.models import Site
from tco.inputs import SCENARIO_INPUTS
from tco.inputs import UNBOUNDED_INPUTS
from tco.models import ApiOption
from tco.models import RentOption
from tco.models import Scenario
from tco.models.scenario import CHEAPEST_REGION_WITH_PRICE
from tco.services.sizing_spec import SizingSpecSerializer
from teams.models import Team
from teams.selectors import DEFAULT_TEAM_RULE
from teams.selectors import teams_of


class BoundedListField(serializers.ListField):
    """A list refused by its length before any item is read, with a message naming the limit."""

    def __init__(self, *args: Any, limit_name: str, **kwargs: Any) -> None:
        self.limit_name = limit_name
        super().__init__(*args, **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, list) and self.max_length is not None and len(data) > self.max_length:
            raise serializers.ValidationError(
                f"{len(data):,} items; {self.limit_name} is {self.max_length}")
        return super().to_internal_value(data)


class RentOptionSerializer(serializers.ModelSerializer):
    offering = VisibleOfferingField()

    class Meta:
        model = RentOption
        fields = ["id", "name", "offering", "cheapest_region", "price_usd_per_instance_hour",
                  "equivalence_factor", "equivalence_from_throughput", "commitment_months",
                  "billing_basis", "upfront_usd", "spot_interruption_overhead", "egress_tb_per_month",
                  "egress_usd_per_gb", "storage_tb", "storage_usd_per_gb_month",
                  "price_change_per_year", "spot_interruptions_per_hour", "grid_kg_co2e_per_kwh"]
        read_only_fields = ["id"]


    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs.get("cheapest_region") and attrs.get("price_usd_per_instance_hour") is not None:
            raise serializers.ValidationError({"cheapest_region": [CHEAPEST_REGION_WITH_PRICE]})
        return attrs


class ApiOptionSerializer(serializers.ModelSerializer):
    """Paying a model API per token: a catalog price row (by id) and/or prices given here; a
    price left empty comes from the row."""

    class Meta:
        model = ApiOption
        fields = ["id", "name", "price", "usd_per_million_input", "usd_per_million_cached_input",
                  "usd_per_million_output", "price_change_per_year", "minimum_usd_per_month",
                  "rate_limit_tokens_per_month"]
        read_only_fields = ["id"]


# Scenario fields that are no numeric input: the tax depreciation method (costmodel/tax.py) and
# the basis the verdict ranks on.
MONEY_TERMS = ("tax_depreciation", "verdict_basis")
UNKNOWN_CURRENCY = ('"{input}" is not an ISO 4217 currency this service knows; use one of '
                    + ", ".join(Currency.values) + ", or leave it empty")


class ScenarioSerializer(serializers.ModelSerializer):
    """A scenario as budgeting tools send it; catalog rows are named by slug (offerings by id).

    It shapes input and output only: the scenario services pick the team and refuse, naming
    the field, a scenario that cannot be evaluated (answered with a 400).
    """

    accelerator = serializers.SlugRelatedField(slug_field="slug", queryset=Accelerator.objects.all())
    system = serializers.SlugRelatedField(slug_field="slug", queryset=SystemSku.objects.all())
    facility = serializers.SlugRelatedField(slug_field="slug",
                                            queryset=FacilityProfile.objects.all())
    site = serializers.SlugRelatedField(
        slug_field="slug", queryset=Site.objects.all(), required=False, allow_null=True,
        help_text="The site the systems run at (by slug): its prices and racks' power fill what "
                  "the scenario leaves empty, and a build over its feeds is warned about.")
    rent_options = RentOptionSerializer(many=True, max_length=engine.MAX_RENT_OPTIONS)
    api_options = ApiOptionSerializer(
        many=True, required=False, max_length=engine.MAX_RENT_OPTIONS,
        help_text="Per-token API options compared with (the scenario needs "
                  "tokens_per_s_per_accelerator); left out of an edit = kept as they are.")
    residual_curve = BoundedListField(
        child=serializers.ListField(child=serializers.FloatField(), min_length=2, max_length=2),
        required=False, allow_null=True, max_length=MAX_CURVE_POINTS, limit_name="the curve limit",
        help_text="Resale value by age: [[month, share], ...], months increasing, shares never "
                  "rising; empty = the decline rate, else residual_value_share.")
    owner = serializers.StringRelatedField(read_only=True, allow_null=True,
                                           help_text="Who created it; null for the demo ones.")
    team = serializers.SlugRelatedField(
        slug_field="slug", queryset=Team.objects.all(), required=False,
        help_text="The team the scenario belongs to (by slug). " + DEFAULT_TEAM_RULE + " Only its "
                  "members see the scenario; it cannot move to another team.")
    approved_by = serializers.StringRelatedField(read_only=True, allow_null=True)
    revision = serializers.IntegerField(
        required=False, min_value=1,
        help_text="Bumped by every save (also the ETag). An edit must name the revision it was "
                  "made on, here or in If-Match; a stale one answers 409.")
    sizing = SizingSpecSerializer(required=False, allow_null=True, help_text=(
        "Workload sizing on the scenario's accelerator (the spec of POST /api/v1/sizing/ "
        "without accelerator and price): gives accelerators, and tokens_per_s_per_accelerator "
        "for inference, when they are empty."))

    class Meta:
        model = Scenario
        # Every engine input the scenario sets (tco/inputs.py) is a field; a new one is added there.
        fields = [
            "id", "team", "owner", "status", "version", "previous_version", "approved_by",
            "approved_at", "revision", "name", "description", "created_at", "updated_at",
            "prices_as_of", "price_range_point", "currency", "reporting_currency", "rates_as_of",
            "starts_on", "accelerator", "precision", "sizing", "system", "facility", "site",
            *SCENARIO_INPUTS, *UNBOUNDED_INPUTS, *MONEY_TERMS, "rent_options", "api_options",
        ]
        read_only_fields = ["id", "owner", "status", "version", "previous_version", "approved_at",
                            "created_at", "updated_at"]
        extra_kwargs = {name: {"error_messages": {"invalid_choice": UNKNOWN_CURRENCY}}
                        for name in ("currency", "reporting_currency")}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        request = self.context.get("request")
        if request is not None:  # none when the schema is generated
            self.fields["team"].queryset = teams_of(request.user)


class ScenarioSummarySerializer(serializers.ModelSerializer):
    """A scenario in a list: what tells it apart, and where its details are (``url``). Its
    inputs, curves and options are on the scenario itself, so a page of the list stays small
    however large each scenario is."""

    url = serializers.HyperlinkedIdentityField(view_name="scenario-detail")
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    owner = serializers.StringRelatedField(read_only=True, allow_null=True)
    accelerator = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    system = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    facility = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    rent_options = serializers.IntegerField(source="rent_option_count", read_only=True,
                                            help_text="How many rent options it compares.")
    api_options = serializers.IntegerField(source="api_option_count", read_only=True,
                                           help_text="How many per-token API options it compares.")

    class Meta:
        model = Scenario
        fields = ["id", "url", "team", "owner", "status", "version", "revision", "name",
                  "created_at", "updated_at", "accelerator", "accelerators", "system", "facility",
                  "horizon_months", "rent_options", "api_options"]
        read_only_fields = fields


class FieldChangeSerializer(serializers.Serializer):
    """One input that changed: ``rent_options[0].price_usd_per_instance_hour`` old -> new."""

    field = serializers.CharField()
    old = serializers.CharField(allow_null=True)
    new = serializers.CharField(allow_null=True)


class HistoryRecordSerializer(serializers.Serializer):
    """One recorded save of a scenario: who, when, which revision, and what it changed."""

    history_id = serializers.IntegerField(source="record.history_id")
    scenario = serializers.IntegerField(source="record.id")
    history_date = serializers.DateTimeField(source="record.history_date")
    history_type = serializers.ChoiceField(
        source="record.history_type", choices=[("+", "created"), ("~", "changed"), ("-", "deleted")])
    history_user = serializers.StringRelatedField(source="record.history_user", allow_null=True)
    version = serializers.IntegerField(source="record.version")
    revision = serializers.IntegerField(source="record.revision")
    status = serializers.CharField(source="record.status")
    changes = FieldChangeSerializer(many=True, help_text="Inputs that differ from the save "
                                                         "before; empty for the first.")


class SideBySideOptionSerializer(serializers.Serializer):
    """One option of a scenario, cheapest first (money in the scenario's ``currency``)."""

    kind = serializers.ChoiceField(choices=["buy", "rent", "api"])
    label = serializers.CharField(help_text='"Buy", "Rent <option>" or "Pay per token: <option>".')
    npv_usd = serializers.FloatField(help_text="NPV of its costs, in ``currency``.")
    total_usd = serializers.FloatField(help_text="Its costs over the horizon, in ``currency``.")
    margin_over_winner_usd = serializers.FloatField(help_text="How much more it costs than the winner (NPV).")
    cost_per_accelerator_hour_usd = serializers.FloatField(allow_null=True)
    cost_per_million_tokens_usd = serializers.FloatField(allow_null=True)


class SideBySideSerializer(serializers.Serializer):
    """One scenario's key figures in a side-by-side view (money in ``currency``, the same for
    every scenario shown; null = none or never). The v1 names ending ``_usd`` are amounts in
    ``currency``; ``cheapest_rent`` and ``rent_*`` are buying's rival, the cheapest option other
    than buying (a rent option or a per-token API)."""

    scenario_id = serializers.IntegerField()
    name = serializers.CharField()
    version = serializers.IntegerField()
    status = serializers.CharField(help_text='As people read it: "Draft" or "Approved (frozen)".')
    horizon_months = serializers.IntegerField()
    winner = serializers.CharField(help_text="The cheapest of every option by NPV, as the verdict names it.")
    margin_usd = serializers.FloatField(allow_null=True,
                                        help_text="The winner's margin over the next cheapest (NPV).")
    options = SideBySideOptionSerializer(many=True, help_text="Every option, cheapest first.")
    left_out = serializers.ListField(child=serializers.CharField(),
                                     help_text="Options that could not be costed, each with the reason.")
    buy_total_usd = serializers.FloatField()
    buy_npv_usd = serializers.FloatField()
    cheapest_rent = serializers.CharField(help_text="The cheapest option but buying (rent or per-token).")
    rent_npv_usd = serializers.FloatField(allow_null=True, help_text="The NPV of that option.")
    npv_saving_usd = serializers.FloatField(allow_null=True, help_text="Its NPV minus buying's.")
    breakeven_month = serializers.FloatField(allow_null=True,
                                             help_text="Buying breaks even against it (discounted).")
    buy_cost_per_useful_accelerator_hour_usd = serializers.FloatField(allow_null=True)
    buy_cost_per_million_tokens_usd = serializers.FloatField(allow_null=True)
    buy_goodput_share = serializers.FloatField(allow_null=True)
    buy_tonnes_co2e_per_year = serializers.FloatField()
    buy_cumulative_usd = serializers.ListField(child=serializers.FloatField())
    rent_cumulative_usd = serializers.ListField(child=serializers.FloatField())
    currency = serializers.CharField(help_text="The reporting currency of the money figures (ISO 4217).")


class ApprovalSerializer(serializers.Serializer):
    """What an approver may send with an approval: a comment for the history and the words of
    each warning they acknowledge (when sent, every warning of the evaluation must be in it)."""

    comment = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    acknowledged_warnings = serializers.ListField(
        child=serializers.CharField(), required=False,
        help_text="The message of each warning acknowledged, as POST .../evaluate/ gives them.")
