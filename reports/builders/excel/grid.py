"""The workbook held in memory while the sheets are laid out: cells, styles, names and charts.

The sheet writers fill a ``Book`` cell by cell (1-based rows and columns, as a spreadsheet
numbers them); ``formulas`` then computes every formula's value from it and ``writer`` saves
it with XlsxWriter, each formula with its value, so the file shows its figures in any viewer.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from typing import Any

from xlsxwriter.utility import xl_cell_to_rowcol
from xlsxwriter.utility import xl_col_to_name

from costmodel.vocabulary import money_sign


def get_column_letter(column: int) -> str:
    """1 -> 'A', 27 -> 'AA' (openpyxl's name, XlsxWriter's 0-based function)."""
    return xl_col_to_name(column - 1)


def coordinate(reference: str) -> tuple[int, int]:
    """'$B$5' or 'B5' -> (row 5, column 2)."""
    row, column = xl_cell_to_rowcol(reference)
    return row + 1, column + 1


def column_index(letters: str) -> int:
    """'A' -> 1, 'AA' -> 27."""
    return coordinate(f"{letters}1")[1]


def in_reporting_currency(number_format: str) -> str:
    """A money format ('"$"#,##0.00', cells.USD) in the currency money is shown in
    ('"EUR "#,##0.00' inside ``money_in("EUR")``); other formats unchanged."""
    return number_format.replace('"$"', f'"{money_sign()}"')


def quote_sheetname(title: str) -> str:
    """Always quoted (XlsxWriter quotes only where needed): formulas.py reads one form."""
    return "'{}'".format(title.replace("'", "''"))

@dataclass
class Cell:
    """One cell: a value (text, number, date, bool or None) or a formula, and its style.

    ``font``, ``fill`` and ``alignment`` are XlsxWriter format properties; ``formula`` is
    written without its leading '=' and ``value`` then holds its computed result.
    """

    row: int
    column: int
    value: Any = None
    formula: str | None = None
    number_format: str = "General"
    font: dict = field(default_factory=dict)
    fill: dict = field(default_factory=dict)
    alignment: dict = field(default_factory=dict)
    quote_prefix: bool = False
    comment: str | None = None

    def style(self) -> dict:
        """The cell's XlsxWriter format properties."""
        properties = {**self.font, **self.fill, **self.alignment}
        if self.number_format != "General":
            properties["num_format"] = in_reporting_currency(self.number_format)
        if self.quote_prefix:
            properties["quote_prefix"] = True
        return properties


@dataclass
class Chart:
    """An XlsxWriter chart: its type options, series (``add_series`` options) and settings."""

    kind: dict
    series: list[dict]
    title: str
    x_axis: dict = field(default_factory=dict)
    y_axis: dict = field(default_factory=dict)
    legend: dict | None = None  # None: no legend
    size: dict = field(default_factory=lambda: {"width": 720, "height": 300})


class Sheet:
    def __init__(self, book: Book, title: str) -> None:
        self.book = book
        self.title = title
        self.cells: dict[tuple[int, int], Cell] = {}
        self.column_widths: dict[str, float] = {}
        self.row_heights: dict[int, float] = {}
        self.merges: list[tuple[int, int, int, int]] = []
        self.frozen_at: tuple[int, int] | None = None
        self.print_title_rows: str | None = None
        self.validations: list[tuple[Cell, list[str]]] = []
        self.conditional_formats: list[tuple[str, dict]] = []
        self.charts: list[tuple[str, Chart]] = []

    def cell(self, row: int, column: int, value: Any = None) -> Cell:
        cell = self.cells.get((row, column))
        if cell is None:
            cell = self.cells[(row, column)] = Cell(row, column)
        if value is not None:
            cell.value = value
        return cell

    def __getitem__(self, reference: str) -> Cell:
        return self.cell(*coordinate(reference))

    @property
    def max_row(self) -> int:
        return max((row for row, _ in self.cells), default=0)

    def append(self, values: list) -> None:
        """Values (or ready cells) in the row below the last one written."""
        row = self.max_row + 1
        for column, value in enumerate(values, start=1):
            if isinstance(value, Cell):
                value.row, value.column = row, column
                self.cells[(row, column)] = value
            else:
                self.cell(row, column, value)

    def freeze(self, cell: Cell | str) -> None:
        """Freeze the rows above and the columns left of ``cell`` (as 'B5' or a cell)."""
        self.frozen_at = coordinate(cell) if isinstance(cell, str) else (cell.row, cell.column)

    def merge(self, first_row: int, first_column: int, last_row: int, last_column: int) -> None:
        self.merges.append((first_row, first_column, last_row, last_column))

    def add_chart(self, chart: Chart, anchor: str) -> None:
        self.charts.append((anchor, chart))


class Book:
    def __init__(self) -> None:
        self.worksheets: list[Sheet] = []
        self.defined_names: dict[str, str] = {}

    def create_sheet(self, title: str) -> Sheet:
        sheet = Sheet(self, title)
        self.worksheets.append(sheet)
        return sheet

    def __getitem__(self, title: str) -> Sheet:
        return next(sheet for sheet in self.worksheets if sheet.title == title)
