"""The Buy cash flows sheet (one row per month) and the monthly amounts its lines repeat.

Mirrors costmodel/buy.py and timeline.py: capex down payments at month 0; energy from
month 1, escalating once every 12 months (year index (m - 1) // 12); flat operating lines;
level loan payments over the term with any balance still owed paid at the horizon; the
residual value as a negative cost at the horizon. Depreciation is shown beside the cash
flows but is not in them (accounting, not cash).
"""

from __future__ import annotations

from costmodel.vocabulary import line_label
from reports.builders.excel.cells import COUNT
from reports.builders.excel.cells import NUMBER
from reports.builders.excel.cells import PERCENT
from reports.builders.excel.cells import USD
from reports.builders.excel.cells import comment
from reports.builders.excel.cells import define_name
from reports.builders.excel.cells import section
from reports.builders.excel.cells import set_widths
from reports.builders.excel.cells import title
from reports.builders.excel.grid import Sheet
from reports.builders.excel.grid import get_column_letter
from reports.builders.excel.monthly import MonthlyTable
from reports.builders.excel.monthly import fill_column
from reports.builders.excel.monthly import start_table
from reports.builders.excel.names import Block
from reports.content import ReportContent

SHEET = "Buy cash flows"
ESCALATION = "(1+facility_electricity_escalation_per_year)^INT(({m}-1)/months_per_year)"

H = "finance_horizon_months"
# Resale share at age H: the curve (linear between its points, flat beyond its ends), else the
# yearly decline rate, else the single share; lower by the drop once the next generation is out.
CURVE_AT = "MATCH({h},residual_curve_month,1)"
CURVE_SHARE = (
    f"IF({H}<=MIN(residual_curve_month),INDEX(residual_curve_share,1),"
    f"IF({H}>=MAX(residual_curve_month),INDEX(residual_curve_share,COUNT(residual_curve_month)),"
    f"INDEX(residual_curve_share,{CURVE_AT})+(INDEX(residual_curve_share,{CURVE_AT}+1)"
    f"-INDEX(residual_curve_share,{CURVE_AT}))*({H}-INDEX(residual_curve_month,{CURVE_AT}))"
    f"/(INDEX(residual_curve_month,{CURVE_AT}+1)-INDEX(residual_curve_month,{CURVE_AT}))))"
).replace("{h}", H)
RESALE_BASE = (
    f"IF(COUNT(residual_curve_share)>0,{CURVE_SHARE},IF(ISNUMBER(buy_residual_decline_per_year),"
    f"(1-buy_residual_decline_per_year)^({H}/months_per_year),buy_residual_share))"
).replace("buy_residual_share", "buy_residual_value_share")
NEXT_GENERATION = (
    f"IF(AND(ISNUMBER(buy_next_generation_launch_month),{H}>=buy_next_generation_launch_month),"
    "1-buy_next_generation_value_drop,1)"
)

# (label, name, formula, number format) of the amounts the monthly lines repeat.
AMOUNTS = (
    ("Capex share paid up front", "buy_down_payment_share", "1-buy_financed_share", PERCENT),
    (
        "Energy per month (first year)",
        "buy_energy_per_month",
        "fp_facility_kw_average*workload_hours_per_month*facility_electricity_usd_per_kwh",
        USD,
    ),
    (
        "Colocation per month",
        "buy_colocation_per_month",
        "fp_it_kw_max*facility_colocation_usd_per_kw_month",
        USD,
    ),
    (
        "Owned facility opex per month",
        "buy_owned_facility_per_month",
        "fp_it_kw_max*facility_owned_opex_usd_per_kw_month",
        USD,
    ),
    (
        "Cooling plant opex per month",
        "buy_cooling_plant_opex_per_month",
        "IF(fp_needs_new_cooling,fp_cooling_opex_usd_per_kw_month*fp_it_kw_max,0)",
        USD,
    ),
    (
        "Support per month",
        "buy_support_per_month",
        "capex_hardware*buy_support_share_per_year/months_per_year",
        USD,
    ),
    (
        "Staff per month",
        "buy_staff_per_month",
        "fp_systems*buy_staff_fte_per_system*buy_staff_usd_per_fte_year/months_per_year",
        USD,
    ),
    (
        "Licences per month",
        "buy_licences_per_month",
        "fp_accelerators_bought*buy_licence_usd_per_accelerator_year/months_per_year",
        USD,
    ),
    ("Loan principal", "loan_principal", "capex_total*buy_financed_share", USD),
    (
        "Loan rate per month (nominal yearly rate / 12)",
        "loan_rate_per_month",
        "buy_loan_rate_per_year/months_per_year",
        PERCENT,
    ),
    ("Loan term", "loan_term", "ROUND(buy_loan_term_months,0)", COUNT),
    (
        "Loan payment per month",
        "loan_payment",
        "IF(loan_rate_per_month=0,loan_principal/MAX(loan_term,1),"
        "PMT(loan_rate_per_month,MAX(loan_term,1),-loan_principal))",
        USD,
    ),
    (
        "Loan balance paid off at the horizon",
        "loan_owed_at_horizon",
        "IF(loan_term>finance_horizon_months,IF(loan_rate_per_month=0,"
        "loan_principal-loan_payment*finance_horizon_months,"
        "loan_principal*(1+loan_rate_per_month)^finance_horizon_months"
        "-loan_payment*((1+loan_rate_per_month)^finance_horizon_months-1)/loan_rate_per_month),0)",
        USD,
    ),
    ("Resale share at the horizon", "buy_resale_share", f"({RESALE_BASE})*{NEXT_GENERATION}", PERCENT),
    ("Residual value at the horizon", "residual_value", "capex_systems*buy_resale_share", USD),
    (
        "Emissions per month (t CO2e)",
        "buy_tonnes_per_month",
        "fp_facility_kw_average*workload_hours_per_month*facility_grid_kg_co2e_per_kwh/kg_per_tonne",
        NUMBER,
    ),
    (
        "Embodied emissions (t CO2e)",
        "buy_embodied_tonnes",
        "fp_systems*buy_embodied_kg_co2e_per_system/kg_per_tonne",
        NUMBER,
    ),
    (
        "Depreciation per month (accounting)",
        "depreciation_per_month",
        "capex_total/ROUND(buy_depreciation_months,0)",
        USD,
    ),
    (
        "Buy cost per unit of utilisation over the horizon",
        "buy_utilisation_slope",
        "fp_systems*(fp_system_power_max_kw-fp_system_power_idle_kw)*facility_pue*workload_hours_per_month"
        "*(facility_electricity_usd_per_kwh*SUMPRODUCT((buy_month>=1)"
        "*(1+facility_electricity_escalation_per_year)^INT((buy_month-1)/months_per_year))"
        "+facility_grid_kg_co2e_per_kwh/kg_per_tonne*carbon_price_usd_per_tonne*finance_horizon_months)",
        USD,
    ),
)

# Monthly formula of each engine cash-flow line; capex lines are added from the engine's list.
LINE_FORMULAS = {
    "energy": f"IF({{m}}>=1,buy_energy_per_month*{ESCALATION},0)",
    "colocation": "IF({m}>=1,buy_colocation_per_month,0)",
    "owned_facility": "IF({m}>=1,buy_owned_facility_per_month,0)",
    "cooling_plant_opex": "IF({m}>=1,buy_cooling_plant_opex_per_month,0)",
    "support": "IF({m}>=1,buy_support_per_month,0)",
    "staff": "IF({m}>=1,buy_staff_per_month,0)",
    "licences": "IF({m}>=1,buy_licences_per_month,0)",
    "loan_payments": "IF(AND({m}>=1,{m}<=loan_term),loan_payment,0)"
    "+IF({m}=finance_horizon_months,loan_owed_at_horizon,0)",
    "residual_value": "IF({m}=finance_horizon_months,-residual_value,0)",
    "carbon": "IF({m}=0,buy_embodied_tonnes,buy_tonnes_per_month)*carbon_price_usd_per_tonne",
}
CAPEX_PREFIX = "capex_"


def line_formula(line: str) -> str:
    """Monthly formula template of a buy cash-flow line."""
    if line.startswith(CAPEX_PREFIX):
        return f"IF({{m}}=0,{line}*buy_down_payment_share,0)"
    if line not in LINE_FORMULAS:
        raise KeyError(f"the engine has a buy line {line!r} that the workbook has no formula for")
    return LINE_FORMULAS[line]


def write_buy_amounts(ws: Sheet, row: int) -> None:
    """The monthly amounts and financing figures the monthly lines repeat, from ``row`` down."""
    section(ws, row, "Operating costs per month (first-year prices) and financing, used by Buy cash flows")
    block = Block(ws, row=row + 1, value_column=5)
    for label, name, formula, number_format in AMOUNTS:
        block.formula(label, formula, name=name, number_format=number_format)
    comment(
        ws.cell(row=block.row - 1, column=5),
        "Only energy and its emissions depend on utilisation; the breakeven utilisation on "
        "Comparison uses this.",
    )


def write_buy_sheet(ws: Sheet, content: ReportContent) -> MonthlyTable:
    """Fill the sheet; names ``buy_month``, ``buy_flow`` and ``buy_cumulative`` its columns."""
    title(
        ws,
        "Buy cash flows",
        "Costs are positive; month 0 is paid up front. Formulas over the "
        "Assumptions, Footprint and Bill of materials.",
    )
    lines = list(content.result.buy.cash_flows.lines_usd)
    n_months = int(content.result.months[-1])
    headings = [line_label(line) for line in lines] + ["Total", "Cumulative", "Depreciation (not cash)"]
    table = start_table(ws, 4, headings, n_months)
    for offset, line in enumerate(lines):
        fill_column(table, 2 + offset, line_formula(line))
    total_column = 2 + len(lines)
    first, last = get_column_letter(2), get_column_letter(total_column - 1)
    fill_column(table, total_column, f"SUM({first}{{r}}:{last}{{r}})")
    total = get_column_letter(total_column)
    fill_column(
        table,
        total_column + 1,
        f"{get_column_letter(total_column + 1)}{{prev}}+{total}{{r}}",
        first_month=f"{total}{{r}}",
    )
    fill_column(
        table,
        total_column + 2,
        "IF(AND({m}>=1,{m}<=ROUND(buy_depreciation_months,0)),depreciation_per_month,0)",
    )
    table.name_column("buy_month", 1)
    table.name_column("buy_flow", total_column)
    define_name(ws, "buy_flow_operating", table.column_range(total_column, from_month=1))
    table.name_column("buy_cumulative", total_column + 1)
    set_widths(ws, {"A": 8} | {get_column_letter(c): 15 for c in range(2, total_column + 3)})
    return table
