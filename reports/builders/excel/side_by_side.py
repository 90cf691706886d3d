"""One sheet comparing several scenarios side by side: their key figures, their cumulative costs
month by month and one chart of them (issue 16).

The figures are each scenario's own evaluation (``tco.services.side_by_side``), so they equal its page;
the saving and the ranking are formulas over them, carrying their values like every formula.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from costmodel.vocabulary import money_currency
from costmodel.vocabulary import money_in
from reports.builders.excel.cells import COUNT
from reports.builders.excel.cells import LINE_COLOURS
from reports.builders.excel.cells import MONTH
from reports.builders.excel.cells import PERCENT
from reports.builders.excel.cells import RIGHT
from reports.builders.excel.cells import TALL_HEADER_HEIGHT
from reports.builders.excel.cells import TEXT
from reports.builders.excel.cells import TOTAL_FONT
from reports.builders.excel.cells import USD
from reports.builders.excel.cells import USD_PRICE
from reports.builders.excel.cells import WRAP
from reports.builders.excel.cells import absolute
from reports.builders.excel.cells import define_name
from reports.builders.excel.cells import header_row
from reports.builders.excel.cells import put_formula
from reports.builders.excel.cells import put_number
from reports.builders.excel.cells import put_text
from reports.builders.excel.cells import section
from reports.builders.excel.cells import set_widths
from reports.builders.excel.cells import title
from reports.builders.excel.grid import Book
from reports.builders.excel.grid import Chart
from reports.builders.excel.grid import Sheet
from reports.builders.excel.grid import get_column_letter
from reports.builders.excel.monthly import start_table
from reports.builders.excel.writer import PrintSetup
from reports.builders.excel.writer import save
from reports.formatting import timestamp
from tco.services.side_by_side import Column

SHEET = "Side by side"
FIRST_FIGURE_ROW = 5
# (label, Column attribute, number format) of the recorded key figures, in the page's order.
FIGURES = (
    ("Version", "version", COUNT),
    ("Status", "status", TEXT),
    ("Horizon (months)", "horizon_months", MONTH),
    ("Total cost of buying", "buy_total_usd", USD),
    ("NPV of buying", "buy_npv_usd", USD),
    ("Cheapest rent option by NPV", "cheapest_rent", TEXT),
    ("NPV of renting (cheapest option)", "rent_npv_usd", USD),
    ("Breakeven month (nominal)", "breakeven_month", MONTH),
    ("Cost per useful GPU-hour, buying", "buy_cost_per_useful_accelerator_hour_usd", USD_PRICE),
    ("Cost per million tokens, buying", "buy_cost_per_million_tokens_usd", USD_PRICE),
    ("Goodput, buying", "buy_goodput_share", PERCENT),
    ("Emissions of buying (t CO2e per year)", "buy_tonnes_co2e_per_year", "#,##0.0"),
)
NO_ANSWER = {"breakeven_month": "never"}
CHART_ROWS = 22  # the chart sits between the key figures and the month table


def build_side_by_side_workbook(
    columns: Sequence[Column], *, generated_at: datetime, paper: str = "a4"
) -> bytes:
    """The scenarios' key figures, one column each, and their cumulative costs with a chart."""
    with money_in(columns[0].currency):
        book = Book()
        write_side_by_side(book.create_sheet(SHEET), columns, generated_at)
        setup = PrintSetup(paper, f"Generated {timestamp(generated_at)}")
        return save(book, setup, {"title": "Scenarios side by side", "author": "AI compute TCO service"})


def write_side_by_side(ws: Sheet, columns: Sequence[Column], generated_at: datetime) -> None:
    title(
        ws,
        "Scenarios side by side",
        f"Each scenario as its own page evaluates it, buying against its cheapest rent option by "
        f"NPV; money in {money_currency()}. Generated {timestamp(generated_at)}.",
    )
    set_widths(ws, {"A": 40} | {get_column_letter(c): 24 for c in range(2, 3 + 2 * len(columns))})
    header_row(ws, FIRST_FIGURE_ROW - 1, ["Figure", *(column.name for column in columns)], tall=True)
    row = FIRST_FIGURE_ROW
    rows: dict[str, int] = {}
    for label, attribute, number_format in FIGURES:
        rows[attribute] = row
        put_text(ws.cell(row=row, column=1), label)
        for offset, column in enumerate(columns, start=2):
            _put(ws.cell(row=row, column=offset), getattr(column, attribute), number_format,
                 NO_ANSWER.get(attribute, "n/a"))
        row += 1
    # Offering names wrap onto up to three lines; spreadsheets do not grow the row.
    ws.row_heights[rows["cheapest_rent"]] = TALL_HEADER_HEIGHT
    _live_rows(ws, row, columns, rows)
    _cumulative(ws, row + 4, columns)



def _put(cell, value, number_format: str, missing: str) -> None:
    if value is None:
        put_text(cell, missing).alignment = RIGHT
    elif number_format == TEXT:
        put_text(cell, value).alignment = WRAP
    else:
        put_number(cell, float(value), number_format)


def _live_rows(ws: Sheet, row: int, columns: Sequence[Column], rows: dict[str, int]) -> None:
    """The saving (rent NPV - buy NPV) and the cheaper side as formulas over the rows above."""
    put_text(ws.cell(row=row, column=1), "NPV saving of buying (rent - buy)").font = TOTAL_FONT
    put_text(ws.cell(row=row + 1, column=1), "Cheaper by NPV")
    put_text(ws.cell(row=row + 2, column=1), "Rank by NPV saving (1 = buying saves most)")
    for offset in range(2, 2 + len(columns)):
        letter = get_column_letter(offset)
        put_formula(
            ws.cell(row=row, column=offset),
            f"{letter}{rows['rent_npv_usd']}-{letter}{rows['buy_npv_usd']}",
            USD,
        ).font = TOTAL_FONT
        put_formula(ws.cell(row=row + 1, column=offset), f'IF({letter}{row}>0,"buy","rent")', TEXT)
        put_formula(
            ws.cell(row=row + 2, column=offset),
            f"RANK({letter}{row},saving_by_scenario)",
            COUNT,
        )
    last = get_column_letter(1 + len(columns))
    define_name(ws, "saving_by_scenario", f"{absolute(ws, row, 2)}:${last}${row}")


def _cumulative(ws: Sheet, header: int, columns: Sequence[Column]) -> None:
    """Cumulative cost by month, buying and the cheapest rent option per scenario, and the chart."""
    chart_at = f"A{header}"
    header += CHART_ROWS
    section(ws, header - 1, f"Cumulative cost by month ({money_currency()})")
    headings = []
    for column in columns:
        headings += [f"{column.name}: buy", f"{column.name}: {column.cheapest_rent}"]
    months = max(len(column.buy_cumulative_usd) for column in columns) - 1
    table = start_table(ws, header, headings, months)
    series = []
    for index, column in enumerate(columns):
        colour = LINE_COLOURS[index % len(LINE_COLOURS)]
        for side, values in enumerate((column.buy_cumulative_usd, column.rent_cumulative_usd)):
            at = 2 + 2 * index + side
            for month, amount in enumerate(values):
                put_number(ws.cell(row=table.row_of(month), column=at), amount, USD)
            last = table.row_of(len(values) - 1)
            series.append({
                "name": headings[2 * index + side],
                "categories": table.column_range(1).replace(f"${table.last_row}", f"${last}"),
                "values": table.column_range(at).replace(f"${table.last_row}", f"${last}"),
                "marker": {"type": "none"},
                "line": {"color": colour, "width": 2.25 if side == 0 else 1.5,
                         "dash_type": "solid" if side == 0 else "dash"},
            })
    ws.add_chart(
        Chart(
            kind={"type": "scatter", "subtype": "straight"},
            series=series,
            title="Cumulative cost: buying (solid) and the cheapest rent option (dashed)",
            x_axis={"name": "Month", "num_format": "0", "min": 0, "max": months},
            y_axis={"name": f"Cumulative cost ({money_currency()})", "num_format": '"$"#,##0'},
            legend={"position": "bottom"},
            size={"width": 900, "height": 420},
        ),
        chart_at,
    )
