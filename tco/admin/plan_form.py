"""The plan form of the admin: a procurement plan's spec in labelled fields, checked as the API
checks it (``tco.services.plans``: same limits, same messages), each error on the field it is about.

Demand by growth, by a table of months or by an uploaded CSV; the scenario's system to buy with
its lead time; which of the scenario's rent options (on demand, reserved, spot) may serve and
how much of the demand spot may carry; site and budget limits; and the Monte Carlo draws.
"""
from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from costmodel.plan.inputs import PlanInputError
from costmodel.plan.spec import MAX_MONTHS
from costmodel.plan.spec import demand_from_csv
from tco.models import Scenario
from tco.services.engine_inputs import ScenarioInputError
from tco.services.evaluation import scenario_check
from tco.services.plans import MAX_DRAWS
from tco.services.plans import PlanSpecError
from tco.services.plans import scenario_plan_inputs
from tco.services.plans import seeded
from tco.services.plans import uncertainty_of

MAX_CSV_BYTES = 1_000_000
DEMAND_KINDS = [("growth", "Growing from a start by a monthly rate"),
                ("table", "Typed month by month"),
                ("csv", "From a CSV file (one number a row, or an 'accelerators' column)")]
# Spec paths (as PlanSpecError names them) -> the form field that shows their error.
FIELD_OF_PATH = {
    "demand.start": "demand_start", "demand.growth_per_month": "growth_percent_per_month",
    "demand.months": "months", "demand.table": "demand_table", "demand.csv": "demand_csv",
    "demand": "demand_table", "utilisation": "utilisation",
    "owned.0.lead_time_months": "lead_time_months", "owned.0.existing_systems": "existing_systems",
    "owned.0.service_life_months": "service_life_months", "owned": "lead_time_months",
    "rent": "rent_options", "choices": "rent_options", "spot_share_cap": "spot_share_cap",
    "limits.site_it_power_kw": "site_it_power_kw", "limits.site_racks": "site_racks",
    "limits.capex_usd_per_period": "capex_usd_per_period",
    "limits.capex_period_months": "capex_period_months",
    "limits.min_owned_share": "min_owned_share", "limits.min_rented_share": "min_rented_share",
    "uncertainty.draws": "draws", "uncertainty.growth_delta_per_month": "growth_spread_percent",
    "uncertainty.rent_price_factor": "rent_price_spread_percent",
    "term_structure": "use_term_structure",
}


class PlanForm(forms.Form):
    """A plan over one of the user's teams' scenarios; ``cleaned_data["spec"]`` is the API's spec."""

    scenario = forms.ModelChoiceField(queryset=Scenario.objects.none(),
                                      help_text="Its catalog, facility, finance and rent options.")
    name = forms.CharField(max_length=200)
    demand_kind = forms.ChoiceField(label="Demand", choices=DEMAND_KINDS, initial="growth",
                                    widget=forms.RadioSelect)
    demand_start = forms.FloatField(label="Accelerators needed in month 1", required=False, min_value=0,
                                    help_text="Empty: the scenario's accelerators.")
    growth_percent_per_month = forms.FloatField(label="Growth (% per month)", initial=0, required=False,
                                                min_value=-99.9)
    months = forms.IntegerField(label="Months planned", initial=36, min_value=1, max_value=MAX_MONTHS,
                                required=False)
    demand_table = forms.CharField(
        label="Accelerators needed, month by month", required=False,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=f"Numbers separated by commas, spaces or new lines; at most {MAX_MONTHS} months.")
    demand_csv = forms.FileField(label="Demand CSV", required=False,
                                 help_text=f"At most {MAX_CSV_BYTES:,} bytes.")
    utilisation = forms.FloatField(label="Utilisation (0-1)", required=False, min_value=0, max_value=1,
                                   help_text="Empty: the scenario's.")
    lead_time_months = forms.IntegerField(label="Lead time of a system (months)", initial=0, min_value=0,
                                          max_value=MAX_MONTHS,
                                          help_text="From order to serving; the scenario's system is bought.")
    existing_systems = forms.IntegerField(label="Systems already owned", initial=0, min_value=0)
    service_life_months = forms.IntegerField(label="Service life of a system (months)", required=False,
                                             min_value=1, help_text="Empty: kept to the end.")
    rent_options = forms.MultipleChoiceField(
        label="Rent options that may serve", required=False, widget=forms.CheckboxSelectMultiple,
        help_text="The scenario's on-demand, reserved and spot options; none ticked: all of them.")
    spot_share_cap = forms.FloatField(label="Most of the demand spot may carry (0-1)", required=False,
                                      min_value=0, max_value=1, help_text="Applies to spot options only.")
    use_term_structure = forms.BooleanField(
        label="Rent at the rental curve's terms", required=False,
        help_text="Each term of the accelerator's latest curve (on demand, 1-36 months) becomes a choice, "
                  "renewable; with none of the options above ticked, only the curve's terms serve.")
    next_generation_month = forms.IntegerField(
        label="Buy the next generation from month", required=False, min_value=0, max_value=MAX_MONTHS,
        help_text="Empty: not offered. Its price and throughput per accelerator are the strategies' "
                  "sourced defaults.")
    site_it_power_kw = forms.FloatField(label="Site IT power (kW)", required=False, min_value=0)
    site_racks = forms.FloatField(label="Site racks", required=False, min_value=0)
    capex_usd_per_period = forms.FloatField(
        label="Capex budget per period (in the scenario's reporting currency)", required=False, min_value=0)
    capex_period_months = forms.IntegerField(label="Budget period (months)", required=False, min_value=1,
                                             max_value=12)
    min_owned_share = forms.FloatField(label="Least share owned (0-1)", required=False, min_value=0,
                                       max_value=1)
    min_rented_share = forms.FloatField(label="Least share rented (0-1)", required=False, min_value=0,
                                        max_value=1)
    draws = forms.IntegerField(label="Monte Carlo draws", initial=0, min_value=0, max_value=MAX_DRAWS,
                               help_text=f"0: none; at most {MAX_DRAWS:,}. Each draws demand growth and "
                                         "rent prices from the spreads below.")
    growth_spread_percent = forms.FloatField(label="Growth spread (± % per month)", initial=2,
                                             min_value=0, required=False)
    rent_price_spread_percent = forms.FloatField(label="Rent price spread (± %)", initial=20, min_value=0,
                                                 max_value=99, required=False)

    def __init__(self, *args: Any, scenarios, scenario: Scenario | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["scenario"].queryset = scenarios
        chosen = scenario
        if self.is_bound and self.data.get("scenario"):
            chosen = scenarios.filter(pk=self.data["scenario"]).first() or scenario
        self.spot_options: set[str] = set()
        if chosen is not None:
            self.fields["scenario"].initial = chosen.pk
            try:  # the engine's names of the rent options, as the spec names them
                options = scenario_check(scenario=chosen, pinned=True).inputs.rent
            except ScenarioInputError:
                options = ()  # the scenario field shows why it cannot be planned
            self.fields["rent_options"].choices = [(option.name, option.name) for option in options]
            self.spot_options = {option.name for option in options if option.pricing_model == "spot"}

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        scenario = cleaned.get("scenario")
        if scenario is None or self.errors:
            return cleaned
        spec = self._spec(cleaned, scenario)
        try:
            scenario_plan_inputs(scenario, spec)
            uncertainty_of(seeded(spec))  # the seed is drawn when the plan is saved
        except PlanSpecError as exc:
            self._add_spec_error(exc)
        cleaned["spec"] = spec
        return cleaned

    def _spec(self, cleaned: dict[str, Any], scenario: Scenario) -> dict[str, Any]:
        spec: dict[str, Any] = {"demand": self._demand(cleaned)}
        if cleaned.get("utilisation") is not None:
            spec["utilisation"] = cleaned["utilisation"]
        owned: dict[str, Any] = {"name": scenario.system.name,
                                 "lead_time_months": cleaned["lead_time_months"],
                                 "existing_systems": cleaned["existing_systems"]}
        if cleaned.get("service_life_months"):
            owned["service_life_months"] = cleaned["service_life_months"]
        spec["owned"] = [owned]
        chosen = cleaned.get("rent_options") or [name for name, _ in self.fields["rent_options"].choices]
        spot = self.spot_options
        cap = cleaned.get("spot_share_cap")
        if cleaned.get("use_term_structure"):
            spec["term_structure"] = {}
            chosen = cleaned.get("rent_options") or []
        spec["rent"] = [{"name": name} | ({"spot_share_cap": cap} if cap is not None and name in spot else {})
                        for name in chosen]
        if cleaned.get("next_generation_month") is not None:
            spec["next_generation"] = {"available_month": cleaned["next_generation_month"]}
        limits = {name: cleaned[name] for name in ("site_it_power_kw", "site_racks", "capex_usd_per_period",
                                                   "capex_period_months", "min_owned_share",
                                                   "min_rented_share") if cleaned.get(name) is not None}
        if limits:
            spec["limits"] = limits
        if cleaned.get("draws"):
            growth = (cleaned.get("growth_spread_percent") or 0) / 100
            price = (cleaned.get("rent_price_spread_percent") or 0) / 100
            spec["uncertainty"] = {
                "draws": cleaned["draws"],
                "growth_delta_per_month": {"kind": "triangular", "low": -growth, "mode": 0, "high": growth},
                "rent_price_factor": {"kind": "triangular", "low": 1 - price, "mode": 1, "high": 1 + price},
            }
        return spec

    def _demand(self, cleaned: dict[str, Any]) -> dict[str, Any]:
        kind = cleaned.get("demand_kind")
        if kind == "table":
            text = cleaned.get("demand_table", "").replace(",", " ").split()
            if not text:
                raise ValidationError({"demand_table": "type the accelerators needed in each month"})
            try:
                return {"table": [float(value) for value in text]}
            except ValueError as exc:
                raise ValidationError({"demand_table": f"must be numbers only ({exc})"}) from exc
        if kind == "csv":
            upload = cleaned.get("demand_csv")
            if upload is None:
                raise ValidationError({"demand_csv": "choose the demand CSV file"})
            if upload.size > MAX_CSV_BYTES:
                raise ValidationError({"demand_csv": f"must be at most {MAX_CSV_BYTES:,} bytes"})
            try:
                return {"table": demand_from_csv(upload.read().decode("utf-8-sig"))}
            except UnicodeDecodeError as exc:
                raise ValidationError({"demand_csv": "must be UTF-8 text"}) from exc
            except PlanInputError as exc:
                raise ValidationError({"demand_csv": f"{exc.path}: {exc.message}"}) from exc
        demand: dict[str, Any] = {"growth_per_month": (cleaned.get("growth_percent_per_month") or 0) / 100,
                                  "months": cleaned.get("months") or 36}
        if cleaned.get("demand_start") is not None:
            demand["start"] = cleaned["demand_start"]
        return demand

    def _add_spec_error(self, exc: PlanSpecError) -> None:
        if exc.field.startswith("scenario."):
            self.add_error("scenario", f"{exc.field.removeprefix('scenario.')}: {exc.message}")
            return
        path = exc.field
        field = FIELD_OF_PATH.get(path)
        if field is None and path.startswith("rent."):
            field = "spot_share_cap" if path.endswith("spot_share_cap") else "rent_options"
        if field is None and path.startswith("demand."):
            field = "demand_table"
        if field is None and path.startswith(("term_structure.", "next_generation.")):
            field = "use_term_structure" if path.startswith("term") else "next_generation_month"
        self.add_error(field, exc.message if field else f"{path}: {exc.message}")


def initial_from_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """The form's fields of a saved spec, to edit a plan."""
    demand = spec.get("demand", {})
    initial: dict[str, Any] = {}
    if "table" in demand:
        initial |= {"demand_kind": "table", "demand_table": ", ".join(f"{v:g}" for v in demand["table"])}
    else:
        initial |= {"demand_kind": "growth", "demand_start": demand.get("start"),
                    "growth_percent_per_month": 100 * demand.get("growth_per_month", 0),
                    "months": demand.get("months", 36)}
    owned = (spec.get("owned") or [{}])[0]
    initial |= {"lead_time_months": owned.get("lead_time_months", 0),
                "existing_systems": owned.get("existing_systems", 0),
                "service_life_months": owned.get("service_life_months"),
                "utilisation": spec.get("utilisation")}
    rent = spec.get("rent") or []
    initial["rent_options"] = [item["name"] for item in rent]
    initial["spot_share_cap"] = next(
        (item["spot_share_cap"] for item in rent if "spot_share_cap" in item), None)
    initial |= dict(spec.get("limits") or {})
    initial["use_term_structure"] = "term_structure" in spec
    initial["next_generation_month"] = (spec.get("next_generation") or {}).get("available_month")
    uncertainty = spec.get("uncertainty")
    if uncertainty:
        initial["draws"] = uncertainty.get("draws", 0)
        growth = uncertainty.get("growth_delta_per_month") or {}
        price = uncertainty.get("rent_price_factor") or {}
        initial["growth_spread_percent"] = 100 * growth.get("high", 0)
        initial["rent_price_spread_percent"] = 100 * (price.get("high", 1) - 1)
    return initial
