"""The Excel workbook of a report: ``ReportContent`` in, .xlsx bytes out (no ORM, no request).

Cash flows, totals, NPVs, breakevens and unit costs are live formulas over the Assumptions
sheet, mirroring the engine line by line, so an analyst who changes an input sees every
figure follow; recorded results (prices, sweeps, Monte Carlo, sizing) are values. The sheets
are laid out in memory (``grid``), their formulas computed (``formulas``) and the file
written with XlsxWriter (``writer``), each formula carrying its value.
"""

from __future__ import annotations

from costmodel.vocabulary import money_in
from reports.builders.excel.assumptions import write_assumptions
from reports.builders.excel.bill_of_materials import write_bill_of_materials
from reports.builders.excel.buy_sheet import write_buy_amounts
from reports.builders.excel.buy_sheet import write_buy_sheet
from reports.builders.excel.comparison import write_comparison
from reports.builders.excel.focus_sheet import FOCUS_SHEET
from reports.builders.excel.focus_sheet import write_focus_sheet
from reports.builders.excel.footprint import write_footprint
from reports.builders.excel.grid import Book
from reports.builders.excel.money_sheet import write_money_sheet
from reports.builders.excel.plan_sheet import write_plan_sheet
from reports.builders.excel.rent_sheet import write_rent_sheet
from reports.builders.excel.strategies_sheet import SHEET as STRATEGIES_SHEET
from reports.builders.excel.strategies_sheet import write_strategies_sheet
from reports.builders.excel.summary import write_summary
from reports.builders.excel.tables import add_recorded_sheets
from reports.builders.excel.tables import write_prices
from reports.builders.excel.writer import PrintSetup
from reports.builders.excel.writer import save
from reports.content import ReportContent
from reports.formatting import timestamp

# Sheet order as a reader meets them; recorded Sweep / Monte Carlo / Sizing sheets follow.
MODEL_SHEETS = (
    "Summary",
    "Assumptions",
    "Buy cash flows",
    "Rent cash flows",
    "Comparison",
    "Bill of materials",
    "Footprint",
    "Prices",
)
# Currency, rates, price books and after-tax figures: with a stored scenario's evaluation.
MONEY_SHEET = "Money and tax"
XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def build_workbook(content: ReportContent) -> bytes:
    """The report as an .xlsx file.

    Parameters
    ----------
    content : ReportContent
        A single evaluated scenario with its assumptions, prices and any recorded runs.

    Returns
    -------
    bytes
        The workbook: every formula with its value as computed at export (so viewers that do
        not calculate show the figures); Excel recalculates them when it opens it.
    """
    with money_in(content.evaluation.currency):  # every money format, heading and axis
        wb = Book()
        sheets = {name: wb.create_sheet(name) for name in MODEL_SHEETS}
        write_assumptions(sheets["Assumptions"], content)
        write_footprint(sheets["Footprint"], content)
        next_row = write_bill_of_materials(sheets["Bill of materials"], content)
        write_buy_amounts(sheets["Bill of materials"], next_row)
        write_buy_sheet(sheets["Buy cash flows"], content)
        write_rent_sheet(sheets["Rent cash flows"], content)
        comparison = write_comparison(sheets["Comparison"], content)
        write_summary(sheets["Summary"], content, comparison)
        write_prices(sheets["Prices"], content)
        if content.focus is not None:
            write_focus_sheet(wb.create_sheet(FOCUS_SHEET), content.focus)
        if content.evaluation.after_tax is not None:
            write_money_sheet(wb.create_sheet(MONEY_SHEET), content)
        add_recorded_sheets(wb, content)
        if content.strategy_inputs is not None:
            write_strategies_sheet(wb.create_sheet(STRATEGIES_SHEET), content.strategy_inputs,
                                   content.evaluation.currency)
        for plan in content.plans:
            write_plan_sheet(wb.create_sheet("Procurement plan"), plan)
        setup = PrintSetup(content.meta.paper_size, f"Generated {timestamp(content.meta.generated_at)}")
        properties = {"title": "Buy vs rent TCO report", "author": "AI compute TCO service"}
        return save(wb, setup, properties)
