"""The result on a scenario's admin page and in the scenario list, in the vocabulary's words.

Evaluating a scenario and drawing its chart take most of a second, so the page reads a cached
rendering keyed by what can change the figures (tco/services/evaluation_cache.py).
"""
from __future__ import annotations

import datetime as dt
import math
from typing import Any

import numpy as np
from django.core.cache import cache
from django.template.loader import render_to_string

from catalog.refresh.freshness import price_age
from tco.charts.canvas import inline_svg
from tco.charts.cumulative_cost import cumulative_cost_figure
from tco.engine.figures import item
from tco.engine.vocabulary import INPUTS
from tco.engine.vocabulary import RESULTS
from tco.engine.vocabulary import line_label
from tco.engine.vocabulary import usd_short
from tco.models import Scenario
from tco.services.cash_flows import cash_flow_table
from tco.services.engine_inputs import ScenarioInputError
from tco.services.evaluation import Evaluation
from tco.services.evaluation import monthly_frame
from tco.services.evaluation import option_figures
from tco.services.evaluation import option_phrase
from tco.services.evaluation import scenario_evaluate
from tco.services.evaluation_cache import CACHE_SECONDS
from tco.services.evaluation_cache import evaluation_key as cache_key
from tco.services.money_view import money_view
from tco.services.repricing import scenario_alert_today
from tco.services.sizing import Sizing
from tco.services.useful_work import useful_work

RESULT_TEMPLATE = "admin/tco/scenario/result.html"
# What the scenario list shows of a result, kept beside the page's rendered result.
SUMMARY = ("winner", "npv_saving", "breakeven", "oldest_price")
# Rows of the key-figures table: label, buying's figure (None: buying has none), each option's.
KEY_FIGURES = (
    ("Total cost", "total_usd", "total_usd"),
    ("NPV of the costs", "npv_usd", "npv_usd"),
    ("NPV saving of buying", None, "npv_saving_usd"),
    ("Breakeven month", None, "breakeven_month"),
    ("Breakeven utilisation", None, "breakeven_utilisation"),
    ("Cost per useful GPU-hour", "cost_per_useful_accelerator_hour_usd",
     "cost_per_useful_accelerator_hour_usd"),
)
FOOTPRINT_ROWS = ("accelerators_bought", "systems", "racks", "systems_per_rack", "kw_per_rack",
                  "it_kw_max", "facility_kw_max", "facility_kw_average", "mwh_per_year",
                  "cooling_tier_name", "needs_new_cooling")


def scenario_result(scenario: Scenario) -> dict[str, Any]:
    """The list's figures and the page's rendered result, from the cache when the scenario and
    its prices are unchanged (rendering the tables and chart is most of a page's time)."""
    key = cache_key(scenario)
    shown = cache.get(key)
    if shown is None:
        try:
            evaluation = scenario_evaluate(scenario=scenario)
        except ScenarioInputError as exc:
            return {"evaluation_error": str(exc)}
        context = result_context(evaluation)
        context["money"] = money_view(evaluation, cash_flow_table(scenario, evaluation, "year"),
                                      cash_flow_table(scenario, evaluation, "quarter"))
        if evaluation.pinned_at is not None:
            # New prices change the cache key: this is where an approved page first sees them.
            scenario_alert_today(scenario=scenario, evaluation=evaluation)
            context.update(_pinned_context(scenario, evaluation))
        shown = {name: context[name] for name in SUMMARY}
        shown["result_html"] = render_to_string(RESULT_TEMPLATE, context)
        cache.set(key, shown, CACHE_SECONDS)
    return {**shown, "price_age_days": _age_days(shown["oldest_price"])}


def _age_days(known_on: dt.date | None) -> int | None:
    return None if known_on is None else price_age(as_of=known_on, checked_on=None).age_days


def result_context(evaluation: Evaluation) -> dict[str, Any]:
    """Everything the page shows of an evaluation, as text."""
    result = evaluation.result
    options = result.rent
    cheapest = min(options, key=lambda o: item(o.npv_usd))
    saving = item(cheapest.npv_saving_usd)
    columns = ["Buy", *(f"Rent: {o.name}" for o in options)]
    key_rows = []
    for label, buy_name, rent_name in KEY_FIGURES:
        term = RESULTS[f"rent.{rent_name}"]
        buy_value = term.show(item(getattr(result.buy, buy_name))) if buy_name else "–"
        key_rows.append((label, [buy_value, *(term.show(item(getattr(o, rent_name)))
                                             for o in options)]))
    footprint = [(RESULTS[f"footprint.{name}"].heading(),
                  RESULTS[f"footprint.{name}"].show(item(getattr(result.footprint, name))))
                 for name in FOOTPRINT_ROWS]
    # The day the least recently confirmed price was last known to hold (the catalog's rule).
    oldest = min((price_age(as_of=price.as_of, checked_on=price.checked_on).known_on
                  for price in evaluation.prices), default=None)
    frame = monthly_frame(result)
    return {
        **_sizing_context(evaluation.sizing),
        "headline": _headline(cheapest, saving, int(item(result.horizon_months))),
        "recommendation": result.recommendation,
        "useful_work": useful_work(result),
        "winner": "Buy" if saving > 0 else "Rent",
        "npv_saving": RESULTS["rent.npv_saving_usd"].show(saving),
        "breakeven": RESULTS["rent.breakeven_month"].show(item(cheapest.breakeven_month)),
        "oldest_price": oldest,
        "warnings": [warning.message for warning in evaluation.warnings],
        "key_columns": columns,
        "key_rows": key_rows,
        "footprint_rows": footprint,
        "chart_svg": inline_svg(cumulative_cost_figure(result)),
        "cash_flow_columns": [_column_heading(column) for column in frame.columns],
        "cash_flow_rows": [[str(int(row[0]))] + [RESULTS["buy.total_usd"].show(v) for v in row[1:]]
                           for row in frame.itertuples(index=False)],
    }


def _pinned_context(scenario: Scenario, evaluation: Evaluation) -> dict[str, Any]:
    """An approved answer's pin, its figures at today's prices beside it, and the alerts since."""
    today = evaluation.today
    rows = []
    if today is not None:
        for signed, now in zip(option_figures(evaluation.result), option_figures(today.result),
                               strict=True):
            rows.append((signed["name"], *(option_phrase(row) for row in (signed, now))))
    alerts = scenario.price_alerts.filter(created_at__gte=scenario.approved_at)
    return {"pinned_at": evaluation.pinned_at, "todays_rows": rows,
            "todays_differs": evaluation.differs_today, "todays_error": evaluation.today_error,
            "price_alerts": [alert.message for alert in alerts]}


def _headline(cheapest: Any, saving: float, horizon: int) -> str:
    month = item(cheapest.breakeven_month)
    breakeven = "never breaks even" if not np.isfinite(month) else f"breaks even in month {int(month)}"
    if saving > 0:
        return (f"Buy: {usd_short(saving)} less than renting {cheapest.name} over {horizon} months "
                f"(NPV); buying {breakeven}.")
    return (f"Rent {cheapest.name}: {usd_short(-saving)} less than buying over {horizon} months "
            f"(NPV); buying {breakeven}.")


def _column_heading(column: str) -> str:
    """'buy: capex_systems' -> 'Buy: Systems'; the month column stays 'Month'."""
    if column == "month":
        return "Month"
    side, _, line = column.rpartition(": ")
    return f"{'Buy' if side == 'buy' else side}: {line_label(line)}"


def _sizing_context(sizing: Sizing | None) -> dict:
    """The sizing's figures and assumptions as table rows of text."""
    if sizing is None:
        return {}
    return {"sizing_title": sizing.describe(),
            "sizing_figures": [(_words(f.name), _shown(f.value), f.unit) for f in sizing.figures()],
            "sizing_assumptions": [(_words(a.name), _shown(a.value), a.unit, a.source)
                                   for a in sizing.result.assumptions]}


def _words(name: str) -> str:
    """A sizing figure's name in words: the workload input's label, or its words spaced."""
    term = INPUTS.get(f"workload.{name}")
    return term.label if term else name.replace("_", " ").capitalize()


def _shown(value: Any) -> str:
    """A sizing value as text: whole numbers with separators, others to 4 significant digits."""
    value = value.tolist() if isinstance(value, np.ndarray | np.generic) else value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        if not math.isfinite(value):
            return "–"
        whole = float(value).is_integer() and abs(value) < 1e12
        return f"{value:,.0f}" if whole else f"{value:,.4g}"
    return str(value)
