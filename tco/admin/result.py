"""The result on a scenario's admin page and in the scenario list, in the vocabulary's words.

Evaluating a scenario and drawing its chart take most of a second, so the page shows its rendering
through tco/services/figures.py, kept until something the figures read changes.
"""
from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any

import numpy as np
from django.template.loader import render_to_string

from catalog.models import Accelerator
from catalog.models import Source
from catalog.refresh.freshness import price_age
from costmodel.figures import item
from costmodel.verdict import PRE_TAX
from costmodel.vocabulary import INPUTS
from costmodel.vocabulary import MISSING
from costmodel.vocabulary import RESULTS
from costmodel.vocabulary import input_term
from costmodel.vocabulary import line_label
from costmodel.vocabulary import money
from costmodel.vocabulary import money_in
from tco.charts.canvas import inline_svg
from tco.charts.cumulative_cost import cumulative_cost_figure
from tco.charts.interactivity import interactivity_figure
from tco.inputs import field_for
from tco.models import Scenario
from tco.services.cash_flows import cash_flow_table
from tco.services.engine_inputs import ScenarioInputError
from tco.services.engine_inputs import engine_case
from tco.services.evaluation import Evaluation
from tco.services.evaluation import billing_rows
from tco.services.evaluation import monthly_frame
from tco.services.evaluation import option_figures
from tco.services.evaluation import option_phrase
from tco.services.evaluation_cache import cached
from tco.services.evaluation_cache import evaluation_key
from tco.services.figures import Showing
from tco.services.figures import scenario_figures
from tco.services.money_view import money_view
from tco.services.sizing import Sizing
from tco.services.strategies_view import strategies_context
from tco.services.useful_work import useful_work
from tco.services.verdict_basis import chart_caption

RESULT_TEMPLATE = "admin/tco/scenario/result.html"
# What the scenario list shows of a result, kept beside the page's rendered result.
SUMMARY = ("winner", "npv_saving", "breakeven", "oldest_price")
# Their headings, the same in the scenario list and on the team home: the margin is the
# winner's, whichever option wins, never "buying's saving".
SUMMARY_HEADINGS = {"winner": "Cheapest option (winner)",
                    "npv_saving": "Margin over the next cheapest (NPV)",
                    "breakeven": "Buying breaks even (month, discounted)"}
# Rows of the key-figures table: label, buying's figure, a rent option's, a per-token API's
# (None: it has none). The discounted breakeven (the headline's) follows the nominal one.
NOMINAL_BREAKEVEN = "Breakeven month (nominal)"
KEY_FIGURES = (
    ("Total cost (cash)", "total_usd", "total_usd", "total_usd"),
    ("NPV of the costs", "npv_usd", "npv_usd", "npv_usd"),
    (NOMINAL_BREAKEVEN, None, "breakeven_month", None),
    ("Breakeven utilisation", None, "breakeven_utilisation", "breakeven_utilisation_buy"),
    ("Cost per useful GPU-hour", "cost_per_useful_accelerator_hour_usd",
     "cost_per_useful_accelerator_hour_usd", None),
    ("Cost per million tokens", "cost_per_million_tokens_usd", "cost_per_million_tokens_usd",
     "cost_per_million_tokens_usd"),
)
MONEY = RESULTS["rent.npv_usd"]
FOOTPRINT_ROWS = ("accelerators_bought", "systems", "racks", "systems_per_rack", "kw_per_rack",
                  "it_kw_max", "facility_kw_max", "facility_kw_average", "mwh_per_year",
                  "cooling_tier_name", "needs_new_cooling")


def scenario_result(scenario: Scenario) -> dict[str, Any]:
    """The list's figures and the page's rendered result, kept while nothing they read changes
    (rendering the tables and chart is most of a page's time). ``price_alerts`` is the method
    reading an approved scenario's alerts: a template calls it, the list never does."""
    try:
        figures = scenario_figures(scenario=scenario, shown_as=PAGE)
    except ScenarioInputError as exc:  # said on the page, not kept
        return {"evaluation_error": str(exc)}
    return {**figures.shown, "price_age_days": _age_days(figures.shown["oldest_price"]),
            "price_alerts": figures.alerts}


def _age_days(known_on: dt.date | None) -> int | None:
    return None if known_on is None else price_age(as_of=known_on, checked_on=None).age_days


def result_context(evaluation: Evaluation) -> dict[str, Any]:
    """Everything the page shows of an evaluation, as text."""
    result = evaluation.result
    verdict = result.verdict
    footprint = [(RESULTS[f"footprint.{name}"].heading(),
                  RESULTS[f"footprint.{name}"].show(item(getattr(result.footprint, name))))
                 for name in FOOTPRINT_ROWS]
    # The day the least recently confirmed price was last known to hold (the catalog's rule).
    oldest = min((price_age(as_of=price.as_of, checked_on=price.checked_on).known_on
                  for price in evaluation.prices), default=None)
    frame = monthly_frame(result)
    rate = float(item(evaluation.inputs.finance.discount_rate_per_year))
    return {
        **_sizing_context(evaluation.sizing),
        **_throughput_context(evaluation),
        **key_figures(evaluation),
        "headline": verdict.sentence(),
        "recommendation": result.recommendation,
        "useful_work": useful_work(evaluation.inputs, result),
        "winner": verdict.cheapest.label,
        "npv_saving": MISSING if verdict.margin_usd is None else MONEY.show(verdict.margin_usd),
        "breakeven": RESULTS["rent.breakeven_month"].show(verdict.breakeven_month),
        "oldest_price": oldest,
        "warnings": evaluation.warnings,
        "billing_rows": billing_rows(evaluation.inputs),
        "input_rows": input_rows(evaluation),
        "footprint_rows": footprint,
        "discount_rate": f"{rate:.1%}",
        "chart_svg": inline_svg(cumulative_cost_figure(
            result, discount_rate_per_year=rate,
            after_tax=None if verdict.basis == PRE_TAX else evaluation.after_tax)),
        "chart_caption": chart_caption(verdict, rate),
        "verdict_basis": verdict.basis_words,
        "nominal_chart_svg": inline_svg(cumulative_cost_figure(result)),
        "cash_flow_columns": [_column_heading(column) for column in frame.columns],
        "cash_flow_rows": [[str(int(row[0]))] + [RESULTS["buy.total_usd"].show(v) for v in row[1:]]
                           for row in frame.itertuples(index=False)],
    }


def _pinned_context(evaluation: Evaluation) -> dict[str, Any]:
    """An approved answer's pin and its figures at today's prices beside it."""
    today = evaluation.today
    rows = []
    if today is not None:
        for signed, now in zip(option_figures(evaluation.result), option_figures(today.result),
                               strict=True):
            rows.append((signed["name"], *(option_phrase(row) for row in (signed, now))))
    pinned_rates = [rate.describe() for rate in evaluation.rates]
    todays_rates = [] if today is None else [rate.describe() for rate in today.rates]
    return {"pinned_at": evaluation.pinned_at, "todays_rows": rows,
            "rates_moved": (pinned_rates, todays_rates) if pinned_rates != todays_rates else None,
            "todays_differs": evaluation.differs_today, "todays_error": evaluation.today_error}


def key_figures(evaluation: Evaluation) -> dict[str, Any]:
    """The key-figures table: a column per option in the verdict's order (cheapest first, the
    ones left out last), its rank, how it is billed, and its figures."""
    result, verdict = evaluation.result, evaluation.result.verdict
    sides = {("buy", "Buy"): ("buy", result.buy)}
    sides.update({("rent", o.name): ("rent", o) for o in result.rent})
    sides.update({("api", o.name): ("api", o) for o in result.api})
    billed = {row["name"]: row["basis"] for row in billing_rows(evaluation.inputs)}
    order = [(s.kind, s.name) for s in verdict.ranked] + [(o.kind, o.name) for o in verdict.left_out]
    ranks = {(s.kind, s.name): str(rank) for rank, s in enumerate(verdict.ranked, start=1)}
    columns, rows = [], {label: [] for label, *_ in KEY_FIGURES}
    rank_row, billed_row, discounted_row = [], [], []
    discounted = {(s.kind, s.name): s.breakeven_month for s in verdict.ranked if s.kind != "buy"}
    for key in order:
        kind, option = sides[key]
        name = {"buy": "Buy", "rent": f"Rent: {key[1]}", "api": f"Pay per token: {key[1]}"}[kind]
        columns.append(f"{name} (cheapest)" if key == (verdict.cheapest.kind, verdict.cheapest.name)
                       else name)
        rank_row.append(ranks.get(key, "left out"))
        billed_row.append({"buy": "owned", "api": "per token"}.get(kind) or billed[key[1]])
        discounted_row.append(MISSING if key not in discounted
                              else RESULTS["rent.breakeven_month"].show(discounted[key]))
        for label, *attributes in KEY_FIGURES:
            attribute = attributes[("buy", "rent", "api").index(kind)]
            term = RESULTS.get(f"rent.{attribute}") or RESULTS["rent.breakeven_utilisation"]
            rows[label].append(MISSING if attribute is None else term.show(item(getattr(option, attribute))))
    figure_rows = list(rows.items())
    basis = verdict.basis_words
    figure_rows.insert(list(rows).index(NOMINAL_BREAKEVEN) + 1,
                       (f"Breakeven month (discounted, {basis})", discounted_row))
    if verdict.basis != PRE_TAX:  # the figures the verdict ranks on, each below its pre-tax one
        standing = {(s.kind, s.name): s for s in verdict.ranked}
        total, npv = ([(MISSING if key not in standing else MONEY.show(getattr(standing[key], name)))
                       for key in order] for name in ("total_usd", "npv_usd"))
        figure_rows[1:1] = [(f"Total cost {basis} (cash)", total)]
        figure_rows[3:3] = [(f"NPV of the costs {basis}", npv)]
    return {"key_columns": columns,
            "key_rows": [(f"Rank by NPV {basis}", rank_row), ("Billed for", billed_row), *figure_rows]}


# Where an input came from, in the words of the page.
ORIGINS = {"scenario": "entered", "catalog": "catalog", "sizing": "sizing",
           "default": "stated default"}


def origin_words(origin: str, source: str) -> str:
    """'facility profile' for a catalog figure of the scenario's facility, else the origin's words."""
    if origin == "catalog" and source.startswith("catalog facility profile"):
        return "facility profile"
    return ORIGINS.get(origin, origin)


def source_title(text: str, titles: dict[str, str]) -> str:
    """A source as people name it: each catalog source key ('seed-004') in ``text`` becomes its
    title and date ('Cloud GPU price survey (seed-004, 2026-08-01)')."""
    if not titles:
        return text
    keys = sorted(titles, key=len, reverse=True)
    pattern = re.compile("|".join(rf"(?<![\w-]){re.escape(key)}(?![\w-])" for key in keys))
    return pattern.sub(lambda match: titles[match.group(0)], text)


def source_titles() -> dict[str, str]:
    """Every public source's key -> 'title (key, date)'."""
    return {source.key: f"{source.title} ({source.key}"
                        + (f", {source.published_on.isoformat()})" if source.published_on else ")")
            for source in Source.objects.filter(team__isnull=True)}


def input_rows(evaluation: Evaluation) -> list[tuple[str, str, str, str, str]]:
    """Every input the evaluation used: its label, value with unit, origin, source and date."""
    titles = source_titles()
    names = [option.name for option in evaluation.inputs.rent]
    apis = [option.name for option in evaluation.inputs.api]
    rows = []
    for assumption in evaluation.assumptions:
        value = assumption.value
        shown = input_term(assumption.path).show(value) if value == value else "empty"
        source = ("entered on this scenario" if assumption.source.startswith("scenario.")
                  else source_title(assumption.source, titles))
        rows.append((_input_label(assumption.path, names, apis), shown, assumption.unit,
                     origin_words(assumption.origin, assumption.source), source,
                     "" if assumption.as_of is None else assumption.as_of.isoformat()))
    return rows


def resolved_blanks(scenario: Scenario) -> dict[str, str]:
    """Scenario field -> what its empty value resolves to now ('$0.100 USD/kWh, facility profile:
    Colocation, air (Uptime survey 2025, 2025-06-01)'), for the form's help beside each blank.

    Kept under the same key as the page's result: resolving the inputs reads the catalog (some
    ten queries), and they change only with what the key names."""
    return cached(f"resolved-blanks:{evaluation_key(scenario)}", lambda: _resolved_blanks(scenario))


def _resolved_blanks(scenario: Scenario) -> dict[str, str]:
    try:
        case = engine_case(scenario)
    except ScenarioInputError:
        return {}
    titles = source_titles()
    shown = {}
    for assumption in case.assumptions:
        if assumption.origin == "scenario":
            continue
        field = field_for(assumption.path)
        if getattr(scenario, field, True) is not None:
            continue
        with money_in(case.currency):
            value = input_term(assumption.path).show(assumption.value)
        dated = f", {assumption.as_of.isoformat()}" if assumption.as_of else ""
        shown[field] = (f"{value} {assumption.unit}, {origin_words(assumption.origin, assumption.source)}"
                        f" ({source_title(assumption.source, titles)}{dated}).")
    return shown


def _input_label(path: str, rent_names: list[str], api_names: list[str]) -> str:
    """'Electricity price'; a rent or API option's input says whose it is."""
    label = input_term(path).label
    parts = path.split(".")
    if parts[0] in ("rent", "api") and len(parts) == 3 and parts[1].isdigit():
        names = rent_names if parts[0] == "rent" else api_names
        return f"{names[int(parts[1])]}: {label[0].lower()}{label[1:]}"
    return label


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
    search = getattr(sizing.result, "layout_search", None)
    # The chart names the accelerator as the catalog does, not by its slug.
    accelerator = Accelerator.objects.filter(slug=sizing.accelerator).values_list("name", flat=True).first()
    chart = {} if search is None else {"interactivity_svg": inline_svg(interactivity_figure(
        search, sizing.tokens_per_s_per_user_target, accelerator or sizing.accelerator))}
    return {**chart, "sizing_title": sizing.describe(),
            "sizing_figures": [(_words(f.name), _shown(f.value), f.unit) for f in sizing.figures()],
            "sizing_assumptions": [(_words(a.name), _shown(a.value), a.unit, a.source)
                                   for a in sizing.result.assumptions]}


def _throughput_context(evaluation: Evaluation) -> dict:
    """Each option's cost per million tokens and each API's breakeven volume at the sizing's
    estimate and at both ends of its range (nothing when the throughput has no range)."""
    if evaluation.throughput is None:
        return {}
    (low, central, high), rows = evaluation.throughput

    def per_million(value: float | None) -> str:
        return MISSING if value is None else money(value, 3, evaluation.currency)

    def volume(value: float | None) -> str:
        return "never" if value is None else f"{value / 1e6:,.0f} million"

    shown = [(row.option, row.figure, *(
        (per_million if row.unit.endswith("per million tokens") else volume)(value)
        for value in (row.central, row.at_low_throughput, row.at_high_throughput)))
        for row in rows]
    return {"throughput_heading": (f"{central:,.0f} output tokens/s per accelerator "
                                   f"({low:,.0f} to {high:,.0f})"),
            "throughput_rows": shown}


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
            return MISSING
        whole = float(value).is_integer() and abs(value) < 1e12
        return f"{value:,.0f}" if whole else f"{value:,.4g}"
    return str(value)


def _rendered_result(scenario: Scenario, evaluation: Evaluation) -> dict[str, Any]:
    """The list's figures and the rendered result."""
    with money_in(evaluation.currency):
        context = result_context(evaluation)
        context.update(strategies_context(scenario, evaluation))
        context["money"] = money_view(evaluation, cash_flow_table(scenario, evaluation, "year"),
                                      cash_flow_table(scenario, evaluation, "quarter"))
        if evaluation.pinned_at is not None:
            context.update(_pinned_context(evaluation))
        shown = {name: context[name] for name in SUMMARY}
        shown["result_html"] = render_to_string(RESULT_TEMPLATE, context)
    return shown


# The page's rendering: the scenario list and the team home show its summary (SUMMARY).
PAGE = Showing("scenario-result", _rendered_result)
