"""The procurement plan sheet: capacity by source and cash per month, the order schedule, totals.

Totals and NPVs are live formulas over the monthly cash columns. The NPV follows the engine's
convention (month 0 undiscounted, month m by (1 + r) ^ (m / 12)): a spreadsheet's NPV()
discounts its first argument, so the sheet writes first flow + NPV(monthly rate, rest).
"""

from __future__ import annotations

from costmodel.vocabulary import money_currency
from reports.builders.excel.cells import COUNT
from reports.builders.excel.cells import MONTH
from reports.builders.excel.cells import NUMBER
from reports.builders.excel.cells import PERCENT
from reports.builders.excel.cells import TOTAL_FONT
from reports.builders.excel.cells import USD
from reports.builders.excel.cells import header_row
from reports.builders.excel.cells import put_formula
from reports.builders.excel.cells import put_number
from reports.builders.excel.cells import put_text
from reports.builders.excel.cells import section
from reports.builders.excel.cells import set_widths
from reports.builders.excel.cells import title
from reports.builders.excel.grid import Sheet
from reports.builders.excel.grid import get_column_letter
from reports.content import RecordedPlan

BASELINE_HEADINGS = {"all_rent": "All rent: cash ({currency})", "all_buy": "All buy: cash ({currency})"}
FIRST_ROW = 8  # month 0


def write_plan_sheet(ws: Sheet, plan: RecordedPlan) -> None:
    result = plan.result
    title(ws, f"Procurement plan: {plan.name}", plan.note)
    put_text(ws["A4"], "Discount rate per year")
    put_number(ws["B4"], plan.discount_rate_per_year, PERCENT)
    put_text(ws["A5"], "Monthly rate")
    put_formula(ws["B5"], "(1+B4)^(1/12)-1", PERCENT)
    sources = [source["name"] for source in result["sources"]]
    baselines = [name for name, figures in result["baselines"].items() if figures["available"]]
    headings = [
        "Month",
        "Demand (accelerators)",
        *(f"{name} (accelerators)" for name in sources),
        f"Plan: cash ({money_currency()})",
        *(BASELINE_HEADINGS[name].format(currency=money_currency()) for name in baselines),
    ]
    header_row(ws, FIRST_ROW - 1, headings, tall=True)
    set_widths(ws, {get_column_letter(c): 18 for c in range(1, len(headings) + 1)} | {"A": 26})
    ws.freeze(ws.cell(row=FIRST_ROW, column=2))
    cash_columns = [("Plan", result["cash_usd"])] + [
        (name, result["baselines"][name]["cash_usd"]) for name in baselines
    ]
    months = max(len(values) for _, values in cash_columns)
    horizon = result["horizon_months"]
    for month in range(months):
        row = FIRST_ROW + month
        ws.cell(row=row, column=1, value=month).number_format = MONTH
        if 1 <= month <= horizon:
            put_number(ws.cell(row=row, column=2), result["demand_accelerators"][month - 1], NUMBER)
            for offset, name in enumerate(sources):
                put_number(
                    ws.cell(row=row, column=3 + offset),
                    result["capacity_accelerators"][name][month - 1],
                    NUMBER,
                )
        for offset, (_, values) in enumerate(cash_columns):
            amount = values[month] if month < len(values) else 0.0
            put_number(ws.cell(row=row, column=3 + len(sources) + offset), amount, USD)
    last = FIRST_ROW + months - 1
    total_row, npv_row = last + 2, last + 3
    currency = money_currency()
    put_text(ws.cell(row=total_row, column=1), f"Total cash ({currency})").font = TOTAL_FONT
    put_text(ws.cell(row=npv_row, column=1), f"NPV ({currency}, month 0 undiscounted)").font = TOTAL_FONT
    for offset in range(len(cash_columns)):
        column = get_column_letter(3 + len(sources) + offset)
        put_formula(
            ws[f"{column}{total_row}"], f"SUM({column}{FIRST_ROW}:{column}{last})", USD
        ).font = TOTAL_FONT
        put_formula(
            ws[f"{column}{npv_row}"],
            f"{column}{FIRST_ROW}+NPV($B$5,{column}{FIRST_ROW + 1}:{column}{last})",
            USD,
        ).font = TOTAL_FONT
    if months > horizon + 1:
        put_text(
            ws.cell(row=npv_row + 1, column=1),
            f"Months after {horizon} pay reserved terms that run past the horizon (no early exit).",
        )
    _orders(ws, npv_row + 3, result)


def _orders(ws: Sheet, row: int, result: dict) -> None:
    section(ws, row, "Order schedule")
    header_row(
        ws,
        row + 1,
        (
            "System",
            "Order in month",
            "Serves from month",
            "Paid in month",
            "Systems",
            "Accelerators",
            f"Capex ({money_currency()})",
        ),
    )
    first = row + 2
    for index, order in enumerate(result["orders"]):
        at = first + index
        put_text(ws.cell(row=at, column=1), order["choice"])
        for column, key in ((2, "order_month"), (3, "in_service_month"), (4, "capex_month")):
            ws.cell(row=at, column=column, value=order[key]).number_format = MONTH
        put_number(ws.cell(row=at, column=5), order["systems"], COUNT)
        put_number(ws.cell(row=at, column=6), order["accelerators"], COUNT)
        put_number(ws.cell(row=at, column=7), order["capex_usd"], USD)
    last = first + len(result["orders"]) - 1
    total = last + 1
    put_text(
        ws.cell(row=total, column=1), "Total" if result["orders"] else "No systems to buy"
    ).font = TOTAL_FONT
    if result["orders"]:
        for column, fmt in (("E", COUNT), ("F", COUNT), ("G", USD)):
            put_formula(
                ws[f"{column}{total}"], f"SUM({column}{first}:{column}{last})", fmt
            ).font = TOTAL_FONT
    row = total + 2
    section(ws, row, "Reserved commitments")
    header_row(ws, row + 1, ("Offer", "First month", "Last month", "Instances", "Accelerators"))
    for index, commitment in enumerate(result["commitments"]):
        at = row + 2 + index
        put_text(ws.cell(row=at, column=1), commitment["choice"])
        ws.cell(row=at, column=2, value=commitment["start_month"]).number_format = MONTH
        ws.cell(row=at, column=3, value=commitment["end_month"]).number_format = MONTH
        put_number(ws.cell(row=at, column=4), commitment["instances"], COUNT)
        put_number(ws.cell(row=at, column=5), commitment["accelerators"], COUNT)
    if not result["commitments"]:
        put_text(ws.cell(row=row + 2, column=1), "No reserved commitments.")
