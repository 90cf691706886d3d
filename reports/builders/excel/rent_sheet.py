"""The Rent cash flows sheet: per option, its billing figures, then its lines month by month.

Mirrors costmodel/rent.py and timeline.py: an option billed for every hour held (on-demand's
default) pays every hour, one billed for the hours used pays those (spot plus its interruption
overhead); reserved pays every hour of each term at the price of the year the
term started, plus an up-front fee at the start of each term before the horizon. Instance
prices move once a year by the option's price change; egress and storage do not.
"""

from __future__ import annotations

from costmodel.vocabulary import line_label
from reports.builders.excel.cells import COUNT
from reports.builders.excel.cells import NUMBER
from reports.builders.excel.cells import USD
from reports.builders.excel.cells import absolute
from reports.builders.excel.cells import define_name
from reports.builders.excel.cells import put_formula
from reports.builders.excel.cells import put_text
from reports.builders.excel.cells import section
from reports.builders.excel.cells import set_widths
from reports.builders.excel.cells import title
from reports.builders.excel.grid import Sheet
from reports.builders.excel.grid import get_column_letter
from reports.builders.excel.monthly import MonthlyTable
from reports.builders.excel.monthly import fill_column
from reports.builders.excel.monthly import start_table
from reports.builders.excel.names import rent_name
from reports.content import ReportContent

SHEET = "Rent cash flows"
RESERVED = '{p}pricing_model="reserved"'
# Paid for every hour, whatever the utilisation: reserved capacity, or an option billed as held.
HELD = 'OR({p}pricing_model="reserved",{p}billing_basis="held")'
SPOT_FACTOR = 'IF({p}pricing_model="spot",1+{p}spot_interruption_overhead,1)'
# (label, figure, formula with {p} for the option's name prefix, number format)
BILLING = (
    (
        "Instances",
        "instances",
        "ROUNDUP(workload_accelerators/ROUND({p}accelerators_per_instance,0)-count_tolerance,0)",
        COUNT,
    ),
    (
        "Billed hours per instance per month",
        "billed_hours_per_month",
        f"IF({HELD},workload_hours_per_month,workload_hours_per_month*workload_utilisation*{SPOT_FACTOR})",
        NUMBER,
    ),
    (
        "Compute per month (year-0 price)",
        "compute_per_month",
        "{p}instances*{p}price_usd_per_instance_hour*{p}billed_hours_per_month",
        USD,
    ),
    (
        "Months the price is locked",
        "price_lock_months",
        f"IF({RESERVED},ROUND({{p}}commitment_months,0),1)",
        COUNT,
    ),
    (
        "Up-front fee per term (year-0 price)",
        "upfront_per_term",
        f"IF({RESERVED},{{p}}instances*{{p}}upfront_usd_per_instance,0)",
        USD,
    ),
    ("Egress per month", "egress_per_month", "{p}egress_tb_per_month*gb_per_tb*{p}egress_usd_per_gb", USD),
    ("Storage per month", "storage_per_month", "{p}storage_tb*gb_per_tb*{p}storage_usd_per_gb_month", USD),
    (
        "Accelerators rented",
        "accelerators_rented",
        "{p}instances*ROUND({p}accelerators_per_instance,0)",
        COUNT,
    ),
    (
        "Grid intensity (kg CO2e/kWh)",
        "grid_intensity",
        "IF(ISNUMBER({p}grid_kg_co2e_per_kwh),{p}grid_kg_co2e_per_kwh,carbon_default_grid_kg_co2e_per_kwh)",
        NUMBER,
    ),
    (
        "Energy per month (kWh)",
        "kwh_per_month",
        f"{{p}}accelerators_rented/buy_accelerators_per_system*carbon_cloud_pue*IF({HELD},"
        "(buy_system_power_idle_kw+(buy_system_power_max_kw-buy_system_power_idle_kw)*workload_utilisation)"
        "*workload_hours_per_month,buy_system_power_max_kw*{p}billed_hours_per_month)",
        NUMBER,
    ),
    (
        "Emissions per month (t CO2e)",
        "tonnes_per_month",
        "{p}kwh_per_month*{p}grid_intensity/kg_per_tonne",
        NUMBER,
    ),
    (
        "Carbon cost per unit of utilisation over the horizon",
        "carbon_slope",
        f"{{p}}accelerators_rented/buy_accelerators_per_system*carbon_cloud_pue*workload_hours_per_month"
        f"*IF({HELD},buy_system_power_max_kw-buy_system_power_idle_kw,buy_system_power_max_kw*{SPOT_FACTOR})"
        "*{p}grid_intensity/kg_per_tonne*carbon_price_usd_per_tonne*finance_horizon_months",
        USD,
    ),
    (
        "Cost per unit of utilisation over the horizon",
        "utilisation_slope",
        f"IF({HELD},0,{{p}}instances*{{p}}price_usd_per_instance_hour*workload_hours_per_month*{SPOT_FACTOR}"
        "*SUMPRODUCT((rent_month>=1)*(1+{p}price_change_per_year)^INT((rent_month-1)/months_per_year)))"
        "+{p}carbon_slope",
        USD,
    ),
)

LINE_FORMULAS = {
    "compute": "IF({m}>=1,{p}compute_per_month*(1+{p}price_change_per_year)"
    "^INT({p}price_lock_months*INT(({m}-1)/{p}price_lock_months)/months_per_year),0)",
    "upfront": "IF(AND(MOD({m},{p}price_lock_months)=0,{m}<finance_horizon_months),"
    "{p}upfront_per_term*(1+{p}price_change_per_year)^INT({m}/months_per_year),0)",
    "egress": "IF({m}>=1,{p}egress_per_month,0)",
    "storage": "IF({m}>=1,{p}storage_per_month,0)",
    "carbon": "IF({m}>=1,{p}tonnes_per_month*carbon_price_usd_per_tonne,0)",
}


def line_formula(line: str, prefix: str) -> str:
    """Monthly formula template of one rent line for the option named by ``prefix``."""
    if line not in LINE_FORMULAS:
        raise KeyError(f"the engine has a rent line {line!r} that the workbook has no formula for")
    # Only the option prefix is filled in here; {m} stays for the row.
    return LINE_FORMULAS[line].replace("{p}", prefix)


def write_rent_sheet(ws: Sheet, content: ReportContent) -> MonthlyTable:
    """Fill the sheet; names each option's ``rent<k>_flow`` and ``rent<k>_cumulative`` columns."""
    title(
        ws,
        "Rent cash flows",
        "Costs are positive; month 0 holds reserved up-front fees. Formulas over the Assumptions.",
    )
    options = content.result.rent
    widths = [len(option.cash_flows.lines_usd) + 2 for option in options]
    starts = [2 + sum(widths[:index]) for index in range(len(options))]
    section(ws, 4, "Billing figures of each option")
    billing_row = 5
    put_text(ws.cell(row=billing_row, column=1), "Rent option")
    put_text(ws.cell(row=billing_row + 1, column=1), "Pricing model")
    for index, (option, start) in enumerate(zip(options, starts, strict=True)):
        prefix = rent_name(index, "")
        put_text(ws.cell(row=billing_row, column=start), option.name)
        put_formula(ws.cell(row=billing_row + 1, column=start), f"{prefix}pricing_model", "@")
        for offset, (label, figure, formula, number_format) in enumerate(BILLING, start=2):
            row = billing_row + offset
            put_text(ws.cell(row=row, column=1), label)
            put_formula(ws.cell(row=row, column=start), formula.replace("{p}", prefix), number_format)
            define_name(ws, f"{prefix}{figure}", absolute(ws, row, start))

    headings: list[str] = []
    for option in options:
        headings += [f"{option.name}: {line_label(line)}" for line in option.cash_flows.lines_usd]
        headings += [f"{option.name}: total", f"{option.name}: cumulative"]
    table = start_table(ws, billing_row + len(BILLING) + 3, headings, int(content.result.months[-1]))
    for index, (option, start) in enumerate(zip(options, starts, strict=True)):
        prefix = rent_name(index, "")
        lines = list(option.cash_flows.lines_usd)
        for offset, line in enumerate(lines):
            fill_column(table, start + offset, line_formula(line, prefix))
        total_column = start + len(lines)
        first, last = get_column_letter(start), get_column_letter(total_column - 1)
        fill_column(table, total_column, f"SUM({first}{{r}}:{last}{{r}})")
        total, cumulative = get_column_letter(total_column), get_column_letter(total_column + 1)
        fill_column(
            table, total_column + 1, f"{cumulative}{{prev}}+{total}{{r}}", first_month=f"{total}{{r}}"
        )
        table.name_column(f"{prefix}flow", total_column)
        define_name(ws, f"{prefix}flow_operating", table.column_range(total_column, from_month=1))
        table.name_column(f"{prefix}cumulative", total_column + 1)
    table.name_column("rent_month", 1)
    set_widths(ws, {"A": 40} | {get_column_letter(c): 16 for c in range(2, 2 + sum(widths))})
    return table
