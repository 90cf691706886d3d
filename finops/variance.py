"""Actual costs against the projection they should follow, month by month, by option, by
provider and in total.

The projection is the FOCUS export of the target (finops/exports): an approved scenario's chosen
option (the cheapest by NPV unless the target names one) or a solved plan's sources, from the
target's calendar month 0. Both sides are BilledCost (cash) in the projection's currency (the
scenario's reporting currency; actual rows imported in another are converted at their month's
rate). An actual row counts
towards the option its ``x_Option`` names, else the option of its provider (by SKU when the
provider has several), else "Not in the plan". Variance = actual - projected (positive = spent
more than planned); its share is of the projected amount.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

import pandas as pd
from django.conf import settings

from core.file_imports import ImportStatus
from costmodel.currency import NoRate
from finops.exports.projections import BUY_OPTION
from finops.exports.projections import plan_focus
from finops.exports.projections import scenario_focus
from finops.models import ActualCost
from finops.models import CostTarget
from tco.services.engine_inputs import reporting_currency
from tco.services.evaluation import scenario_evaluate
from tco.services.exchange_rates import rate_book

UNPLANNED = "Not in the plan"


@dataclass(frozen=True)
class Variance:
    """The comparison: rows of month, option or provider with projected, actual, variance, share."""

    target: CostTarget
    option: str  # the scenario option compared with, or the plan's name
    currency: str  # of every amount (ISO 4217)
    by_month: list[dict[str, Any]]
    by_option: list[dict[str, Any]]
    by_provider: list[dict[str, Any]]
    total: dict[str, Any]
    threshold_share: float

    def to_dict(self) -> dict[str, Any]:
        return {"target": self.target.pk, "compared_with": self.option, "currency": self.currency,
                "threshold_share": self.threshold_share, "months": self.by_month,
                "by_option": self.by_option, "by_provider": self.by_provider, "total": self.total}

    @property
    def months_over_threshold(self) -> list[dict[str, Any]]:
        return [row for row in self.by_month if row["over_threshold"]]


def chosen_option(target: CostTarget) -> str:
    """The scenario option the target follows: its own, else the cheapest by NPV."""
    if target.option:
        return target.option
    result = scenario_evaluate(scenario=target.scenario).result
    npvs = {BUY_OPTION: float(result.buy.npv_usd), **{o.name: float(o.npv_usd) for o in result.rent}}
    return min(npvs, key=npvs.get)


def projection(target: CostTarget) -> tuple[str, pd.DataFrame]:
    """(what is compared with, rows of month, option, provider, sku, projected, currency)."""
    if target.plan_id:
        frame, label = plan_focus(target.plan, start=target.starts_on), f"plan {target.plan.name}"
    else:
        label = chosen_option(target)
        frame = scenario_focus(target.scenario, start=target.starts_on)
        frame = frame[frame["x_Option"] == label]
        if frame.empty:
            raise ValueError(f"the scenario has no option '{label}'")
    rows = pd.DataFrame({
        "month": frame["ChargePeriodStart"].dt.date, "option": frame["x_Option"].astype(str),
        "provider": frame["ProviderName"].astype(str), "sku": frame["SkuId"].fillna("").astype(str),
        "projected": frame["BilledCost"].astype(float), "currency": frame["BillingCurrency"].astype(str)})
    return label, rows


def actual_rows(target: CostTarget, options: pd.DataFrame, currency: str) -> pd.DataFrame:
    """The team's actual rows from month 0 on in ``currency``, each under the option it counts
    towards. The rows of an import still writing its batches are left out until it is done: a
    month half imported would read as under its projection."""
    costs = ActualCost.objects.filter(team_id=target.team_id, month__gte=target.starts_on,
                                      cost_import__status=ImportStatus.DONE)
    columns = ["month", "provider", "sku_id", "option", "billed_cost", "cost_import__currency"]
    found = pd.DataFrame(list(costs.values(*columns)), columns=columns)
    names = set(options["option"])
    by_provider = options.groupby("provider")["option"].agg(lambda s: sorted(set(s))).to_dict()
    by_sku = options[options["sku"] != ""].groupby("sku")["option"].first().to_dict()

    def option_of(row: pd.Series) -> str:
        if row["option"] in names:
            return row["option"]
        candidates = by_provider.get(row["provider"], [])
        if len(candidates) > 1 and row["sku_id"] in by_sku:
            return by_sku[row["sku_id"]]
        return candidates[0] if candidates else UNPLANNED

    found["option"] = found.apply(option_of, axis=1) if len(found) else found["option"]
    found["actual"] = found["billed_cost"].astype(float) * _factors(target, found, currency)
    return found[["month", "option", "provider", "actual"]]


def _factors(target: CostTarget, found: pd.DataFrame, currency: str) -> list[float]:
    """Each row's factor into ``currency`` at its month's rate (ValueError when none is known)."""
    rates = rate_book([target.team_id])
    factors: dict[tuple[str, date], float] = {}
    for key in zip(found["cost_import__currency"], found["month"], strict=True):
        if key not in factors:
            try:
                factors[key] = float(rates.convert(Decimal(1), key[0], currency, key[1]).factor)
            except NoRate as exc:
                raise ValueError(f"actual costs imported in {key[0]} cannot be compared: {exc}") from exc
    return [factors[key] for key in zip(found["cost_import__currency"], found["month"], strict=True)]


def variance(target: CostTarget) -> Variance:
    """The target's actual costs against its projection over the months that have actual costs."""
    label, projected = projection(target)
    currency = (projected["currency"].iloc[0] if len(projected)
                else reporting_currency(target.approved_scenario))
    actual = actual_rows(target, projected, currency)
    share = float(target.alert_share if target.alert_share is not None else settings.VARIANCE_ALERT_SHARE)
    last = actual["month"].max() if len(actual) else None
    months = sorted(m for m in set(projected["month"]) | set(actual["month"]) if last and m <= last)
    projected = projected[projected["month"].isin(months)]
    return Variance(
        target=target, option=label, currency=currency,
        by_month=_table(projected, actual, "month", share, months),
        by_option=_table(projected, actual, "option", share),
        by_provider=_table(projected, actual, "provider", share),
        total=_figures(projected["projected"].sum(), actual["actual"].sum(), share),
        threshold_share=share)


def _table(projected: pd.DataFrame, actual: pd.DataFrame, key: str, share: float,
           order: list | None = None) -> list[dict[str, Any]]:
    planned = projected.groupby(key)["projected"].sum()
    spent = actual.groupby(key)["actual"].sum()
    keys = order if order is not None else sorted(set(planned.index) | set(spent.index), key=str)
    rows = []
    for value in keys:
        figures = _figures(planned.get(value, 0.0), spent.get(value, 0.0), share)
        rows.append({key: value.isoformat() if isinstance(value, date) else value, **figures})
    return rows


def _figures(projected: float, actual: float, share: float) -> dict[str, Any]:
    projected, actual = round(float(projected), 2), round(float(actual), 2)
    difference = round(actual - projected, 2)
    ratio = difference / projected if projected else None
    minimum = settings.VARIANCE_ALERT_MIN_USD
    over = abs(difference) >= minimum and (ratio is None or abs(ratio) > share)
    return {"projected_usd": projected, "actual_usd": actual, "variance_usd": difference,
            "variance_share": None if ratio is None else round(ratio, 4), "over_threshold": bool(over)}


