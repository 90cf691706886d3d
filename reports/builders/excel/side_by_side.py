"""One sheet comparing several scenarios side by side: their key figures, their cumulative costs
month by month and one chart of them (issue 16).

The figures are each scenario's own evaluation (``tco.services.side_by_side``), so they equal its page;
the saving and the ranking are formulas over them, carrying their values like every formula.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from costmodel.vocabulary import Kind
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
from tco.services.side_by_side import BUY_NPV
from tco.services.side_by_side import RIVAL
from tco.services.side_by_side import RIVAL_NPV
from tco.services.side_by_side import SAVING
from tco.services.side_by_side import Column
from tco.services.side_by_side import side_by_side_rows

SHEET = "Side by side"
FIRST_FIGURE_ROW = 5
# How each kind of figure is written (the rows themselves are the page's: side_by_side_rows).
FORMATS = {Kind.USD: USD, Kind.USD_PRICE: USD_PRICE, Kind.MONTH: MONTH, Kind.SHARE: PERCENT,
           Kind.QUANTITY: "#,##0.0", Kind.COUNT: COUNT, Kind.TEXT: TEXT}
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
        f"Each scenario as its own page evaluates it: every option ranked by NPV, the winner and its "
        f"margin, and buying against its rival (the cheapest other option); money in "
        f"{money_currency()}. Generated {timestamp(generated_at)}.",
    )
    set_widths(ws, {"A": 40} | {get_column_letter(c): 24 for c in range(2, 3 + 2 * len(columns))})
    header_row(ws, FIRST_FIGURE_ROW - 1, ["Figure", *(column.name for column in columns)], tall=True)
    row = FIRST_FIGURE_ROW
    rows: dict[str, int] = {}
    for figure in side_by_side_rows(columns):
        rows[figure.label] = row
        put_text(ws.cell(row=row, column=1), figure.label)
        for offset, (value, shown) in enumerate(zip(figure.values, figure.shown, strict=True), start=2):
            if figure.label == SAVING:  # a formula over the two NPVs above, stored with its value
                _saving_formula(ws.cell(row=row, column=offset), rows)
            else:
                _put(ws.cell(row=row, column=offset), value, FORMATS[figure.kind], shown)
        if figure.kind is Kind.TEXT:  # option names wrap onto up to three lines
            ws.row_heights[row] = TALL_HEADER_HEIGHT
        row += 1
    _live_rows(ws, row, columns, rows)
    _cumulative(ws, row + 4, columns)


def _put(cell, value, number_format: str, shown: str) -> None:
    if value is None:
        put_text(cell, shown).alignment = RIGHT
    elif number_format == TEXT:
        put_text(cell, value).alignment = WRAP
    else:
        put_number(cell, float(value), number_format)


def _saving_formula(cell, rows: dict[str, int]) -> None:
    letter = get_column_letter(cell.column)
    rival, buy = f"{letter}{rows[RIVAL_NPV]}", f"{letter}{rows[BUY_NPV]}"
    put_formula(cell, f'IF(ISNUMBER({rival}),{rival}-{buy},"")', USD).font = TOTAL_FONT


def _live_rows(ws: Sheet, row: int, columns: Sequence[Column], rows: dict[str, int]) -> None:
    """The cheaper of buying and its rival, and the scenarios ranked by buying's saving, as
    formulas over the saving row."""
    put_text(ws.cell(row=row, column=1), "Cheaper of buying and its rival (NPV)")
    put_text(ws.cell(row=row + 1, column=1), "Rank by saving (1 = buying saves most)")
    for offset in range(2, 2 + len(columns)):
        letter = get_column_letter(offset)
        saving = f"{letter}{rows[SAVING]}"
        put_formula(ws.cell(row=row, column=offset),
                    f'IF(ISNUMBER({saving}),IF({saving}>0,"buy",{letter}{rows[RIVAL]}),"buy")', TEXT)
        put_formula(ws.cell(row=row + 1, column=offset),
                    f'IF(ISNUMBER({saving}),RANK({saving},saving_by_scenario),"")', COUNT)
    last = get_column_letter(1 + len(columns))
    define_name(ws, "saving_by_scenario", f"{absolute(ws, rows[SAVING], 2)}:${last}${rows[SAVING]}")


def _cumulative(ws: Sheet, header: int, columns: Sequence[Column]) -> None:
    """Cumulative cost by month, buying and the cheapest rent option per scenario, and the chart."""
    chart_at = f"A{header}"
    header += CHART_ROWS
    section(ws, header - 1, f"Cumulative cost by month ({money_currency()})")
    headings = []
    for column in columns:
        headings += [f"{column.name}: buy", f"{column.name}: {column.cheapest_rent or 'no rival'}"]
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
            title="Cumulative cost: buying (solid) and its rival (dashed)",
            x_axis={"name": "Month", "num_format": "0", "min": 0, "max": months},
            y_axis={"name": f"Cumulative cost ({money_currency()})", "num_format": '"$"#,##0'},
            legend={"position": "bottom"},
            size={"width": 900, "height": 420},
        ),
        chart_at,
    )
