"""The Comparison sheet: totals, NPVs, unit costs, breakevens and IRR, then running totals.

Mirrors costmodel/compose.py and finance.py. NPV: month 0 is paid now and not discounted,
month m is discounted by (1 + monthly rate) ** m with the monthly rate that compounds to the
yearly discount rate. The breakeven month is the first month >= 1 whose cumulative saving of
buying (rent minus buy) reaches zero, within the engine's rounding tolerance.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from xlsxwriter.utility import xl_col_to_name

import costmodel as engine
from costmodel.figures import scalar
from costmodel.finance import monthly_rate
from reports.builders.excel.cells import COUNT
from reports.builders.excel.cells import NUMBER
from reports.builders.excel.cells import PERCENT
from reports.builders.excel.cells import RIGHT
from reports.builders.excel.cells import USD
from reports.builders.excel.cells import USD_PRICE
from reports.builders.excel.cells import absolute
from reports.builders.excel.cells import comment
from reports.builders.excel.cells import define_name
from reports.builders.excel.cells import header_row
from reports.builders.excel.cells import put_formula
from reports.builders.excel.cells import put_number
from reports.builders.excel.cells import put_text
from reports.builders.excel.cells import section
from reports.builders.excel.cells import set_widths
from reports.builders.excel.cells import title
from reports.builders.excel.grid import Sheet
from reports.builders.excel.grid import get_column_letter
from reports.builders.excel.monthly import MonthlyTable
from reports.builders.excel.monthly import fill_column
from reports.builders.excel.monthly import start_table
from reports.builders.excel.names import Block
from reports.builders.excel.names import api_name
from reports.builders.excel.names import rent_name
from reports.content import ReportContent

SHEET = "Comparison"
BUY = "buy_"
API_BILL_NOTE = (
    "A per-token API's monthly bill is the engine's at export (tokens the workload needs x the "
    "price per million tokens, with any minimum spend); its totals, NPV and breakeven below are "
    "live formulas over it."
)

IRR_CONVENTION = (
    "IRR of the monthly flows rent - buy, compounded to a year. Where several rates give NPV 0 the "
    "engine takes the one closest to zero; the spreadsheet's IRR starts its search at the engine's "
    "rate at export, so it finds the same root, and after an edit the root nearest to it."
)
NPV_CONVENTION = (
    "NPV convention: month 0 is paid now and not discounted; month m is discounted m times at the "
    "monthly rate (1 + yearly rate)^(1/12) - 1. Spreadsheet NPV() discounts its first value by one "
    "period, so NPV = month 0 + NPV(monthly rate, months 1..H)."
)


class KeyFigure(NamedTuple):
    """One row of the key-figures table: a formula for buying and/or for each rent option.

    Formulas use ``{s}`` for the side's name prefix (``buy_`` or ``rent1_``); a row without
    a formula for a side leaves its cell empty. Each cell is named ``{s}<figure>``.
    """

    label: str
    figure: str
    buy: str | None
    rent: str | None
    number_format: str


BREAKEVEN_UTILISATION = "workload_utilisation-{s}saving_usd/{s}saving_slope"
TOTAL = "SUM({s}flow)"
NPV = "INDEX({s}flow,1)+NPV(discount_rate_per_month,{s}flow_operating)"
PER_HOUR = 'IF({s}useful_hours>0,{s}total_usd/{s}useful_hours,"n/a")'
PER_MILLION_TOKENS = (
    "IF(AND(ISNUMBER(workload_tokens_per_s_per_accelerator),ISNUMBER({s}cost_per_useful_accelerator_hour_usd)),"
    "{s}cost_per_useful_accelerator_hour_usd/(workload_tokens_per_s_per_accelerator*seconds_per_hour)"
    '*tokens_per_million,"n/a")'
)
# Goodput (costmodel/goodput.py): a job stops at the interruption rate, restarts from its last
# checkpoint; the interval is the one given or Young/Daly's sqrt(2 x checkpoint cost x MTBF).
JOB = "IF(ISNUMBER(goodput_accelerators_per_job),goodput_accelerators_per_job,workload_accelerators)"
COST, RESTART = "goodput_checkpoint_cost_h", "goodput_restart_h"
INTERVAL = (
    "IF(ISNUMBER(goodput_checkpoint_interval_h),goodput_checkpoint_interval_h,"
    f'IF({{s}}interruption_rate>0,SQRT(2*{COST}/{{s}}interruption_rate),"never"))'
)
EFFICIENCY = (
    "IF(ISNUMBER({s}checkpoint_interval),IF({s}checkpoint_interval+" + COST + ">0,"
    "{s}checkpoint_interval/({s}checkpoint_interval+" + COST + "),1)"
    "*MAX(0,MIN(1,1-(({s}checkpoint_interval+" + COST + ")/2+" + RESTART + ")*{s}interruption_rate)),1)"
)
GOODPUT_FIGURES = (
    KeyFigure(
        "Job interruptions per hour",
        "interruption_rate",
        f"goodput_failures_per_accelerator_hour*{JOB}",
        f"goodput_failures_per_accelerator_hour*{JOB}"
        '+IF({s}pricing_model="spot",{s}spot_interruptions_per_hour,0)',
        NUMBER,
    ),
    KeyFigure("Checkpoint interval (h)", "checkpoint_interval", INTERVAL, INTERVAL, NUMBER),
    KeyFigure("Goodput (share of paid hours doing useful work)", "goodput",
              f"workload_utilisation*{EFFICIENCY}", f"workload_utilisation*{EFFICIENCY}", PERCENT),
    KeyFigure(
        "Useful accelerator-hours over the horizon",
        "useful_hours",
        "workload_accelerators*workload_hours_per_month*{s}goodput*finance_horizon_months",
        "workload_accelerators*workload_hours_per_month*{s}goodput*finance_horizon_months",
        NUMBER,
    ),
)
KEY_FIGURES = (
    KeyFigure("Total cost over the horizon", "total_usd", TOTAL, TOTAL, USD),
    KeyFigure("NPV of costs", "npv_usd", NPV, NPV, USD),
    KeyFigure(
        "Cost per useful accelerator-hour",
        "cost_per_useful_accelerator_hour_usd",
        PER_HOUR,
        PER_HOUR,
        USD_PRICE,
    ),
    KeyFigure(
        "Cost per million tokens",
        "cost_per_million_tokens_usd",
        PER_MILLION_TOKENS,
        PER_MILLION_TOKENS,
        USD_PRICE,
    ),
    KeyFigure("Saving by buying, total (rent - buy)", "saving_usd", None, "{s}total_usd-buy_total_usd", USD),
    KeyFigure("Saving by buying, NPV (rent - buy)", "npv_saving_usd", None, "{s}npv_usd-buy_npv_usd", USD),
    KeyFigure("Cheaper by NPV", "winner", None, 'IF({s}npv_saving_usd>0,"buy","rent")', "@"),
    KeyFigure(
        "Breakeven month (nominal)",
        "breakeven_month",
        None,
        'IF(COUNT({s}broken_even)=0,"never",MIN({s}broken_even))',
        COUNT,
    ),
    KeyFigure(
        "Saving per unit of utilisation",
        "saving_slope",
        None,
        "{s}utilisation_slope-buy_utilisation_slope",
        USD,
    ),
    KeyFigure(
        "Breakeven utilisation",
        "breakeven_utilisation",
        None,
        f'IF({{s}}saving_slope=0,"none",IF(AND({BREAKEVEN_UTILISATION}>=0,{BREAKEVEN_UTILISATION}<=1),'
        f'{BREAKEVEN_UTILISATION},"none"))',
        PERCENT,
    ),
    KeyFigure(
        "IRR of buying instead of renting, per year",
        "irr_per_year",
        None,
        'IFERROR((1+IRR({s}saving_flow,{irr_guess}))^months_per_year-1,"none")',
        PERCENT,
    ),
    KeyFigure(
        "Cumulative cost at breakeven (chart marker)",
        "breakeven_cumulative_usd",
        None,
        "IF(ISNUMBER({s}breakeven_month),INDEX(buy_cumulative,{s}breakeven_month+1),NA())",
        USD,
    ),
    *GOODPUT_FIGURES,
)


# A per-token API against buying: the rent option's formulas where they mean the same thing.
API_FIGURES = {
    "total_usd": TOTAL,
    "npv_usd": NPV,
    # The API bills the tokens the bought fleet's useful hours would produce (costmodel/compose.py).
    "cost_per_million_tokens_usd": (
        "IF(AND(ISNUMBER(workload_tokens_per_s_per_accelerator),buy_useful_hours>0),"
        "{s}total_usd/(buy_useful_hours*workload_tokens_per_s_per_accelerator*seconds_per_hour)"
        '*tokens_per_million,"n/a")'),
    "saving_usd": "{s}total_usd-buy_total_usd",
    "npv_saving_usd": "{s}npv_usd-buy_npv_usd",
    "winner": 'IF({s}npv_saving_usd>0,"buy","API")',
    "breakeven_month": 'IF(COUNT({s}broken_even)=0,"never",MIN({s}broken_even))',
    "breakeven_cumulative_usd":
        "IF(ISNUMBER({s}breakeven_month),INDEX(buy_cumulative,{s}breakeven_month+1),NA())",
}


class ComparisonLayout(NamedTuple):
    """Where the Summary's chart finds its data on the Comparison sheet."""

    table: MonthlyTable
    buy_cumulative_column: int
    rent_cumulative_columns: tuple[int, ...]
    key_row: dict[str, int]
    rent_key_columns: tuple[int, ...]
    api_cumulative_columns: tuple[int, ...] = ()
    api_key_columns: tuple[int, ...] = ()


def write_comparison(ws: Sheet, content: ReportContent) -> ComparisonLayout:
    """Fill the sheet: key figures for buying and each rent option, then month-by-month totals."""
    title(ws, "Comparison", "Buying against each rent option. Formulas over the cash-flow sheets.")
    options = content.result.rent
    block = Block(ws, row=4)
    block.formula(
        "Discount rate per month",
        "(1+finance_discount_rate_per_year)^(1/months_per_year)-1",
        name="discount_rate_per_month",
        number_format=PERCENT,
    )
    comment(ws.cell(row=4, column=2), NPV_CONVENTION)
    block.formula(
        "Money paid out buying, gross",
        "SUMPRODUCT(ABS(buy_flow))",
        name="buy_gross_flow",
        number_format=USD,
        note="Scales the breakeven tolerance.",
    )

    header = block.row + 1
    apis = content.result.api
    sides = ([("Buy", BUY)] + [(option.name, rent_name(index, "")) for index, option in enumerate(options)]
             + [(f"Pay per token: {api.name}", api_name(index, "")) for index, api in enumerate(apis)])
    header_row(ws, header, ["Figure", *(label for label, _ in sides)], tall=True)
    irr_guesses = {rent_name(index, ""): _irr_guess(option) for index, option in enumerate(options)}
    key_row = {}
    for offset, figure in enumerate(KEY_FIGURES, start=1):
        row = header + offset
        key_row[figure.figure] = row
        put_text(ws.cell(row=row, column=1), figure.label)
        for column, (_, prefix) in enumerate(sides, start=2):
            formula = (figure.buy if prefix == BUY else API_FIGURES.get(figure.figure)
                       if prefix.startswith("api") else figure.rent)
            if formula is None:
                continue
            formula = formula.replace("{s}", prefix).replace("{irr_guess}", irr_guesses.get(prefix, ""))
            cell = put_formula(ws.cell(row=row, column=column), formula, figure.number_format)
            cell.alignment = RIGHT
            define_name(ws, f"{prefix}{figure.figure}", absolute(ws, row, column))
    # An option that never breaks even has no marker: NA() keeps it off the chart, and this
    # format keeps the #N/A off the page (the cell reads empty; its formula is still there).
    marker = key_row["breakeven_cumulative_usd"]
    first, last = f"{xl_col_to_name(1)}{marker}", f"{xl_col_to_name(len(sides))}{marker}"
    ws.conditional_formats.append((f"{first}:{last}", {
        "type": "formula", "criteria": f"=ISNA({first})", "format": {"font_color": "#FFFFFF"}}))
    comment(ws.cell(row=key_row["npv_usd"], column=1), NPV_CONVENTION)
    comment(ws.cell(row=key_row["irr_per_year"], column=1), IRR_CONVENTION)

    headings = ["Buy: cumulative"]
    for option in options:
        headings += [
            f"{option.name}: cumulative",
            f"{option.name}: saving (rent - buy)",
            f"{option.name}: cumulative saving",
            f"{option.name}: broken even",
        ]
    for api in apis:
        headings += [
            f"Pay per token: {api.name}: monthly bill",
            f"Pay per token: {api.name}: cumulative",
            f"Pay per token: {api.name}: saving (API - buy)",
            f"Pay per token: {api.name}: cumulative saving",
            f"Pay per token: {api.name}: broken even",
        ]
    table = start_table(ws, header + len(KEY_FIGURES) + 3, headings, int(content.result.months[-1]))
    fill_column(table, 2, "INDEX(buy_cumulative,{m}+1)")
    rent_columns = []
    for index in range(len(options)):
        prefix = rent_name(index, "")
        start = 3 + 4 * index
        rent_columns.append(start)
        fill_column(table, start, f"INDEX({prefix}cumulative,{{m}}+1)")
        _fill_saving(table, prefix, start + 1)
    api_columns = []
    for index, api in enumerate(apis):
        prefix = api_name(index, "")
        start = 3 + 4 * len(options) + 5 * index
        api_columns.append(start + 1)
        bill = np.reshape(api.cash_flows.per_month_usd, -1)
        for month in range(table.n_months + 1):
            put_number(ws.cell(row=table.row_of(month), column=start), float(bill[month]), USD)
        comment(ws.cell(row=table.header_row, column=start), API_BILL_NOTE)
        table.name_column(f"{prefix}flow", start)
        define_name(ws, f"{prefix}flow_operating", table.column_range(start, from_month=1))
        cost = get_column_letter(start + 1)
        fill_column(table, start + 1, f"{cost}{{prev}}+INDEX({prefix}flow,{{m}}+1)",
                    first_month=f"INDEX({prefix}flow,1)")
        _fill_saving(table, prefix, start + 2)
    section(ws, table.header_row - 1, "Month by month")
    last = 3 + 4 * len(options) + 5 * len(apis)
    set_widths(ws, {"A": 44} | {get_column_letter(c): 18 for c in range(2, last)})
    first_api = 3 + len(options)
    return ComparisonLayout(table, 2, tuple(rent_columns), key_row, tuple(range(3, first_api)),
                            tuple(api_columns), tuple(range(first_api, first_api + len(apis))))


def _fill_saving(table: MonthlyTable, prefix: str, start: int) -> None:
    """Three columns from ``start``: the option's saving against buying each month (option -
    buy), its running total and the months buying has broken even, named for the key figures."""
    fill_column(table, start, f"INDEX({prefix}flow,{{m}}+1)-INDEX(buy_flow,{{m}}+1)")
    saving, cumulative = get_column_letter(start), get_column_letter(start + 1)
    fill_column(table, start + 1, f"{cumulative}{{prev}}+{saving}{{r}}", first_month=f"{saving}{{r}}")
    fill_column(
        table,
        start + 2,
        f"IF(AND({{m}}>=1,{cumulative}{{r}}>=-breakeven_tolerance*(buy_gross_flow+{prefix}total_usd)),"
        f'{{m}},"")',
        number_format=COUNT,
    )
    table.name_column(f"{prefix}saving_flow", start)
    table.name_column(f"{prefix}broken_even", start + 2)


def _irr_guess(option: engine.RentResult) -> str:
    """The engine's IRR per month at export, as the spreadsheet IRR's starting guess (0 if none)."""
    per_year = scalar(option.irr_per_year)
    return "0" if math.isnan(per_year) else f"{float(monthly_rate(per_year)):.15g}"
