"""The Bill of materials sheet: each capex line with its quantity, unit price and amount.

Amounts are the engine's capex lines (costmodel/buy.py ``capex_usd``) as formulas; each is
named ``capex_<line>`` for the cash-flow sheet.
"""

from __future__ import annotations

from typing import NamedTuple

from costmodel.vocabulary import money_currency
from reports.builders.excel.cells import COUNT
from reports.builders.excel.cells import NUMBER
from reports.builders.excel.cells import PERCENT
from reports.builders.excel.cells import TOTAL_FONT
from reports.builders.excel.cells import USD
from reports.builders.excel.cells import USD_PRICE
from reports.builders.excel.cells import absolute
from reports.builders.excel.cells import define_name
from reports.builders.excel.cells import header_row
from reports.builders.excel.cells import put_formula
from reports.builders.excel.cells import put_text
from reports.builders.excel.cells import set_widths
from reports.builders.excel.cells import title
from reports.builders.excel.grid import Sheet
from reports.content import ReportContent
from reports.content import capex_label


class CapexLine(NamedTuple):
    """How one capex line is computed (its label: ``reports.content.capex_label``)."""

    quantity: str
    quantity_format: str
    unit: str
    unit_price: str
    amount: str


CAPEX_LINES = {
    "systems": CapexLine(
        "fp_systems", COUNT, "systems", "buy_system_price_usd", "fp_systems*buy_system_price_usd"
    ),
    "network": CapexLine(
        "fp_systems",
        COUNT,
        "systems",
        "buy_network_usd_per_system+buy_network_share_of_compute*buy_system_price_usd",
        "fp_systems*buy_network_usd_per_system+capex_systems*buy_network_share_of_compute",
    ),
    "storage": CapexLine("1", COUNT, "lot", "buy_storage_usd", "buy_storage_usd"),
    "racks_install": CapexLine(
        "fp_racks",
        COUNT,
        "racks",
        "buy_racks_install_usd_per_rack",
        "fp_racks*buy_racks_install_usd_per_rack",
    ),
    "spares": CapexLine(
        "buy_spares_share",
        PERCENT,
        "share of systems capex",
        "capex_systems",
        "capex_systems*buy_spares_share",
    ),
    "cooling_plant": CapexLine(
        "fp_it_kw_max",
        NUMBER,
        "kW of IT",
        "fp_cooling_capex_usd_per_kw",
        "IF(fp_needs_new_cooling,fp_cooling_capex_usd_per_kw*fp_it_kw_max,0)",
    ),
    "facility_buildout": CapexLine(
        "fp_it_kw_max",
        NUMBER,
        "kW of IT",
        "facility_owned_buildout_usd_per_kw",
        "fp_it_kw_max*facility_owned_buildout_usd_per_kw",
    ),
    "import_duty_vat": CapexLine(
        "buy_import_duty_vat_share",
        PERCENT,
        "of hardware capex",
        "capex_hardware",
        "capex_hardware*buy_import_duty_vat_share",
    ),
}
# The support contract covers these lines (costmodel/buy.py ``hardware_capex_usd``).
HARDWARE_LINES = ("systems", "network", "storage", "spares")


def write_bill_of_materials(ws: Sheet, content: ReportContent) -> int:
    """Fill the sheet and return its next free row; every engine capex line needs a formula here."""
    title(
        ws,
        "Bill of materials",
        "Capital costs before financing (formulas over the Assumptions and the Footprint).",
    )
    set_widths(ws, {"A": 52, "B": 14, "C": 18, "D": 20, "E": 20})
    row = 4
    for label, value in content.meta.labels.items():
        put_text(ws.cell(row=row, column=1), label)
        put_text(ws.cell(row=row, column=2), value)
        row += 1
    header = row + 1
    currency = money_currency()
    header_row(ws, header, ("Line", "Quantity", "Unit", f"Unit price ({currency})", f"Amount ({currency})"))
    row = header + 1
    for line in content.result.buy.capex_usd:
        spec = CAPEX_LINES.get(line)
        if spec is None:
            raise KeyError(f"the engine has a capex line {line!r} that the workbook has no formula for")
        put_text(ws.cell(row=row, column=1), capex_label(line))
        put_formula(ws.cell(row=row, column=2), spec.quantity, spec.quantity_format)
        put_text(ws.cell(row=row, column=3), spec.unit)
        put_formula(ws.cell(row=row, column=4), spec.unit_price, USD_PRICE)
        put_formula(ws.cell(row=row, column=5), spec.amount, USD)
        define_name(ws, f"capex_{line}", absolute(ws, row, 5))
        row += 1
    _total(
        ws,
        row,
        "Total capex",
        "capex_total",
        "+".join(f"capex_{line}" for line in content.result.buy.capex_usd),
    )
    _total(
        ws,
        row + 1,
        "Hardware covered by the support contract",
        "capex_hardware",
        "+".join(f"capex_{line}" for line in HARDWARE_LINES),
    )
    ws.print_title_rows = f"{header}:{header}"
    return row + 3


def _total(ws: Sheet, row: int, label: str, name: str, formula: str) -> None:
    put_text(ws.cell(row=row, column=1), label).font = TOTAL_FONT
    put_formula(ws.cell(row=row, column=5), formula, USD).font = TOTAL_FONT
    define_name(ws, name, absolute(ws, row, 5))
