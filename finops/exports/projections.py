"""The projected cost series of a saved scenario's options and of a solved plan, for FOCUS.

    frame = scenario_focus(scenario)            # every option of the scenario
    frame = plan_focus(plan)                    # the plan's sources (owned, reserved, on demand, spot)

An approved scenario is projected with the inputs pinned at its approval, from its approval's
calendar month; a draft from the current month; a plan from the month it was made. ``start``
(any date in the month) overrides that.
"""
from __future__ import annotations

from datetime import date
from typing import Any

import numpy as np
import pandas as pd
from django.utils import timezone

import costmodel as engine
from catalog.models import PricePoint
from costmodel.rent import billed_hours_per_month
from costmodel.rent import instances_needed
from finops.exports.focus import OWNED_PROVIDER
from finops.exports.focus import Billing
from finops.exports.focus import CostSeries
from finops.exports.focus import Source
from finops.exports.focus import focus_frame
from finops.exports.focus import focus_rows
from tco.models import ProcurementPlan
from tco.models import Scenario
from tco.models import ScenarioSnapshot
from tco.services.engine_inputs import reporting_currency
from tco.services.evaluation import Evaluation
from tco.services.evaluation import scenario_evaluate

BUY_OPTION = "Buy"
PLAN_OWNED_CATEGORIES = ("capex", "energy", "facility", "support", "staff", "licences", "residual_value")
PLAN_RENT_CATEGORIES = ("reserved", "on_demand", "spot")


def projection_start(scenario: Scenario, start: date | None = None) -> date:
    """Month 0's calendar month: ``start``'s, else the approval's, else this month."""
    if start is None:
        start = timezone.localdate(scenario.approved_at) if scenario.approved_at else timezone.localdate()
    return start.replace(day=1)


def scenario_billing(scenario: Scenario, start: date | None = None, *,
                     plan_id: int | None = None) -> Billing:
    snapshot = (ScenarioSnapshot.objects.filter(scenario=scenario).order_by("-created_at", "-id")
                .values_list("pk", flat=True).first())
    return Billing(team_slug=scenario.team.slug, team_name=scenario.team.name, scenario_id=scenario.pk,
                   scenario_name=scenario.name, scenario_version=scenario.version,
                   start=projection_start(scenario, start), plan_id=plan_id, price_snapshot_id=snapshot,
                   currency=reporting_currency(scenario))


def scenario_focus(scenario: Scenario, *, start: date | None = None,
                   evaluation: Evaluation | None = None) -> pd.DataFrame:
    """FOCUS rows of every option of a saved scenario (its own evaluation, pinned if approved)."""
    evaluation = evaluation or scenario_evaluate(scenario=scenario)
    return focus_frame(focus_rows(scenario_billing(scenario, start), scenario_series(scenario, evaluation)))


def scenario_series(scenario: Scenario, evaluation: Evaluation) -> list[CostSeries]:
    """Buying's lines and depreciation, each rent option's and each API's lines."""
    result, inputs = evaluation.result, evaluation.inputs
    return [*_buy_series(scenario, result, inputs), *_rent_series(scenario, evaluation),
            *_api_series(scenario, result)]


def _flat(values: Any) -> np.ndarray:
    return np.reshape(np.asarray(values, dtype=np.float64), -1)


def _buy_series(scenario: Scenario, result: engine.Result, inputs: engine.Scenario) -> list[CostSeries]:
    buy, footprint = result.buy, result.footprint
    months = len(result.months)
    source = Source(option=BUY_OPTION, kind="owned", provider=OWNED_PROVIDER,
                    region_id=scenario.facility.slug, sku_id=scenario.system.slug,
                    gpu_count=int(inputs.buy.accelerators_per_system),
                    useful_life_months=int(inputs.buy.depreciation_months))
    per_month = {"capex_systems": np.full(months, float(footprint.systems)),
                 "energy": np.full(months, float(buy.carbon.kwh_per_month))}
    series = [CostSeries(source, name, _flat(values), per_month.get(name))
              for name, values in buy.cash_flows.lines_usd.items()]
    gpu_hours = float(footprint.accelerators_bought) * float(inputs.workload.hours_per_month)
    series.append(CostSeries(source, "depreciation", _flat(buy.depreciation_line_usd),
                             np.full(months, gpu_hours), effective_only=True))
    return series


def _rent_series(scenario: Scenario, evaluation: Evaluation) -> list[CostSeries]:
    result, inputs = evaluation.result, evaluation.inputs
    points = {price.path: price.price_point_id for price in evaluation.prices}
    series = []
    for index, (stored, option, rent) in enumerate(zip(scenario.rent_options.select_related("offering"),
                                                        inputs.rent, result.rent, strict=True)):
        point_id = points.get(f"rent.{index}.price_usd_per_instance_hour")
        offering = stored.offering
        if point_id is not None:  # in its cheapest region, the region whose price was used
            offering = PricePoint.objects.select_related("offering").get(pk=point_id).offering
        source = Source(option=rent.name, kind=rent.pricing_model, provider=offering.get_provider_display(),
                        region_id=offering.region, sku_id=offering.instance_type,
                        sku_price_id=None if point_id is None else f"price-point-{point_id}",
                        resource_type="GPU instance", gpu_count=offering.accelerators_per_instance)
        instance_hours = float(instances_needed(rent.accelerators_rented, option.accelerators_per_instance)
                               * billed_hours_per_month(option, inputs.workload))
        months = len(result.months)
        quantities = {"compute": np.full(months, instance_hours)}
        series += [CostSeries(source, name, _flat(values), quantities.get(name))
                   for name, values in rent.cash_flows.lines_usd.items()]
    return series


def _api_series(scenario: Scenario, result: engine.Result) -> list[CostSeries]:
    series = []
    for stored, api in zip(scenario.api_options.select_related("price"), result.api, strict=True):
        provider = stored.price.provider if stored.price else "Model API"
        source = Source(option=api.name, kind="api", provider=provider, resource_type="Model API",
                        sku_id=stored.price.model_name if stored.price else None)
        million_tokens = float(result.tokens_per_month) / 1e6
        series += [CostSeries(source, name, _flat(values), np.full(len(result.months), million_tokens))
                   for name, values in api.cash_flows.lines_usd.items()]
    return series


def plan_start(plan: ProcurementPlan, start: date | None = None) -> date:
    return (start or timezone.localdate(plan.created_at)).replace(day=1)


def plan_focus(plan: ProcurementPlan, *, start: date | None = None) -> pd.DataFrame:
    """FOCUS rows of a solved plan: its cash by category, each under the sources it comes from."""
    if not plan.result or not plan.result.get("feasible"):
        raise ValueError(f"plan {plan.pk} has no solved plan to export")
    scenario = plan.scenario
    billing = scenario_billing(scenario, plan_start(plan, start), plan_id=plan.pk)
    return focus_frame(focus_rows(billing, plan_series(plan)))


def plan_series(plan: ProcurementPlan) -> list[CostSeries]:
    """The plan's cash by category under its sources, and its orders' depreciation."""
    result, scenario = plan.result, plan.scenario
    sources = plan_sources(scenario, result)
    series = []
    for category, values in result["cash_by_category_usd"].items():
        kind = "owned" if category in PLAN_OWNED_CATEGORIES else category
        if category == "data":
            kind = next(k for k in ("on_demand", "reserved", "spot") if k in sources)
        series.append(CostSeries(sources[kind], category, np.asarray(values, dtype=np.float64)))
    if "owned" in sources:
        series.append(CostSeries(sources["owned"], "depreciation",
                                 _plan_depreciation(result, scenario.depreciation_months),
                                 effective_only=True))
    return series


def plan_sources(scenario: Scenario, result: dict[str, Any]) -> dict[str, Source]:
    """One source per kind of capacity the plan uses, named after the plan's sources of that kind."""
    offerings = {str(option): option.offering for option in scenario.rent_options.select_related("offering")}
    by_kind: dict[str, list[str]] = {}
    for source in result["sources"]:
        by_kind.setdefault(source["kind"], []).append(source["name"])
    sources = {}
    for kind, names in by_kind.items():
        if kind == "owned":
            sources[kind] = Source(option=" + ".join(names), kind=kind, provider=OWNED_PROVIDER,
                                   region_id=scenario.facility.slug, sku_id=scenario.system.slug,
                                   useful_life_months=scenario.depreciation_months)
            continue
        found = [offerings[name] for name in names if name in offerings]
        providers = {offering.get_provider_display() for offering in found}
        sources[kind] = Source(option=" + ".join(names), kind=kind,
                               provider=providers.pop() if len(providers) == 1 else "Several providers",
                               region_id=found[0].region if len(found) == 1 else None,
                               sku_id=found[0].instance_type if len(found) == 1 else None,
                               resource_type="GPU instance")
    return sources


def _plan_depreciation(result: dict[str, Any], life_months: int) -> np.ndarray:
    """Each order's capex spread evenly over ``life_months`` from the month it enters service."""
    months = len(result["cash_usd"])
    line = np.zeros(months)
    for order in result["orders"]:
        first = order["in_service_month"]
        line[first:min(months, first + life_months)] += order["capex_usd"] / life_months
    return line
