"""The Excel workbook of a report: ``ReportContent`` in, .xlsx bytes out (no ORM, no request).

Cash flows, totals, NPVs, breakevens and unit costs are live formulas over the Assumptions
sheet, mirroring the engine line by line, so an analyst who changes an input sees every
figure follow; recorded results (prices, sweeps, Monte Carlo, sizing) are values.
"""

from __future__ import annotations

import io

from openpyxl import Workbook
from openpyxl.workbook.properties import CalcProperties
from openpyxl.worksheet.worksheet import Worksheet

from reports.builders.excel.assumptions import write_assumptions
from reports.builders.excel.bill_of_materials import write_bill_of_materials
from reports.builders.excel.buy_sheet import write_buy_amounts, write_buy_sheet
from reports.builders.excel.comparison import write_comparison
from reports.builders.excel.footprint import write_footprint
from reports.builders.excel.plan_sheet import write_plan_sheet
from reports.builders.excel.rent_sheet import write_rent_sheet
from reports.builders.excel.summary import write_summary
from reports.builders.excel.tables import add_recorded_sheets, write_prices
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
PAPER_SIZES = {"a4": Worksheet.PAPERSIZE_A4, "letter": Worksheet.PAPERSIZE_LETTER}
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
        The workbook; Excel recalculates every formula when it opens it.
    """
    wb = Workbook()
    wb.remove(wb.active)
    sheets = {name: wb.create_sheet(name) for name in MODEL_SHEETS}
    write_assumptions(sheets["Assumptions"], content)
    write_footprint(sheets["Footprint"], content)
    next_row = write_bill_of_materials(sheets["Bill of materials"], content)
    write_buy_amounts(sheets["Bill of materials"], next_row)
    write_buy_sheet(sheets["Buy cash flows"], content)
    write_rent_sheet(sheets["Rent cash flows"], content)
    comparison = write_comparison(sheets["Comparison"], content)
    write_summary(sheets["Summary"], content, comparison)
    write_prices(sheets["Prices"], content.prices)
    add_recorded_sheets(wb, content)
    for plan in content.plans:
        write_plan_sheet(wb.create_sheet("Procurement plan"), plan)
    for ws in wb.worksheets:
        _print_setup(ws, content)
    # The file carries formulas only, no cached results: make every reader compute them.
    wb.calculation = CalcProperties(fullCalcOnLoad=True)
    wb.properties.title = "Buy vs rent TCO report"
    wb.properties.creator = "AI compute TCO service"
    buffer = io.BytesIO()
    wb.save(buffer)
    return buffer.getvalue()


def _print_setup(ws: Worksheet, content: ReportContent) -> None:
    """Landscape, one page wide, on the report's paper, with the sheet name and page numbers."""
    ws.page_setup.paperSize = PAPER_SIZES[content.meta.paper_size]
    ws.page_setup.orientation = Worksheet.ORIENTATION_LANDSCAPE
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 0
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.oddHeader.left.text = "&A"
    ws.oddHeader.right.text = f"Generated {timestamp(content.meta.generated_at)}"
    ws.oddFooter.center.text = "Page &P of &N"
    ws.print_options.gridLines = False
