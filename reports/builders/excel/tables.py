"""Sheets of recorded values, not formulas: the price snapshot, sweeps, Monte Carlo and sizing."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

import costmodel as engine
from catalog.refresh.freshness import price_age
from costmodel.vocabulary import input_term
from costmodel.vocabulary import money_currency
from costmodel.vocabulary import result_term
from reports.builders.excel.cells import COUNT
from reports.builders.excel.cells import NOTE_FONT
from reports.builders.excel.cells import NUMBER
from reports.builders.excel.cells import PERCENT
from reports.builders.excel.cells import PRICE
from reports.builders.excel.cells import TEXT
from reports.builders.excel.cells import TOTAL_FONT
from reports.builders.excel.cells import USD
from reports.builders.excel.cells import absolute_range
from reports.builders.excel.cells import format_for
from reports.builders.excel.cells import header_row
from reports.builders.excel.cells import put_number
from reports.builders.excel.cells import put_text
from reports.builders.excel.cells import section
from reports.builders.excel.cells import set_widths
from reports.builders.excel.cells import title
from reports.builders.excel.grid import Book
from reports.builders.excel.grid import Chart
from reports.builders.excel.grid import Sheet
from reports.builders.excel.grid import get_column_letter
from reports.content import RecordedRun
from reports.content import ReportContent
from reports.content import SizingSummary
from reports.content import describe_path
from reports.formatting import timestamp
from tco.runs.compute import BUY_COST_COLUMN
from tco.runs.compute import OPTION_METRICS
from tco.runs.compute import WINNER_COLUMN

PRICES_SHEET = "Prices"
SWEEP_SHEET = "Sweep"
MONTE_CARLO_SHEET = "Monte Carlo"
SIZING_SHEET = "Sizing"
CHART_ROWS = 16
NEVER = "never"
SWEEP_OPTION_HEADINGS = (
    "Rent option",
    "Buying wins (share of points)",
    "NPV saving min",
    "NPV saving mean",
    "NPV saving max",
    "Breakeven month min",
    "Breakeven month max",
    "Never breaks even",
)
MONTE_CARLO_OPTION_HEADINGS = (
    "Rent option",
    "P(buying wins)",
    "NPV saving P10",
    "NPV saving P50",
    "NPV saving P90",
    "Breakeven P10",
    "Breakeven P50",
    "Breakeven P90",
    "Never breaks even",
)
# Low values green, high values red: a late breakeven or a high cost is the bad end.
HEAT_SCALE = {
    "type": "3_color_scale",
    "min_color": "#63BE7B",
    "mid_type": "percentile",
    "mid_value": 50,
    "mid_color": "#FFEB84",
    "max_color": "#F8696B",
}


def write_prices(ws: Sheet, content: ReportContent) -> None:
    """The catalog price points the evaluation used, with their dates, age and sources."""
    meta = content.meta
    title(
        ws,
        "Price snapshot",
        "Catalog prices the evaluation used. Prices typed into the scenario are "
        "on the Assumptions sheet with origin 'scenario'. Age on "
        f"{meta.generated_at.date().isoformat()}, from the later of the as-of date and the last "
        f"day a refresh found the price current; older than {meta.stale_after_days} days is stale.",
    )
    set_widths(ws, {"A": 12, "B": 48, "C": 16, "D": 10, "E": 12, "F": 14, "G": 16, "H": 60})
    header_row(ws, 4, ("Price point", "Applies to", "Amount", "Currency", "As of",
                       "Last known current", "Age [days]", "Source"))
    ws.freeze("A5")
    for row, price in enumerate(content.prices, start=5):
        age = price_age(as_of=price.as_of, checked_on=price.checked_on,
                        today=meta.generated_at.date(), stale_after_days=meta.stale_after_days)
        ws.cell(row=row, column=1, value=price.price_point_id)
        put_text(ws.cell(row=row, column=2), price.target)
        put_number(ws.cell(row=row, column=3), float(price.amount), PRICE)  # in its own currency
        put_text(ws.cell(row=row, column=4), price.currency)
        ws.cell(row=row, column=5, value=price.as_of).number_format = "yyyy-mm-dd"
        ws.cell(row=row, column=6, value=age.known_on).number_format = "yyyy-mm-dd"
        put_text(ws.cell(row=row, column=7), f"{age.age_days:,} (stale)" if age.is_stale
                 else f"{age.age_days:,}")
        put_text(ws.cell(row=row, column=8), price.source)
    prices = content.prices
    if not prices:
        put_text(ws.cell(row=5, column=2), "No catalog price used: every price was given in the scenario.")
    ws.print_title_rows = "4:4"


def _option_rows(
    ws: Sheet,
    row: int,
    headings: tuple[str, ...],
    options: dict[str, dict],
    wins: str,
    *,
    saving_stats: tuple[str, ...],
    breakeven_stats: tuple[str, ...],
) -> int:
    """A heading row, then a row per rent option: how often buying wins (key ``wins``), the
    NPV saving's and the breakeven month's statistics, and the share that never breaks even.
    Returns the last row written."""
    header_row(ws, row, headings, tall=True)
    for name, figures in options.items():
        row += 1
        saving, breakeven = figures["npv_saving_usd"], figures["breakeven_month"]
        values = [
            (figures[wins], PERCENT),
            *((saving[stat], USD) for stat in saving_stats),
            *((breakeven[stat], COUNT) for stat in breakeven_stats),
            (breakeven["never_share"], PERCENT),
        ]
        put_text(ws.cell(row=row, column=1), name)
        for column, (value, number_format) in enumerate(values, start=2):
            put_number(ws.cell(row=row, column=column), value, number_format)
    return row


def write_sweep(ws: Sheet, run: RecordedRun, inputs: engine.Scenario) -> None:
    """A sweep's figures per rent option with their chart, its heat maps, and its points when it
    has few enough."""
    summary = run.summary
    title(ws, run.title, _run_note(run))
    set_widths(ws, {"A": 44} | {get_column_letter(c): 16 for c in range(2, 12)})
    header_row(ws, 4, ("Input swept", "Values", "From", "To"))
    row = 5
    for axis in summary["axes"]:
        put_text(ws.cell(row=row, column=1), _input_heading(axis["path"], inputs))
        put_number(ws.cell(row=row, column=2), axis["count"], COUNT)
        number_format = format_for(input_term(axis["path"]))
        put_number(ws.cell(row=row, column=3), axis["min"], number_format)
        put_number(ws.cell(row=row, column=4), axis["max"], number_format)
        row += 1
    row += 1
    first_option_row = row + 1
    row = _option_rows(ws, row, SWEEP_OPTION_HEADINGS, summary["options"], "buy_wins_share",
                       saving_stats=("min", "mean", "max"), breakeven_stats=("min", "max"))
    ws.add_chart(_saving_chart(ws, first_option_row, row), f"A{row + 2}")
    row += 2 + CHART_ROWS
    heatmap = summary["heatmap"]
    for name, grid in heatmap["breakeven_month"].items():
        row = _heat_map(ws, row, name, heatmap, grid, inputs) + 2
    if run.points is not None:
        _points(ws, row, run.points, inputs)
    else:
        put_text(
            ws.cell(row=row, column=1),
            f"{summary['points']:,} points are more than a sheet lists here; the full table is the "
            f"download of sweep run #{run.run_id}.",
        ).font = NOTE_FONT
    ws.freeze("B5")


def _saving_chart(ws: Sheet, first_row: int, last_row: int) -> Chart:
    """The NPV saving of buying per rent option across the sweep: its lowest, mean and highest."""
    names = absolute_range(ws, first_row, last_row, 1)
    series = [
        {
            "name": heading,
            "categories": names,
            "values": absolute_range(ws, first_row, last_row, column),
            "fill": {"color": colour},
            "gap": 80,
        }
        for column, heading, colour in (
            (3, "Lowest", "#C55A11"),
            (4, "Mean", "#1F4E79"),
            (5, "Highest", "#70AD47"),
        )
    ]
    return Chart(
        kind={"type": "column"},
        series=series,
        title=f"NPV saving of buying across the sweep ({money_currency()})",
        x_axis={"name": "Rent option", "label_position": "low"},
        y_axis={"name": f"NPV saving of buying ({money_currency()})", "num_format": '"$"#,##0'},
        legend={"position": "bottom"},
        size={"width": 900, "height": 300},
    )


def _input_heading(path: str, inputs: engine.Scenario) -> str:
    """An input's label with its unit, naming the rent option an indexed path belongs to."""
    unit = input_term(path).unit
    label = describe_path(path, inputs)
    return f"{label} ({unit})" if unit else label


def _heat_map(
    ws: Sheet, row: int, option: str, heatmap: dict, grid: list[list[float | None]], inputs: engine.Scenario
) -> int:
    """Median breakeven month over the heat-map inputs, coloured; returns the last row written."""
    x_label = _input_heading(heatmap["x_path"], inputs)
    y_path = heatmap["y_path"]
    y_label = _input_heading(y_path, inputs) if y_path else ""
    section(
        ws,
        row,
        f"Breakeven month against {option}: median per cell, by {x_label} (columns)"
        + (f" and {y_label} (rows)" if y_path else ""),
    )
    put_text(ws.cell(row=row + 1, column=1), f"{y_label} \\ {x_label}" if y_path else x_label)
    x_format = format_for(input_term(heatmap["x_path"]))
    for offset, value in enumerate(heatmap["x_values"], start=2):
        put_number(ws.cell(row=row + 1, column=offset), value, x_format).font = TOTAL_FONT
    y_values = heatmap["y_values"] or [None]
    y_format = format_for(input_term(y_path)) if y_path else NUMBER
    for line, (y_value, cells) in enumerate(zip(y_values, grid, strict=True), start=row + 2):
        if y_value is not None:
            put_number(ws.cell(row=line, column=1), y_value, y_format).font = TOTAL_FONT
        for offset, month in enumerate(cells, start=2):
            if month is None:
                put_text(ws.cell(row=line, column=offset), NEVER)
            else:
                put_number(ws.cell(row=line, column=offset), month, COUNT)
    last = row + 1 + len(grid)
    corner = f"B{row + 2}:{get_column_letter(1 + len(heatmap['x_values']))}{last}"
    ws.conditional_formats.append((corner, HEAT_SCALE))
    return last


def _points(ws: Sheet, row: int, points: pd.DataFrame, inputs: engine.Scenario) -> None:
    """Every point of the sweep, one row each (NaN, i.e. never breaks even, left empty)."""
    section(ws, row, "Every point of the sweep")
    columns = [_point_column(str(column), inputs) for column in points.columns]
    header_row(ws, row + 1, [heading for heading, _ in columns])
    for line, values in enumerate(points.itertuples(index=False, name=None), start=row + 2):
        for column, (value, (_, number_format)) in enumerate(zip(values, columns, strict=True), start=1):
            if isinstance(value, str):
                put_text(ws.cell(row=line, column=column), value)
            else:
                put_number(ws.cell(row=line, column=column), _cell_value(value), number_format)


def _point_column(column: str, inputs: engine.Scenario) -> tuple[str, str]:
    """(heading, number format) of a column of a run's points table (``tco.runs.compute``)."""
    if column == WINNER_COLUMN:
        return "Cheaper option", TEXT
    if column == BUY_COST_COLUMN:
        term = result_term(f"summary.{column}")
        return term.heading(), format_for(term)
    option, separator, metric = column.rpartition(": ")
    if separator and metric in OPTION_METRICS:
        term = result_term(f"summary.{metric}")
        return f"{option}: {term.heading()}", format_for(term)
    return _input_heading(column, inputs), format_for(input_term(column))


def _cell_value(value: object) -> float | None:
    """A number from a frame as a cell value: NaN (no answer) as an empty cell."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(value)


def _run_note(run: RecordedRun) -> str:
    note = f"Recorded results of run #{run.run_id} (values, not formulas)"
    if run.finished_at is not None:
        note += f", finished {timestamp(run.finished_at)}"
    if run.stale:
        note += ". The scenario has been saved since this run started: its figures may differ."
    return note + "."


def write_monte_carlo(ws: Sheet, run: RecordedRun, inputs: engine.Scenario) -> None:
    """Percentiles of the saving and breakeven per rent option, the inputs drawn, and histograms."""
    summary = run.summary
    title(ws, run.title, _run_note(run))
    set_widths(ws, {"A": 44} | {get_column_letter(c): 18 for c in range(2, 12)})
    rows = [
        ("Draws", summary["samples"], COUNT),
        ("Seed", summary["seed"], "0"),
        ("Probability that buying beats every rent option", summary["buy_wins_probability"], PERCENT),
    ]
    for row, (label, value, number_format) in enumerate(rows, start=4):
        put_text(ws.cell(row=row, column=1), label)
        put_number(ws.cell(row=row, column=2), value, number_format)
    row = 4 + len(rows) + 1
    row = _option_rows(ws, row, MONTE_CARLO_OPTION_HEADINGS, summary["options"], "buy_wins_probability",
                       saving_stats=("p10", "p50", "p90"), breakeven_stats=("p10", "p50", "p90"))
    row += 2
    header_row(ws, row, ("Input drawn", "P10", "P50", "P90", "Mean"))
    for path, spread in summary["inputs"].items():
        row += 1
        put_text(ws.cell(row=row, column=1), _input_heading(path, inputs))
        for column, key in enumerate(("p10", "p50", "p90", "mean"), start=2):
            put_number(ws.cell(row=row, column=column), spread[key], format_for(input_term(path)))
    row += 2
    for name, figures in summary["options"].items():
        row = _histogram(ws, row, name, figures["histogram"]) + 2


def _histogram(ws: Sheet, row: int, option: str, histogram: dict) -> int:
    """One rent option's histogram of the NPV saving, as a table and a bar chart; returns its last row."""
    edges, counts = histogram["bin_edges_usd"], histogram["counts"]
    section(ws, row, f"NPV saving of buying against {option}")
    header_row(ws, row + 1, (f"From ({money_currency()})", f"To ({money_currency()})", "Draws"))
    for offset, (low, high, count) in enumerate(zip(edges[:-1], edges[1:], counts, strict=True), start=2):
        put_number(ws.cell(row=row + offset, column=1), low, USD)
        put_number(ws.cell(row=row + offset, column=2), high, USD)
        ws.cell(row=row + offset, column=3, value=int(count))
    last = row + 1 + len(counts)
    chart = Chart(
        kind={"type": "column"},
        series=[
            {
                "name": "Draws",
                "categories": absolute_range(ws, row + 2, last, 1),
                "values": absolute_range(ws, row + 2, last, 3),
                "gap": 20,
            }
        ],
        title="Draws by NPV saving",
        x_axis={"name": f"NPV saving from ({money_currency()})", "num_format": '"$"#,##0'},
        y_axis={"name": "Draws", "num_format": "#,##0"},
    )
    ws.add_chart(chart, f"E{row + 1}")
    # The chart is about 15 rows tall; keep the next section below it.
    return max(last, row + CHART_ROWS)


def write_sizing(ws: Sheet, sizing: SizingSummary) -> None:
    """How the accelerator count was derived."""
    title(ws, sizing.title, "Recorded sizing figures (values, not formulas).")
    set_widths(ws, {"A": 48, "B": 22, "C": 20})
    header_row(ws, 4, ("Figure", "Value", "Unit"))
    for row, (label, value, unit) in enumerate(sizing.rows, start=5):
        put_text(ws.cell(row=row, column=1), label)
        if isinstance(value, bool):
            put_text(ws.cell(row=row, column=2), "yes" if value else "no")
        elif isinstance(value, int | float):
            put_number(ws.cell(row=row, column=2), float(value), NUMBER)
        else:
            put_text(ws.cell(row=row, column=2), value)
        put_text(ws.cell(row=row, column=3), unit)


def add_recorded_sheets(wb: Book, content: ReportContent) -> None:
    """Sweep, Monte Carlo and Sizing sheets, each only where the scenario has one."""
    for index, run in enumerate(content.sweeps):
        write_sweep(wb.create_sheet(_numbered(SWEEP_SHEET, index)), run, content.inputs)
    for index, run in enumerate(content.monte_carlo):
        write_monte_carlo(wb.create_sheet(_numbered(MONTE_CARLO_SHEET, index)), run, content.inputs)
    if content.sizing is not None:
        write_sizing(wb.create_sheet(SIZING_SHEET), content.sizing)


def _numbered(name: str, index: int) -> str:
    return name if index == 0 else f"{name} {index + 1}"
