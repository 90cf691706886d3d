"""Monthly tables: one row per month 0..H, formulas filled in from per-row templates.

Templates are formulas with ``{m}`` for the month cell of the row (``$A12``), ``{r}`` for the
row number and ``{prev}`` for the row above; month 0 holds up-front payments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reports.builders.excel.cells import MONTH
from reports.builders.excel.cells import USD
from reports.builders.excel.cells import absolute_range
from reports.builders.excel.cells import define_name
from reports.builders.excel.cells import header_row
from reports.builders.excel.cells import put_formula
from reports.builders.excel.grid import Sheet
from reports.builders.excel.grid import get_column_letter

MONTH_COLUMN = 1


@dataclass(frozen=True)
class MonthlyTable:
    """Where a monthly table sits: its header row and first/last data rows."""

    ws: Sheet
    header_row: int
    n_months: int

    @property
    def first_row(self) -> int:
        return self.header_row + 1

    @property
    def last_row(self) -> int:
        return self.first_row + self.n_months

    def row_of(self, month: int) -> int:
        return self.first_row + month

    def column_range(self, column: int, *, from_month: int = 0) -> str:
        """Absolute reference to a column of the table, from a month to the horizon."""
        return absolute_range(self.ws, self.row_of(from_month), self.last_row, column)

    def name_column(self, name: str, column: int) -> None:
        define_name(self.ws, name, self.column_range(column))


def start_table(ws: Sheet, header: int, headings: Sequence[str], n_months: int) -> MonthlyTable:
    """Write the headings and the month numbers; freeze the headings and the month column."""
    header_row(ws, header, ["Month", *headings], tall=True)
    table = MonthlyTable(ws, header, n_months)
    for month in range(n_months + 1):
        ws.cell(row=table.row_of(month), column=MONTH_COLUMN, value=month).number_format = MONTH
    ws.freeze(ws.cell(row=table.first_row, column=MONTH_COLUMN + 1))
    ws.print_title_rows = f"{header}:{header}"
    return table


def fill_column(
    table: MonthlyTable,
    column: int,
    template: str,
    *,
    first_month: str | None = None,
    number_format: str = USD,
) -> None:
    """Fill one column from a template; ``first_month`` replaces it in month 0 (running totals)."""
    month_letter = get_column_letter(MONTH_COLUMN)
    for month in range(table.n_months + 1):
        row = table.row_of(month)
        formula = first_month if month == 0 and first_month is not None else template
        put_formula(
            table.ws.cell(row=row, column=column),
            formula.format(m=f"${month_letter}{row}", r=row, prev=row - 1),
            number_format,
        )
