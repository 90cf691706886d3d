"""The Footprint sheet: systems, power, racks and cooling of the bought fleet, as formulas.

Each formula is the engine's (costmodel/footprint.py and power.py) over the named inputs.
"""

from __future__ import annotations

from costmodel.figures import scalar
from costmodel.vocabulary import money_currency
from reports.builders.excel.cells import COUNT
from reports.builders.excel.cells import NUMBER
from reports.builders.excel.cells import USD_PRICE
from reports.builders.excel.cells import header_row
from reports.builders.excel.cells import put_text
from reports.builders.excel.cells import section
from reports.builders.excel.cells import set_widths
from reports.builders.excel.cells import title
from reports.builders.excel.grid import Sheet
from reports.builders.excel.names import Block
from reports.content import ReportContent

SHEET = "Footprint"

# (label, name, formula, unit, number format, note)
FOOTPRINT_ROWS = (
    (
        "Accelerators needed for the work",
        "fp_accelerators_to_buy",
        "workload_accelerators/(1-buy_power_cap_throughput_loss)",
        "accelerators",
        NUMBER,
        "A power cap's throughput loss is made up with more accelerators.",
    ),
    (
        "Accelerators per system",
        "fp_accelerators_per_system",
        "ROUND(buy_accelerators_per_system,0)",
        "accelerators",
        COUNT,
        "",
    ),
    (
        "Systems",
        "fp_systems",
        "ROUNDUP(fp_accelerators_to_buy/fp_accelerators_per_system-count_tolerance,0)",
        "systems",
        COUNT,
        "",
    ),
    (
        "Accelerators bought",
        "fp_accelerators_bought",
        "fp_systems*fp_accelerators_per_system",
        "accelerators",
        COUNT,
        "",
    ),
    (
        "System maximum power (after cap)",
        "fp_system_power_max_kw",
        "buy_system_power_max_kw*buy_power_cap_share",
        "kW",
        NUMBER,
        "",
    ),
    (
        "System idle power",
        "fp_system_power_idle_kw",
        "MIN(buy_system_power_idle_kw,fp_system_power_max_kw)",
        "kW",
        NUMBER,
        "A cap below the idle draw caps the idle draw too.",
    ),
    (
        "Systems per rack",
        "fp_systems_per_rack",
        "MIN(INT(facility_rack_power_limit_kw/fp_system_power_max_kw+count_tolerance),"
        "INT(facility_rack_units_per_rack/buy_system_rack_units+count_tolerance))",
        "systems",
        COUNT,
        "Limited by the rack's power budget and by its units.",
    ),
    (
        "Racks",
        "fp_racks",
        "ROUNDUP(fp_systems/MAX(fp_systems_per_rack,1)-count_tolerance,0)",
        "racks",
        COUNT,
        "",
    ),
    (
        "Densest rack",
        "fp_kw_per_rack",
        "MIN(fp_systems,MAX(fp_systems_per_rack,1))*fp_system_power_max_kw",
        "kW/rack",
        NUMBER,
        "",
    ),
    (
        "IT power, maximum",
        "fp_it_kw_max",
        "fp_systems*fp_system_power_max_kw",
        "kW",
        NUMBER,
        "Contracted power: colocation, build-out and cooling are priced on it.",
    ),
    (
        "IT power, average",
        "fp_it_kw_average",
        "fp_systems*(fp_system_power_idle_kw+(fp_system_power_max_kw-fp_system_power_idle_kw)*workload_utilisation)",
        "kW",
        NUMBER,
        "idle + (max - idle) x utilisation",
    ),
    ("Facility power, maximum", "fp_facility_kw_max", "fp_it_kw_max*facility_pue", "kW", NUMBER, "IT x PUE"),
    (
        "Facility power, average",
        "fp_facility_kw_average",
        "fp_it_kw_average*facility_pue",
        "kW",
        NUMBER,
        "IT x PUE",
    ),
    (
        "Energy per year",
        "fp_mwh_per_year",
        "fp_facility_kw_average*months_per_year*workload_hours_per_month/kwh_per_mwh",
        "MWh/year",
        NUMBER,
        "",
    ),
    (
        "Cooling tier (number in the Assumptions table)",
        "fp_cooling_tier",
        "MIN(SUMPRODUCT(--(fp_kw_per_rack>cooling_max_kw_per_rack+count_tolerance*ABS(cooling_max_kw_per_rack))),"
        "ROWS(cooling_max_kw_per_rack)-1)+1",
        "tier",
        COUNT,
        "First tier whose maximum density handles the densest rack (the last tier beyond the table).",
    ),
    (
        "Cooling technology required",
        "fp_cooling_technology",
        "INDEX(cooling_name,fp_cooling_tier)",
        "",
        "@",
        "",
    ),
    (
        "Needs new cooling plant",
        "fp_needs_new_cooling",
        "fp_kw_per_rack>facility_existing_cooling_max_kw_per_rack"
        "+count_tolerance*ABS(facility_existing_cooling_max_kw_per_rack)",
        "",
        "General",
        "TRUE when the densest rack exceeds what the facility's existing cooling handles.",
    ),
    (
        "Cooling plant capex",
        "fp_cooling_capex_usd_per_kw",
        "INDEX(cooling_capex_usd_per_kw,fp_cooling_tier)",
        "{currency}/kW",
        USD_PRICE,
        "",
    ),
    (
        "Cooling plant opex",
        "fp_cooling_opex_usd_per_kw_month",
        "INDEX(cooling_opex_usd_per_kw_month,fp_cooling_tier)",
        "{currency}/kW-month",
        USD_PRICE,
        "",
    ),
)

FLAG_TEXT = {
    "system_does_not_fit_rack": "One system exceeds the rack's power or units; costed one system per rack.",
    "exceeds_rack_power_limit": "The densest rack draws more than the facility's rack power limit.",
    "exceeds_cooling_table": "Denser than the last cooling tier; costed at the last tier.",
}


def write_footprint(ws: Sheet, content: ReportContent) -> None:
    """Fill the Footprint sheet; the engine's flags at export close it."""
    title(ws, "Footprint", "Power, racks and cooling of the bought fleet (formulas over the Assumptions).")
    set_widths(ws, {"A": 44, "B": 22, "C": 14, "D": 80})
    header_row(ws, 4, ("Figure", "Value", "Unit", "How"))
    block = Block(ws, row=5)
    for label, name, formula, unit, number_format, note in FOOTPRINT_ROWS:
        block.formula(label, formula, name=name, unit=unit.format(currency=money_currency()), note=note,
                      number_format=number_format)
    row = block.row + 1
    section(ws, row, "Engine flags at export")
    for offset, (flag, values) in enumerate(content.result.footprint.warnings.items(), start=1):
        put_text(ws.cell(row=row + offset, column=1), flag.replace("_", " "))
        put_text(ws.cell(row=row + offset, column=2), "yes" if scalar(values) else "no")
        put_text(ws.cell(row=row + offset, column=4), FLAG_TEXT.get(flag, ""))
