"""Cell-level helpers shared by every sheet: styles, number formats, safe text and names."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from costmodel.vocabulary import Kind
from costmodel.vocabulary import Term
from reports.builders.excel.grid import Cell
from reports.builders.excel.grid import Sheet
from reports.builders.excel.grid import get_column_letter
from reports.builders.excel.grid import quote_sheetname

# Characters an XML worksheet cannot hold.
ILLEGAL_CHARACTERS_RE = re.compile(r"[\000-\010]|[\013-\014]|[\016-\037]")

USD = '"$"#,##0.00;-"$"#,##0.00'
# Prices per kWh or per GB need more than two decimals; totals never show more than four.
USD_PRICE = '"$"#,##0.00##;-"$"#,##0.00##'
PRICE = "#,##0.00##"  # a price in the currency a column beside it names
PERCENT = "0.00##%"
NUMBER = "#,##0.####"
COUNT = "#,##0"
MONTH = "0"
SCIENTIFIC = "0.0E+00"
TEXT = "@"


def format_for(term: Term) -> str:
    """The number format of a vocabulary term: the digits people read, never float noise."""
    if term.kind is Kind.QUANTITY:
        return "#,##0" + ("." + "0" * term.digits if term.digits else "")
    return {
        Kind.USD: USD,
        Kind.USD_PRICE: USD_PRICE,
        Kind.SHARE: PERCENT,
        Kind.MONTH: MONTH,
        Kind.COUNT: COUNT,
    }.get(term.kind, TEXT)


# Excel has no infinity: "no limit" inputs hold a huge number and are shown as words.
NO_LIMIT_VALUE = 1e307
NO_LIMIT_FORMAT = '[>=1E+300]"no limit";#,##0.####'

# XlsxWriter format properties, combined per cell.
INPUT_FONT = {"font_color": "#1F4E79", "bold": True}
INPUT_FILL = {"bg_color": "#FFF2CC", "pattern": 1}
HEADER_FONT = {"font_color": "#FFFFFF", "bold": True}
HEADER_FILL = {"bg_color": "#1F4E79", "pattern": 1}
TITLE_FONT = {"font_size": 14, "bold": True, "font_color": "#1F4E79"}
SECTION_FONT = {"font_size": 11, "bold": True, "font_color": "#1F4E79"}
NOTE_FONT = {"italic": True, "font_color": "#595959"}
TOTAL_FONT = {"bold": True}
WRAP = {"text_wrap": True, "valign": "top"}
RIGHT = {"align": "right"}
# Headings that name rent options wrap onto up to three lines; spreadsheets do not grow the row.
TALL_HEADER_HEIGHT = 45
# Chart lines: buying first, then one colour per rent option or scenario, in turn.
LINE_COLOURS = ("#1F4E79", "#C55A11", "#70AD47", "#7030A0", "#BF9000", "#2E75B6", "#A5A5A5")

# A text starting with one of these is what spreadsheets read as a formula.
FORMULA_TRIGGERS = ("=", "+", "-", "@")


def put_text(cell: Cell, text: Any) -> Cell:
    """Write text that is never run as a formula, whatever it starts with.

    The cell is typed as a string, and a text that a spreadsheet would read as a
    formula also gets the quote prefix, so editing the cell keeps it text.
    """
    value = ILLEGAL_CHARACTERS_RE.sub("", "" if text is None else str(text))
    cell.value = value
    cell.quote_prefix = value.startswith(FORMULA_TRIGGERS)
    return cell


def put_number(cell: Cell, value: float | None, number_format: str = NUMBER) -> Cell:
    """Write a number; NaN ("not given") leaves the cell empty, +inf becomes "no limit"."""
    if value is not None and math.isinf(value) and value > 0:
        cell.value = NO_LIMIT_VALUE
        cell.number_format = NO_LIMIT_FORMAT
        return cell
    cell.value = None if value is None or math.isnan(value) else float(value)
    cell.number_format = number_format
    return cell


def put_formula(cell: Cell, formula: str, number_format: str = NUMBER) -> Cell:
    """Write a formula (without the leading '=')."""
    cell.formula = formula
    cell.number_format = number_format
    return cell


def style_input(cell: Cell) -> None:
    """Mark a cell as an input an analyst may change."""
    cell.font = INPUT_FONT
    cell.fill = INPUT_FILL


def style_header(cells: Sequence[Cell]) -> None:
    for cell in cells:
        cell.font = HEADER_FONT
        cell.fill = HEADER_FILL
        cell.alignment = {"text_wrap": True, "valign": "vcenter"}


def header_row(
    ws: Sheet, row: int, titles: Sequence[str], first_column: int = 1, *, tall: bool = False
) -> None:
    """Column headings of a table, styled; ``tall`` leaves room for wrapped option names."""
    cells = [put_text(ws.cell(row=row, column=first_column + i), title) for i, title in enumerate(titles)]
    style_header(cells)
    if tall:
        ws.row_heights[row] = TALL_HEADER_HEIGHT


def title(ws: Sheet, text: str, note: str = "") -> None:
    """Sheet title in A1 and an explanatory note in A2."""
    put_text(ws["A1"], text).font = TITLE_FONT
    if note:
        put_text(ws["A2"], note).font = NOTE_FONT


def section(ws: Sheet, row: int, text: str) -> None:
    put_text(ws.cell(row=row, column=1), text).font = SECTION_FONT


def comment(cell: Cell, text: str) -> None:
    cell.comment = text


def absolute(ws: Sheet, row: int, column: int) -> str:
    """An absolute reference to one cell, with its sheet: 'Buy cash flows'!$B$5."""
    return f"{quote_sheetname(ws.title)}!${get_column_letter(column)}${row}"


def absolute_range(ws: Sheet, first_row: int, last_row: int, column: int) -> str:
    letter = get_column_letter(column)
    return f"{quote_sheetname(ws.title)}!${letter}${first_row}:${letter}${last_row}"


def define_name(ws: Sheet, name: str, ref: str) -> None:
    """A workbook-wide name for a cell or range, so formulas read like the model."""
    ws.book.defined_names[name] = ref


def set_widths(ws: Sheet, widths: dict[str, float]) -> None:
    for letter, width in widths.items():
        ws.column_widths[letter] = width
