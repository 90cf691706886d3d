"""The 'Money and tax' sheet: the reporting currency, the exchange rates and contract price
books used, and buying and renting after tax month by month (live formulas over the cash-flow
sheets and the tax inputs here: shield = tax rate x (deductible costs + tax depreciation - gain
on the sale); renting's after-tax cost = its cost x (1 - tax rate)).

The deductible operating costs and interest, the tax depreciation schedule and the gain on the
sale are written as values (the engine's costmodel/tax.py figures); the rest follows them.
"""
from __future__ import annotations

from costmodel.after_tax import CONVENTION
from reports.builders.excel.cells import PERCENT
from reports.builders.excel.cells import USD
from reports.builders.excel.cells import absolute
from reports.builders.excel.cells import define_name
from reports.builders.excel.cells import header_row
from reports.builders.excel.cells import put_formula
from reports.builders.excel.cells import put_number
from reports.builders.excel.cells import put_text
from reports.builders.excel.cells import style_input
from reports.builders.excel.cells import title
from reports.builders.excel.grid import Sheet
from reports.builders.excel.grid import get_column_letter
from reports.builders.excel.monthly import fill_column
from reports.builders.excel.monthly import start_table
from reports.builders.excel.names import api_name
from reports.builders.excel.names import rent_name
from reports.content import ReportContent


def write_money_sheet(ws: Sheet, content: ReportContent) -> None:
    """Fill the sheet (the evaluation has its after-tax view)."""
    evaluation = content.evaluation
    view = evaluation.after_tax
    title(ws, "Money and tax", f"Every money figure of this workbook is in {evaluation.currency} "
                               f"(the engine's names say usd for it). {CONVENTION}")
    row = 4
    row = _rates(ws, row, evaluation)
    row = _contracts(ws, row, evaluation) + 1
    put_text(ws.cell(row=row, column=1), "Tax rate")
    tax_cell = put_number(ws.cell(row=row, column=2), view.tax.rate, PERCENT)
    style_input(tax_cell)
    define_name(ws, "tax_rate", absolute(ws, row, 2))
    put_text(ws.cell(row=row + 1, column=1), "Tax depreciation")
    put_text(ws.cell(row=row + 1, column=2), str(view.tax.method).replace("_", " "))
    _after_tax_table(ws, row + 3, content)


def _rates(ws: Sheet, row: int, evaluation) -> int:
    put_text(ws.cell(row=row, column=1), "Exchange rates used")
    if not evaluation.rates:
        put_text(ws.cell(row=row + 1, column=1), "none: every input was in "
                                                 f"{evaluation.currency}")
        return row + 3
    header_row(ws, row + 1, ["Base", "Quote", "Rate", "On", "Source"])
    for offset, rate in enumerate(evaluation.rates, start=2):
        put_text(ws.cell(row=row + offset, column=1), rate.base)
        put_text(ws.cell(row=row + offset, column=2), rate.quote)
        put_text(ws.cell(row=row + offset, column=3), str(rate.rate))
        put_text(ws.cell(row=row + offset, column=4), rate.on.isoformat())
        put_text(ws.cell(row=row + offset, column=5), rate.source)
    return row + len(evaluation.rates) + 3


def _contracts(ws: Sheet, row: int, evaluation) -> int:
    put_text(ws.cell(row=row, column=1), "Contract price books")
    header_row(ws, row + 1, ["Rent option", "Book", "Terms", "List cost", "Contracted cost",
                             "Unused commitment"])
    rows = evaluation.contract_costs()
    for offset, cost in enumerate(rows, start=2):
        put_text(ws.cell(row=row + offset, column=1), cost["option"])
        put_text(ws.cell(row=row + offset, column=2), cost["book"] or "list price")
        put_text(ws.cell(row=row + offset, column=3), cost["terms"] or "")
        for column, key in enumerate(("list_cost_usd", "contracted_cost_usd",
                                      "unused_commitment_usd"), start=4):
            put_number(ws.cell(row=row + offset, column=column), cost[key], USD)
    return row + len(rows) + 3


def _after_tax_table(ws: Sheet, header: int, content: ReportContent) -> None:
    view = content.evaluation.after_tax
    # Every option beside buying, expensed when paid: each rent option, then each per-token API.
    options = ([(option.name, rent_name(index, "")) for index, option in enumerate(content.result.rent)]
               + [(f"Pay per token: {api.name}", api_name(index, ""))
                  for index, api in enumerate(content.result.api)])
    horizon = len(view.buy.pre_tax) - 1
    headings = ["Buy before tax", "Deductible costs and interest", "Tax depreciation",
                "Gain on the sale (taxed)", "Tax shield", "Buy after tax"]
    for name, _ in options:
        headings += [f"{name}: before tax", f"{name}: after tax"]
    table = start_table(ws, header + 3, headings, horizon)
    buy = view.buy
    for month in range(horizon + 1):
        r = table.row_of(month)
        put_number(ws.cell(row=r, column=3), float(buy.deductible[month]), USD)
        put_number(ws.cell(row=r, column=4), float(buy.depreciation[month]), USD)
        put_number(ws.cell(row=r, column=5), float(buy.gain[month]), USD)
    fill_column(table, 2, "INDEX(buy_flow,{m}+1)")
    fill_column(table, 6, "tax_rate*(C{r}+D{r}-E{r})")
    fill_column(table, 7, "B{r}-F{r}")
    for index, (_, prefix) in enumerate(options):
        before, after = 8 + 2 * index, 9 + 2 * index
        fill_column(table, before, f"INDEX({prefix}flow,{{m}}+1)")
        fill_column(table, after, f"{get_column_letter(before)}{{r}}*(1-tax_rate)")
    for name, column in [("after_tax_buy", 7)] + [
            (f"{prefix}after_tax", 9 + 2 * index) for index, (_, prefix) in enumerate(options)]:
        table.name_column(f"{name}_flow", column)
        letter = get_column_letter(column)
        first, last = table.row_of(0), table.last_row
        put_text(ws.cell(row=header, column=column), "Total")
        put_formula(ws.cell(row=header + 1, column=column), f"SUM({letter}{first}:{letter}{last})", USD)
        define_name(ws, f"{name}_total_usd", f"'{ws.title}'!${letter}${header + 1}")
        put_formula(ws.cell(row=header + 2, column=column),
                    f"{letter}{first}+NPV(discount_rate_per_month,{letter}{first + 1}:{letter}{last})",
                    USD)
        define_name(ws, f"{name}_npv_usd", f"'{ws.title}'!${letter}${header + 2}")
    if content.fiscal_years is not None:
        _fiscal_years(ws, table, 11 + 2 * len(options), content)
    put_text(ws.cell(row=header + 1, column=1), "Total after tax")
    put_text(ws.cell(row=header + 2, column=1), "NPV after tax (month 0 + NPV of months 1..H)")



def _fiscal_years(ws: Sheet, table, first_column: int, content: ReportContent) -> None:
    """Buying before and after tax and the tax depreciation by fiscal year: sums of the monthly
    table's rows of each year."""
    fiscal = content.fiscal_years
    header_row(ws, table.header_row, [f"Fiscal year (from month {fiscal.fiscal_year_start_month})",
                                      "Buy before tax", "Buy after tax", "Tax depreciation"],
               first_column)
    for offset, row in enumerate(fiscal.rows, start=1):
        r = table.header_row + offset
        put_text(ws.cell(row=r, column=first_column), row["period"])
        first, last = table.row_of(row["first_month"]), table.row_of(row["last_month"])
        for column, source in ((1, 2), (2, 7), (3, 4)):
            letter = get_column_letter(source)
            put_formula(ws.cell(row=r, column=first_column + column),
                        f"SUM({letter}{first}:{letter}{last})", USD)
