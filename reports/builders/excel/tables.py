"""Sheets of recorded values, not formulas: the price snapshot, sweeps, Monte Carlo and sizing."""
from __future__ import annotations

import math

import numpy as np
from openpyxl.cell.cell import Cell
from openpyxl.chart import BarChart, Reference
from openpyxl.formatting.rule import ColorScaleRule
from openpyxl.utils import get_column_letter
from openpyxl.workbook.workbook import Workbook
from openpyxl.worksheet.worksheet import Worksheet

from reports.builders.excel.cells import (
    NUMBER,
    PERCENT,
    USD,
    USD_PRICE,
    header_row,
    put_number,
    put_text,
    section,
    set_widths,
    title,
)
from reports.content import MonteCarloSummary, PriceRow, SizingSummary, SweepTable

PRICES_SHEET = "Prices"
SWEEP_SHEET = "Sweep"
MONTE_CARLO_SHEET = "Monte Carlo"
SIZING_SHEET = "Sizing"
HISTOGRAM_BINS = 20
# Low values green, high values red: a late breakeven or a high cost is the bad end.
HEAT_SCALE = ColorScaleRule(start_type="min", start_color="63BE7B", mid_type="percentile", mid_value=50,
                            mid_color="FFEB84", end_type="max", end_color="F8696B")


def write_prices(ws: Worksheet, prices: tuple[PriceRow, ...]) -> None:
    """The catalog price points the evaluation used, with their dates and sources."""
    title(ws, "Price snapshot", "Catalog prices the evaluation used. Prices typed into the scenario are "
                                "on the Assumptions sheet with origin 'scenario'.")
    set_widths(ws, {"A": 12, "B": 48, "C": 16, "D": 10, "E": 12, "F": 60})
    header_row(ws, 4, ("Price point", "Applies to", "Amount", "Currency", "As of", "Source"))
    ws.freeze_panes = "A5"
    for row, price in enumerate(prices, start=5):
        ws.cell(row=row, column=1, value=price.price_point_id)
        put_text(ws.cell(row=row, column=2), price.target)
        put_number(ws.cell(row=row, column=3), price.amount, USD_PRICE)
        put_text(ws.cell(row=row, column=4), price.currency)
        ws.cell(row=row, column=5, value=price.as_of).number_format = "yyyy-mm-dd"
        put_text(ws.cell(row=row, column=6), price.source)
    if not prices:
        put_text(ws.cell(row=5, column=2), "No catalog price used: every price was given in the scenario.")
    ws.print_title_rows = "4:4"


def write_sweep(ws: Worksheet, sweep: SweepTable) -> None:
    """Every grid point of a sweep, colour-scaled; a two-input sweep also gets a heat map grid."""
    title(ws, sweep.title, "Recorded engine results, one row per grid point (values, not formulas).")
    frame = sweep.frame
    header = 4
    header_row(ws, header, [str(column) for column in frame.columns])
    ws.freeze_panes = ws.cell(row=header + 1, column=1)
    for values in frame.itertuples(index=False, name=None):
        ws.append([_text_cell(ws, value) if isinstance(value, str) else _cell_value(value) for value in values])
    last = header + len(frame)
    if sweep.heat_value in frame.columns and len(frame):
        letter = get_column_letter(frame.columns.get_loc(sweep.heat_value) + 1)
        ws.conditional_formatting.add(f"{letter}{header + 1}:{letter}{last}", HEAT_SCALE)
    set_widths(ws, {get_column_letter(c): 18 for c in range(1, len(frame.columns) + 1)})
    if len(sweep.axes) == 2 and sweep.heat_value in frame.columns:
        _heat_map(ws, sweep, first_column=len(frame.columns) + 2, header=header)
    ws.print_title_rows = f"{header}:{header}"


def _heat_map(ws: Worksheet, sweep: SweepTable, *, first_column: int, header: int) -> None:
    """The heat value pivoted over the two swept inputs, coloured by conditional formatting."""
    rows_axis, columns_axis = sweep.axes
    grid = sweep.frame.pivot_table(index=rows_axis, columns=columns_axis, values=sweep.heat_value,
                                   aggfunc="first", dropna=False)
    put_text(ws.cell(row=header - 1, column=first_column),
             f"{sweep.heat_value} by {rows_axis} (rows) and {columns_axis} (columns)")
    put_text(ws.cell(row=header, column=first_column), f"{rows_axis} \\ {columns_axis}")
    for offset, value in enumerate(grid.columns, start=1):
        put_number(ws.cell(row=header, column=first_column + offset), float(value), NUMBER)
    for row_offset, (label, values) in enumerate(grid.iterrows(), start=1):
        row = header + row_offset
        put_number(ws.cell(row=row, column=first_column), float(label), NUMBER)
        for offset, value in enumerate(values, start=1):
            ws.cell(row=row, column=first_column + offset, value=_cell_value(value))
    top_left = f"{get_column_letter(first_column + 1)}{header + 1}"
    bottom_right = f"{get_column_letter(first_column + grid.shape[1])}{header + grid.shape[0]}"
    ws.conditional_formatting.add(f"{top_left}:{bottom_right}", HEAT_SCALE)


def _cell_value(value: object) -> object:
    """A number from a frame as a cell value: NaN (no answer) as an empty cell."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _text_cell(ws: Worksheet, text: str) -> Cell:
    """Text from a frame is data: a cell that never runs it as a formula."""
    return put_text(Cell(ws), text)


def write_monte_carlo(ws: Worksheet, run: MonteCarloSummary) -> None:
    """Percentiles of the NPV saving, the chance that buying wins, and a histogram."""
    title(ws, run.title, "Recorded engine results (values, not formulas).")
    set_widths(ws, {"A": 40, "B": 22, "C": 22})
    rows = [("Draws", float(run.draws), NUMBER),
            *((f"NPV saving {label}", float(value), USD) for label, value in run.saving_percentiles_usd.items()),
            ("Probability that buying wins", run.probability_buy_wins, PERCENT)]
    for row, (label, value, number_format) in enumerate(rows, start=4):
        put_text(ws.cell(row=row, column=1), label)
        put_number(ws.cell(row=row, column=2), value, number_format)
    row = 4 + len(rows) + 1
    if run.distributions:
        section(ws, row, "Uncertain inputs")
        for offset, (path, description) in enumerate(run.distributions, start=1):
            put_text(ws.cell(row=row + offset, column=1), path)
            put_text(ws.cell(row=row + offset, column=2), description)
        row += len(run.distributions) + 2
    if run.savings_usd is not None and len(run.savings_usd):
        _histogram(ws, row, run.savings_usd)


def _histogram(ws: Worksheet, row: int, savings_usd: np.ndarray) -> None:
    counts, edges = np.histogram(np.asarray(savings_usd, dtype=float), bins=HISTOGRAM_BINS)
    section(ws, row, "Distribution of the NPV saving")
    header_row(ws, row + 1, ("From (USD)", "To (USD)", "Draws"))
    for offset, (low, high, count) in enumerate(zip(edges[:-1], edges[1:], counts, strict=True), start=2):
        put_number(ws.cell(row=row + offset, column=1), float(low), USD)
        put_number(ws.cell(row=row + offset, column=2), float(high), USD)
        ws.cell(row=row + offset, column=3, value=int(count))
    chart = BarChart()
    chart.title = "NPV saving of buying over the draws"
    chart.x_axis.title = "NPV saving from (USD)"
    chart.y_axis.title = "Draws"
    chart.x_axis.delete = chart.y_axis.delete = False
    first, last = row + 2, row + 1 + HISTOGRAM_BINS
    chart.add_data(Reference(ws, min_col=3, min_row=row + 1, max_row=last), titles_from_data=True)
    chart.set_categories(Reference(ws, min_col=1, min_row=first, max_row=last))
    ws.add_chart(chart, f"E{row}")


def write_sizing(ws: Worksheet, sizing: SizingSummary) -> None:
    """How the accelerator count was derived."""
    title(ws, sizing.title, "Recorded sizing figures (values, not formulas).")
    set_widths(ws, {"A": 48, "B": 22, "C": 20})
    header_row(ws, 4, ("Figure", "Value", "Unit"))
    for row, (label, value, unit) in enumerate(sizing.rows, start=5):
        put_text(ws.cell(row=row, column=1), label)
        if isinstance(value, int | float):
            put_number(ws.cell(row=row, column=2), float(value), NUMBER)
        else:
            put_text(ws.cell(row=row, column=2), value)
        put_text(ws.cell(row=row, column=3), unit)


def add_recorded_sheets(wb: Workbook, *, sweeps: tuple[SweepTable, ...], monte_carlo: tuple[MonteCarloSummary, ...],
                        sizing: SizingSummary | None) -> None:
    """Sweep, Monte Carlo and Sizing sheets, each only where the scenario has one."""
    for index, sweep in enumerate(sweeps):
        write_sweep(wb.create_sheet(_numbered(SWEEP_SHEET, index)), sweep)
    for index, run in enumerate(monte_carlo):
        write_monte_carlo(wb.create_sheet(_numbered(MONTE_CARLO_SHEET, index)), run)
    if sizing is not None:
        write_sizing(wb.create_sheet(SIZING_SHEET), sizing)


def _numbered(name: str, index: int) -> str:
    return name if index == 0 else f"{name} {index + 1}"
