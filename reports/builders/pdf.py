"""The PDF report: ``ReportContent`` in, PDF bytes out (HTML template + CSS through WeasyPrint).

No ORM and no request: the template gets formatted strings and chart images only, and
Django's autoescaping keeps user text (scenario and option names) as text.
"""

from __future__ import annotations

import base64
import math
import re
from collections.abc import Sequence
from datetime import UTC
from datetime import datetime
from typing import TYPE_CHECKING
from typing import Any

import numpy as np
from django.template.loader import render_to_string
from matplotlib.figure import Figure
from weasyprint import HTML
from weasyprint.urls import URLFetcher

from catalog.refresh.freshness import PriceAge
from catalog.refresh.freshness import price_age
from catalog.selectors import Citation
from costmodel import SensitivityRow
from costmodel.figures import item
from costmodel.figures import scalar
from costmodel.timeline import MONTHS_PER_YEAR
from costmodel.verdict import PRE_TAX
from costmodel.version import ENGINE_VERSION
from costmodel.vocabulary import RESULTS
from costmodel.vocabulary import Kind
from costmodel.vocabulary import input_term
from costmodel.vocabulary import line_label
from costmodel.vocabulary import money_in
from costmodel.vocabulary import show
from reports.content import BomLine
from reports.content import RecordedPlan
from reports.content import RecordedRun
from reports.content import ReportContent
from reports.content import SizingSummary
from reports.content import bill_of_materials
from reports.content import describe_path
from reports.content import top_movers
from reports.formatting import format_month
from reports.formatting import format_number
from reports.formatting import format_share
from reports.formatting import format_usd_cents
from reports.formatting import source_words
from reports.formatting import timestamp
from tco.charts.breakeven_heatmap import breakeven_heatmap_figure
from tco.charts.canvas import render
from tco.charts.cost_breakdown import cost_breakdown_figure
from tco.charts.cumulative_cost import cumulative_cost_figure
from tco.charts.plan_capacity import capacity_figure
from tco.charts.residual_value import residual_value_figure
from tco.charts.saving_histogram import saving_histogram_figure
from tco.charts.side_by_side import side_by_side_figure
from tco.charts.tornado import tornado_figure
from tco.services.engine_inputs import PriceUsed
from tco.services.evaluation import billing_rows
from tco.services.money_view import money_view
from tco.services.plan_tables import plan_tables
from tco.services.side_by_side import side_by_side_rows
from tco.services.useful_work import useful_work
from tco.services.verdict_basis import chart_caption

if TYPE_CHECKING:
    from tco.services.side_by_side import Column

TEMPLATE = "reports/report.html"
SIDE_BY_SIDE_TEMPLATE = "reports/side_by_side.html"
PDF_CONTENT_TYPE = "application/pdf"
CSS_PAGE_SIZES = {"a4": "A4", "letter": "letter"}
SENSITIVITY_ROWS = 10
PRINT_DPI = 200


def build_pdf(content: ReportContent) -> bytes:
    """The report as a PDF on the content's paper size, with a table of contents and page numbers."""
    with money_in(content.evaluation.currency):
        html = render_to_string(TEMPLATE, report_context(content))
    # The report embeds its images as data: URIs and never fetches anything else.
    return HTML(string=html, url_fetcher=URLFetcher(allowed_protocols={"data"})).write_pdf()


def build_side_by_side_pdf(
    columns: Sequence[Column], *, author: str, paper_size: str = "a4", generated_at: datetime | None = None
) -> bytes:
    """Several scenarios side by side: one table of their key figures, one chart of their
    cumulative costs (each scenario's figures as its own evaluation gives them)."""
    generated = timestamp(generated_at or datetime.now(UTC))
    with money_in(columns[0].currency):
        html = _side_by_side_html(columns, author, paper_size, generated)
    return HTML(string=html, url_fetcher=URLFetcher(allowed_protocols={"data"})).write_pdf()


def _side_by_side_html(columns: Sequence[Column], author: str, paper_size: str, generated: str) -> str:
    return render_to_string(SIDE_BY_SIDE_TEMPLATE, {
        "title": "Scenarios side by side",
        "page_size": f"{CSS_PAGE_SIZES[paper_size]} landscape",  # a column per scenario
        "generated": generated,
        "meta": {"engine_version": ENGINE_VERSION},
        "author": author,
        "columns": [f"{c.name} (v{c.version}, {c.status})" for c in columns],
        "rows": [(row.label, row.shown, row.kind is not Kind.TEXT) for row in side_by_side_rows(columns)],
        "currency": columns[0].currency,
        "chart": _png(side_by_side_figure(columns)),
    })


def report_context(content: ReportContent) -> dict[str, Any]:
    """Everything the template shows, already formatted."""
    result, meta = content.result, content.meta
    cite = _citer(meta.sources)
    return {
        "meta": meta,
        "citations": [
            {"number": number, "title": source.title, "where": source.where,
             "dated": "" if source.dated is None else source.dated.isoformat()}
            for number, source in enumerate(meta.sources, start=1)
        ],
        "stale_prices": [warning.message for warning in content.stale_prices()],
        "is_draft": not meta.status.startswith("Approved"),
        "page_size": CSS_PAGE_SIZES[meta.paper_size],
        "generated": timestamp(meta.generated_at),
        "scenario_updated": timestamp(meta.scenario_updated_at),
        "recommendation": result.recommendation or "",
        "verdict_rows": _verdict_rows(content),
        "billing_rows": billing_rows(content.inputs),
        "discount_rate": f"{float(scalar(content.inputs.finance.discount_rate_per_year)):.1%}",
        "movers": [_mover(row, content) for row in top_movers(content.tornado)],
        "step": "" if content.tornado is None else f"{content.tornado.step_share:.0%}",
        "tornado_option": "" if content.tornado is None else content.tornado.against,
        "tornado_measure": "" if content.tornado is None else content.tornado.measure,
        "option_names": [option.name for option in result.rent],
        "api_names": [api.name for api in result.api],
        "key_columns": len(result.rent) + len(result.api),
        "key_rows": _key_rows(content),
        "horizon_months": int(scalar(result.horizon_months)),
        "cumulative_chart": _png(cumulative_cost_figure(
            result, discount_rate_per_year=float(scalar(content.inputs.finance.discount_rate_per_year)),
            after_tax=None if result.verdict.basis == PRE_TAX else content.evaluation.after_tax)),
        "chart_caption": chart_caption(result.verdict,
                                       float(scalar(content.inputs.finance.discount_rate_per_year))),
        "breakdown_chart": _png(cost_breakdown_figure(result)),
        "breakdown_rows": _breakdown_rows(content),
        "yearly_rows": _yearly_rows(content),
        "bom_rows": [_bom_row(line) for line in bill_of_materials(content.inputs, result)],
        "capex_total": format_usd_cents(scalar(result.buy.total_capex_usd)),
        "footprint_rows": _footprint_rows(content),
        **_useful_work(content),
        "signing_notes": content.signing_notes(),
        "tornado_chart": (_png(tornado_figure(
            content.tornado, rent_names=_rent_names(content.inputs),
            api_names=[api.name for api in content.inputs.api],
            cooling_names=[tier.name for tier in content.inputs.cooling]))
                          if content.tornado is not None and content.tornado.rows else None),
        "sensitivity_rows": [] if content.tornado is None else [
            _mover(row, content) for row in content.tornado.rows[:SENSITIVITY_ROWS]],
        "run_chapters": _run_chapters(content),
        "strategies": content.strategies,
        "plans": [_plan(plan) for plan in content.plans],
        "sizing": _sizing(content.sizing) if content.sizing is not None else None,
        "assumptions": [
            {
                "path": describe_path(row.path, content.inputs),
                "value": _input_value(row.value, row.path),
                "unit": input_term(row.path).unit,
                "origin": row.origin,
                "source": cite(source_words(row.origin, row.source)),
                "as_of": "" if row.as_of is None else row.as_of.isoformat(),
            }
            for row in content.assumptions
        ],
        "money": _money_section(content),
        "prices": [
            {
                "id": price.price_point_id,
                "target": price.target,
                "amount": _quoted_and_reported(price, content),
                "unit": input_term(price.path).unit if price.path else "",
                "as_of": price.as_of.isoformat(),
                "age": f"{_age(price, content).age_days:,}",
                "stale": _age(price, content).is_stale,
                "source": cite(price.source),
            }
            for price in content.prices
        ],
    }


def _quoted_and_reported(price: PriceUsed, content: ReportContent) -> str:
    """A catalog price as quoted and, in another currency than the report's, as the evaluation
    used it with the rate that took it there ('USD 500,000.00 = GBP 375,319.02 at 1 GBP = 1.3322
    USD on 2026-03-04 (...)')."""
    quoted = show(float(price.amount), Kind.USD_PRICE, currency=price.currency)
    reporting = content.evaluation.currency
    used = next((row for row in content.assumptions if row.path == price.path), None)
    rate = next((rate for rate in content.evaluation.rates
                 if {rate.base, rate.quote} == {price.currency, reporting}), None)
    if price.currency == reporting or used is None or rate is None:
        return quoted
    return f"{quoted} = {show(float(used.value), Kind.USD_PRICE, currency=reporting)} at {rate.describe()}"


def _money_section(content: ReportContent) -> dict[str, Any] | None:
    """Currency, exchange rates, contract price books, after-tax figures and fiscal years."""
    if content.evaluation.after_tax is None:
        return None
    return money_view(content.evaluation, content.fiscal_years, content.fiscal_quarters)


def _plan(plan: RecordedPlan) -> dict[str, Any]:
    """The plan section: chart, order schedule, commitments, baselines, limits, uncertainty."""
    chart = _png(capacity_figure(plan.result, title=plan.name))
    tables = plan_tables(plan.result, plan.uncertainty)
    return {"name": plan.name, "note": plan.note, "chart": chart, **tables}


def _citer(sources: tuple[Citation, ...]):
    """A function writing a source text with each cited key as its number: 'seed-004' -> '[2]'."""
    numbers = {source.key: number for number, source in enumerate(sources, start=1)}
    pattern = re.compile("|".join(rf"(?<![\w-]){re.escape(key)}(?![\w-])"
                                  for key in sorted(numbers, key=len, reverse=True)) or r"(?!)")
    return lambda text: pattern.sub(lambda match: f"[{numbers[match.group(0)]}]", text)


def _bom_row(line: BomLine) -> dict[str, str]:
    """A bill-of-materials line as people count it: 1 system (not 1.00), a share as a percentage
    (2.0% of systems capex), power to a tenth of a kW."""
    quantity, unit = line.quantity, line.unit
    if unit.startswith("share "):
        shown, unit = format_share(quantity), unit.removeprefix("share ")
    else:
        shown = format_number(quantity, 0 if float(quantity).is_integer() else 1)
    return {"label": line.label, "quantity": shown, "unit": unit,
            "unit_price": format_usd_cents(line.unit_price_usd), "amount": format_usd_cents(line.amount_usd)}


def _age(price: PriceUsed, content: ReportContent) -> PriceAge:
    """How old a price was when the report was made (the catalog's rule)."""
    return price_age(as_of=price.as_of, checked_on=price.checked_on,
                     today=content.meta.generated_at.date(), stale_after_days=content.meta.stale_after_days)


def _png(figure: Figure) -> str:
    """A matplotlib figure as a PNG data URI for an <img>, at print resolution.

    PNG rather than SVG: WeasyPrint draws matplotlib's SVG (text as paths) several times
    slower than it embeds a bitmap, and 200 dpi prints sharply.
    """
    figure.set_dpi(PRINT_DPI)
    return "data:image/png;base64," + base64.b64encode(render(figure, "png")).decode("ascii")


def _mover(row: SensitivityRow, content: ReportContent) -> dict[str, str]:
    return {
        "path": describe_path(row.path, content.inputs),
        "base": input_term(row.path).show(row.base_value),
        "low": input_term(row.path).show(row.low_value),
        "high": input_term(row.path).show(row.high_value),
        "saving_low": format_usd_cents(row.saving_at_low_usd),
        "saving_high": format_usd_cents(row.saving_at_high_usd),
        "swing": format_usd_cents(row.swing_usd),
        "effect": format_usd_cents(row.effect_usd),
        "steps": "; ".join(step.words(f"{describe_path(row.path, content.inputs).lower()}")
                           for step in row.steps),
    }


def _verdict_rows(content: ReportContent) -> list[dict[str, str]]:
    """Every option the verdict ranks (cheapest first), then those it left out, with why."""
    verdict = content.result.verdict
    rows = [{"rank": str(rank), "option": option.label, "npv": format_usd_cents(option.npv_usd),
             "total": format_usd_cents(option.total_usd),
             "margin": "" if rank == 1 else format_usd_cents(option.npv_usd - verdict.cheapest.npv_usd)}
            for rank, option in enumerate(verdict.ranked, start=1)]
    rows += [{"rank": "left out", "option": option.name, "npv": "", "total": "", "margin": option.reason}
             for option in verdict.left_out]
    return rows


def _key_rows(content: ReportContent) -> list[dict[str, Any]]:
    """Rows of the key-figures table: buying's figure (if any), each rent option's, then each
    per-token API's where the figure applies to it (empty where it does not)."""
    result = content.result
    buy, options, apis = result.buy, result.rent, result.api
    tokens_given = math.isfinite(float(content.inputs.workload.tokens_per_s_per_accelerator))
    buy_total, buy_npv = scalar(buy.total_usd), scalar(buy.npv_usd)
    # The verdict's breakeven (the headline's): discounted, for every option it ranks.
    discounted = {(s.kind, s.name): s.breakeven_month for s in result.verdict.ranked}

    def row(label: str, buy_value: str, values: list[str],
            api_values: list[str] | None = None) -> dict[str, Any]:
        return {"label": label, "buy": buy_value, "rent": values + (api_values or [""] * len(apis))}

    rows = [
        row(
            "Total cost over the horizon",
            format_usd_cents(buy_total),
            [format_usd_cents(scalar(o.total_usd)) for o in options],
            [format_usd_cents(scalar(a.total_usd)) for a in apis],
        ),
        row(
            "NPV of costs",
            format_usd_cents(buy_npv),
            [format_usd_cents(scalar(o.npv_usd)) for o in options],
            [format_usd_cents(scalar(a.npv_usd)) for a in apis],
        ),
        row("Saving by buying, total", "", [format_usd_cents(scalar(o.saving_usd)) for o in options],
            [format_usd_cents(scalar(a.total_usd) - buy_total) for a in apis]),
        row("Saving by buying, NPV", "", [format_usd_cents(scalar(o.npv_saving_usd)) for o in options],
            [format_usd_cents(scalar(a.npv_usd) - buy_npv) for a in apis]),
        row("Cheaper by NPV", "", ["buy" if scalar(o.npv_saving_usd) > 0 else "rent" for o in options],
            ["buy" if scalar(a.npv_usd) > buy_npv else "API" for a in apis]),
        row("Breakeven (nominal)", "", [format_month(scalar(o.breakeven_month)) for o in options]),
        row("Breakeven (discounted)", "", [format_month(discounted.get(("rent", o.name))) for o in options],
            [format_month(discounted.get(("api", a.name))) for a in apis]),
        row("Breakeven utilisation", "", [format_share(scalar(o.breakeven_utilisation)) for o in options]),
        row("IRR of buying instead of renting", "", [format_share(scalar(o.irr_per_year)) for o in options]),
        row(
            "Cost per useful accelerator-hour",
            format_usd_cents(scalar(buy.cost_per_useful_accelerator_hour_usd)),
            [format_usd_cents(scalar(o.cost_per_useful_accelerator_hour_usd)) for o in options],
        ),
    ]
    if tokens_given:
        rows.append(
            row(
                "Cost per million tokens",
                format_usd_cents(scalar(buy.cost_per_million_tokens_usd)),
                [format_usd_cents(scalar(o.cost_per_million_tokens_usd)) for o in options],
                [format_usd_cents(scalar(a.cost_per_million_tokens_usd)) for a in apis],
            )
        )
    return rows


def _breakdown_rows(content: ReportContent) -> list[dict[str, str]]:
    """Each cost line's total over the horizon and its share of the option's total."""
    result = content.result
    sides = [("Buy", result.buy.cash_flows.lines_usd, scalar(result.buy.total_usd))] + [
        (option.name, option.cash_flows.lines_usd, scalar(option.total_usd))
        for option in (*result.rent, *result.api)  # every option the verdict weighs
    ]
    rows = []
    for side, lines, total in sides:
        for line, values in lines.items():
            amount = float(np.sum(values))
            if amount == 0.0:
                continue
            rows.append(
                {
                    "side": side,
                    "line": line_label(line),
                    "amount": format_usd_cents(amount),
                    "share": format_share(amount / total if total else math.nan),
                }
            )
    return rows


def _yearly_rows(content: ReportContent) -> list[dict[str, Any]]:
    """Cash paid per year by every option (buying, each rent option, each per-token API):
    year 0 is month 0 (up front), year y is months 12(y-1)+1 .. 12y."""
    result = content.result
    flows = [np.reshape(result.buy.cash_flows.per_month_usd, -1)] + [
        np.reshape(option.cash_flows.per_month_usd, -1) for option in (*result.rent, *result.api)
    ]
    n_months = len(flows[0]) - 1
    years = math.ceil(n_months / MONTHS_PER_YEAR)
    rows = [{"year": "0 (up front)", "values": [format_usd_cents(flow[0]) for flow in flows]}]
    for year in range(1, years + 1):
        months = slice(MONTHS_PER_YEAR * (year - 1) + 1, MONTHS_PER_YEAR * year + 1)
        rows.append(
            {"year": str(year), "values": [format_usd_cents(float(flow[months].sum())) for flow in flows]}
        )
    rows.append({"year": "Total", "values": [format_usd_cents(float(flow.sum())) for flow in flows]})
    return rows


def _useful_work(content: ReportContent) -> dict[str, Any]:
    """The full cost of useful work: goodput, cost and emissions per million tokens of every
    option (per-token APIs included), the token volumes at which each fleet beats each API, and
    the systems' resale against their book value."""
    figures = useful_work(content.inputs, content.result)
    options = [
        {
            "name": row.name,
            "goodput": format_share(None if row.goodput_percent is None else row.goodput_percent / 100),
            "checkpoint": "none needed" if row.checkpoint_interval_h is None
            else f"{row.checkpoint_interval_h:,.2f} h",
            "per_million_tokens": format_usd_cents(row.cost_per_million_tokens_usd),
            "tonnes_per_year": format_number(row.tonnes_per_year, 1),
            "kg_per_million_tokens": format_number(row.kg_per_million_tokens, 3),
        }
        for row in figures.options
    ]
    options += [
        {"name": f"API: {api.name}", "goodput": "", "checkpoint": "",
         "per_million_tokens": format_usd_cents(api.cost_per_million_tokens_usd),
         "tonnes_per_year": "not known", "kg_per_million_tokens": "not known"}
        for api in figures.apis
    ]
    apis = [
        {
            "name": api.name,
            "blended": format_usd_cents(api.blended_usd_per_million_tokens),
            "per_million_tokens": format_usd_cents(api.cost_per_million_tokens_usd),
            "total": format_usd_cents(api.total_usd),
            "within_rate_limit": "yes" if api.within_rate_limit else "no: the workload needs more",
            "volumes": [
                (fleet, "never, within the fleet's capacity" if volume is None
                 else f"above {format_number(volume, 0)} tokens a month")
                for fleet, volume in api.breakeven_tokens_per_month
            ],
        }
        for api in figures.apis
    ]
    return {
        "useful_options": options,
        "useful_apis": apis,
        "tokens_per_month": format_number(figures.tokens_per_month, 0),
        "resale_value": format_usd_cents(figures.resale_value_usd),
        "book_value": format_usd_cents(figures.book_value_usd),
        "embodied_tonnes": format_number(figures.embodied_tonnes, 1),
        "residual_chart": _png(residual_value_figure(content.inputs, content.result)),
    }


FOOTPRINT_ROWS = ("systems", "accelerators_bought", "systems_per_rack", "racks", "kw_per_rack",
                  "it_kw_max", "it_kw_average", "facility_kw_max", "facility_kw_average",
                  "mwh_per_year", "cooling_tier_name", "needs_new_cooling")


def _footprint_rows(content: ReportContent) -> list[tuple[str, str, str]]:
    footprint = content.result.footprint
    rows = []
    for name in FOOTPRINT_ROWS:
        term = RESULTS[f"footprint.{name}"]
        rows.append((term.label, term.show(item(getattr(footprint, name))),
                     term.unit))
    return rows


def _input_value(value: float, path: str) -> str:
    return input_term(path).show(value)


def _run_chapters(content: ReportContent) -> list[dict[str, Any]]:
    """The chapters of recorded runs, those that have any: Monte Carlo, then sweeps."""
    chapters = (
        ("monte-carlo", "Monte Carlo", [_monte_carlo(run, content.inputs) for run in content.monte_carlo]),
        ("sweeps", "Sweeps", [_sweep(run, content.inputs) for run in content.sweeps]),
    )
    return [{"id": anchor, "title": title, "runs": runs} for anchor, title, runs in chapters if runs]


def _sweep(run: RecordedRun, run_inputs) -> dict[str, Any]:
    summary = run.summary
    chart = breakeven_heatmap_figure(summary["heatmap"], rent_names=_rent_names(run_inputs))
    inputs = [
        (describe_path(axis["path"], run_inputs),
         [axis["count"], *(input_term(axis["path"]).show(axis[end]) for end in ("min", "max"))])
        for axis in summary["axes"]
    ]
    options = _option_rows(run, "buy_wins_share", ("min", "mean", "max"), ("min", "max"),
                           with_never_share=True)
    return {
        **_recorded_run(run, chart, "Breakeven month over the swept inputs"),
        "title": f"{run.title}: {summary['points']:,} points",
        "lead": _cheapest_sentence(summary, f"Over {summary['points']:,} points"),
        "tables": [
            (("Input swept", "Values", "From", "To"), inputs),
            *_ranking_tables(summary, ("min", "mean", "max")),
            (("Against", "Buying costs less", "NPV saving min", "mean", "max", "Breakeven from", "to",
              "Never"), options),
        ],
    }


def _cheapest_sentence(summary: dict[str, Any], opening: str) -> str:
    """How often each option is the cheapest, every option named ("0.0%" included)."""
    if "ranking" not in summary:  # a run summarised before its options were ranked
        return ""
    shares = [f"{row['label']} in {format_share(row['cheapest_share'])}" for row in summary["ranking"]]
    listed = shares[0] if len(shares) == 1 else ", ".join(shares[:-1]) + f" and {shares[-1]}"
    return f"{opening}, the cheapest option is {listed} of them."


def _ranking_tables(summary: dict[str, Any], stats: tuple[str, ...]) -> list[tuple[Any, list[Any]]]:
    """Every option's share of being the cheapest and its NPV's spread, then the winner's margin."""
    if "ranking" not in summary:
        return []
    names = {"p10": "P10", "p50": "P50", "p90": "P90", "min": "min", "mean": "mean", "max": "max"}
    rows = [(row["label"], [format_share(row["cheapest_share"]),
                            *(format_usd_cents(row["npv_usd"][stat]) for stat in stats)])
            for row in summary["ranking"]]
    margin = [format_usd_cents(summary["margin_usd"][stat]) for stat in stats]
    rows.append(("Winner's margin over the next cheapest", ["", *margin]))
    return [(("Option", "Cheapest", *(f"NPV {names[stat]}" for stat in stats)), rows)]


def _monte_carlo(run: RecordedRun, run_inputs) -> dict[str, Any]:
    summary = run.summary
    chart = saving_histogram_figure(summary["options"])
    options = _option_rows(run, "buy_wins_probability", ("p10", "p50", "p90"), ("p10", "p50", "p90"))
    inputs = [
        (describe_path(path, run_inputs),
         [input_term(path).show(spread[key]) for key in ("p10", "p50", "p90")])
        for path, spread in summary["inputs"].items()
    ]
    tables = [*_ranking_tables(summary, ("p10", "p50", "p90")),
              (("Against", "Buying costs less", "NPV saving P10", "P50", "P90", "Breakeven P10", "P50",
                "P90"), options)]
    if inputs:
        tables.append((("Input drawn", "P10", "P50", "P90"), inputs))
    return {
        **_recorded_run(run, chart, "Distribution of the NPV saving"),
        "lead": _cheapest_sentence(summary, f"In {summary['samples']:,} draws (seed {summary['seed']})") or (
            # A run summarised before its options were ranked knew buying and the rent options.
            f"{summary['samples']:,} draws (seed {summary['seed']}): buying beats every rent "
            f"option in {format_share(summary['buy_wins_probability'])} of them."),
        "tables": tables,
    }


def _rent_names(inputs) -> list[str]:
    """Names of the rent options, for labels of inputs that belong to one (``rent.2...``)."""
    return [option.name for option in inputs.rent]


def _recorded_run(run: RecordedRun, chart: Figure, chart_alt: str) -> dict[str, Any]:
    """What a sweep and a Monte Carlo run both show (reports/recorded_run.html): a title, a note,
    an optional lead sentence, their tables and a chart."""
    return {"title": run.title, "note": _run_note(run), "lead": "", "chart": _png(chart),
            "chart_alt": chart_alt}


def _option_rows(run: RecordedRun, wins: str, saving_stats: tuple[str, ...],
                 breakeven_stats: tuple[str, ...], *, with_never_share: bool = False) -> list[Any]:
    """A row per rent option: the share where buying wins, the NPV saving's and the breakeven
    month's statistics (and the share that never breaks even)."""
    options = []
    for name, figures in run.summary["options"].items():
        saving, breakeven = figures["npv_saving_usd"], figures["breakeven_month"]
        cells = [format_share(figures[wins]),
                 *(format_usd_cents(saving[stat]) for stat in saving_stats),
                 *(format_month(breakeven[stat]) for stat in breakeven_stats)]
        if with_never_share:
            cells.append(format_share(breakeven["never_share"]))
        options.append((name, cells))
    return options


def _run_note(run: RecordedRun) -> str:
    note = f"finished {timestamp(run.finished_at)}" if run.finished_at else ""
    if run.stale:
        note += "; the scenario has been saved since this run started, so its figures may differ"
    return note


def _sizing(sizing: SizingSummary) -> dict[str, Any]:
    def shown(value: Any) -> str:
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, int | float):
            return format_number(float(value), 4 if abs(value) < 10 else 2)
        return str(value)

    return {
        "title": sizing.title,
        "rows": [(label.replace("_", " ").capitalize(), shown(value), unit)
                 for label, value, unit in sizing.rows],
    }
