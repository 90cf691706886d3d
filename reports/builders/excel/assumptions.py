"""The Assumptions sheet: every input with value, unit, source and date, each cell named.

Inputs are styled as editable; the horizon is not, because the monthly sheets have one
row per month of it. Cooling tiers form a table (their columns are named ranges the
footprint looks tiers up in), and the engine's conventions close the sheet.
"""

from __future__ import annotations

import math

import costmodel as engine
from costmodel.carbon import KG_PER_TONNE
from costmodel.compose import BREAKEVEN_RELATIVE_TOLERANCE
from costmodel.counting import WHOLE_COUNT_TOLERANCE
from costmodel.inputs import billing_basis
from costmodel.metrics import SECONDS_PER_HOUR
from costmodel.metrics import TOKENS_PER_MILLION
from costmodel.power import KWH_PER_MWH
from costmodel.rent import GB_PER_TB
from costmodel.timeline import MONTHS_PER_YEAR
from costmodel.vocabulary import input_term
from costmodel.vocabulary import money_currency
from reports.builders.excel.cells import COUNT
from reports.builders.excel.cells import NUMBER
from reports.builders.excel.cells import PERCENT
from reports.builders.excel.cells import SCIENTIFIC
from reports.builders.excel.cells import USD_PRICE
from reports.builders.excel.cells import absolute
from reports.builders.excel.cells import absolute_range
from reports.builders.excel.cells import comment
from reports.builders.excel.cells import define_name
from reports.builders.excel.cells import header_row
from reports.builders.excel.cells import put_number
from reports.builders.excel.cells import put_text
from reports.builders.excel.cells import section
from reports.builders.excel.cells import set_widths
from reports.builders.excel.cells import style_input
from reports.builders.excel.cells import title
from reports.builders.excel.grid import Sheet
from reports.builders.excel.names import input_name
from reports.builders.excel.names import rent_name
from reports.content import ReportContent
from reports.formatting import source_words
from tco.services.engine_inputs import Assumption
from tco.services.evaluation import billing_rows

SHEET = "Assumptions"
HEADINGS = ("Section", "Input", "Value", "Unit", "Origin", "Source", "As of", "Name in formulas")
VALUE_COLUMN = 3
FIXED_INPUTS = {"finance.horizon_months"}
SECTION_TITLES = {
    "workload": "Workload",
    "buy": "Buy: system, operations and financing",
    "facility": "Facility",
    "finance": "Finance",
    "goodput": "Goodput: failures, checkpoints and restarts",
    "carbon": "Carbon: rented capacity and carbon price",
    "tokens": "Token mix",
}

COOLING_FIELDS = ("max_kw_per_rack", "capex_usd_per_kw", "opex_usd_per_kw_month")
COOLING_HEADINGS = (
    "Tier",
    "Cooling technology",
    "Max kW per rack",
    "Capex ({currency}/kW of IT)",
    "Opex ({currency}/kW-month)",
    "Source",
)

# The engine's own definitions, written out so that no formula hides a constant.
CONVENTIONS = (
    ("months_per_year", MONTHS_PER_YEAR, "Months in a price year; yearly rates escalate per 12 months."),
    ("gb_per_tb", GB_PER_TB, "Data volumes: 1 TB = 1,000 GB."),
    ("kwh_per_mwh", KWH_PER_MWH, "Energy: 1 MWh = 1,000 kWh."),
    ("kg_per_tonne", KG_PER_TONNE, "Emissions: 1 t CO2e = 1,000 kg."),
    ("seconds_per_hour", SECONDS_PER_HOUR, "For cost per million tokens."),
    ("tokens_per_million", TOKENS_PER_MILLION, "For cost per million tokens."),
    (
        "count_tolerance",
        WHOLE_COUNT_TOLERANCE,
        "Counts within this of a whole number are that number (56 / 0.7 / 8 = 10, not 11).",
    ),
    (
        "breakeven_tolerance",
        BREAKEVEN_RELATIVE_TOLERANCE,
        "A cumulative saving short of zero by less than this share of all money spent counts "
        "as breaking even (absorbs rounding).",
    ),
)


def number_format_for(unit: str) -> str:
    """Number format that suits an input's unit."""
    if unit in {"share", "share/year", "1/year"}:
        return PERCENT
    if unit.startswith(money_currency()):  # money in the reporting currency, per something
        return USD_PRICE
    if unit in {"count", "months", "U"}:
        return COUNT
    return NUMBER


def write_assumptions(ws: Sheet, content: ReportContent) -> None:
    """Fill the Assumptions sheet and define a name for every input."""
    title(
        ws,
        "Assumptions",
        f"Every input of the evaluation with its source. Yellow cells are inputs: change one and "
        f"every figure in the workbook follows. Prices as of {content.meta.prices_as_of.isoformat()}.",
    )
    set_widths(ws, {"A": 30, "B": 38, "C": 16, "D": 20, "E": 10, "F": 60, "G": 12, "H": 44})
    header_row(ws, 4, HEADINGS)
    ws.freeze("A5")
    row = 5
    rows_by_section: dict[str, list[Assumption]] = {}
    for assumption in content.assumptions:
        if not assumption.path.startswith("cooling."):
            rows_by_section.setdefault(assumption.path.rsplit(".", 1)[0], []).append(assumption)
    for section_key, rows in rows_by_section.items():
        row += 1
        section(ws, row, _section_title(section_key, content.inputs))
        row += 1
        if section_key.startswith("rent."):
            row = _pricing_model_row(ws, row, int(section_key.split(".")[1]), content.inputs)
        for assumption in rows:
            _input_row(ws, row, assumption, _section_title(section_key, content.inputs))
            row += 1
    row = _cooling_table(ws, row + 2, content)
    row = _residual_curve_table(ws, row + 2, content.inputs.buy.residual_curve)
    _conventions(ws, row + 2)
    ws.print_title_rows = "4:4"


def pricing_words(model: engine.PricingModel) -> str:
    """'on_demand' -> 'on-demand', as the sheets show a pricing model."""
    return str(model).replace("_", "-")


def _section_title(section_key: str, inputs: engine.Scenario) -> str:
    if section_key.startswith("rent."):
        index = int(section_key.split(".")[1])
        return f"Rent option {index + 1}: {inputs.rent[index].name}"
    return SECTION_TITLES.get(section_key, section_key)


def _input_row(ws: Sheet, row: int, assumption: Assumption, section_title: str) -> None:
    put_text(ws.cell(row=row, column=1), section_title)
    put_text(ws.cell(row=row, column=2), input_term(assumption.path).label)
    value = put_number(
        ws.cell(row=row, column=VALUE_COLUMN), assumption.value, number_format_for(assumption.unit)
    )
    if assumption.path in FIXED_INPUTS:
        comment(
            value,
            "Fixed for this workbook: the cash-flow sheets have one row per month of this "
            "horizon. Export the report again for another horizon.",
        )
    else:
        style_input(value)
    put_text(ws.cell(row=row, column=4), assumption.unit)
    put_text(ws.cell(row=row, column=5), assumption.origin)
    put_text(ws.cell(row=row, column=6), source_words(assumption.origin, assumption.source))
    if assumption.as_of is not None:
        ws.cell(row=row, column=7, value=assumption.as_of).number_format = "yyyy-mm-dd"
    name = input_name(assumption.path)
    put_text(ws.cell(row=row, column=8), name)
    define_name(ws, name, absolute(ws, row, VALUE_COLUMN))


def _pricing_model_row(ws: Sheet, row: int, index: int, inputs: engine.Scenario) -> int:
    """The rent option's billing rule, editable from a list of the engine's pricing models."""
    put_text(ws.cell(row=row, column=1), _section_title(f"rent.{index}", inputs))
    put_text(ws.cell(row=row, column=2), "Pricing")
    cell = put_text(ws.cell(row=row, column=VALUE_COLUMN), pricing_words(inputs.rent[index].pricing_model))
    style_input(cell)
    # The formulas test for "reserved" and "spot"; anything else bills as on-demand.
    ws.validations.append((cell, [pricing_words(model) for model in engine.PricingModel]))
    put_text(ws.cell(row=row, column=4), "billing rule")
    put_text(ws.cell(row=row, column=5), "catalog")
    put_text(ws.cell(row=row, column=6), "offering's pricing model")
    name = rent_name(index, "pricing_model")
    put_text(ws.cell(row=row, column=8), name)
    define_name(ws, name, absolute(ws, row, VALUE_COLUMN))
    return _billing_basis_row(ws, row + 1, index, inputs)


def _billing_basis_row(ws: Sheet, row: int, index: int, inputs: engine.Scenario) -> int:
    """Which hours the option pays for, editable: "held" (every hour) or "used"."""
    option = inputs.rent[index]
    put_text(ws.cell(row=row, column=1), _section_title(f"rent.{index}", inputs))
    put_text(ws.cell(row=row, column=2), "Billed for (held = every hour held, used = hours used)")
    cell = put_text(ws.cell(row=row, column=VALUE_COLUMN), str(billing_basis(option)))
    style_input(cell)
    # Reserved capacity is paid every hour whatever this says (the formulas test "reserved" first).
    ws.validations.append((cell, [str(basis) for basis in engine.BillingBasis]))
    put_text(ws.cell(row=row, column=4), "billing basis")
    put_text(ws.cell(row=row, column=5), "scenario")
    put_text(ws.cell(row=row, column=6), billing_rows(inputs)[index]["why"])
    name = rent_name(index, "billing_basis")
    put_text(ws.cell(row=row, column=8), name)
    define_name(ws, name, absolute(ws, row, VALUE_COLUMN))
    return row + 1


def _cooling_table(ws: Sheet, row: int, content: ReportContent) -> int:
    """Cooling tiers in increasing density; columns named ``cooling_<field>`` and ``cooling_name``."""
    section(
        ws, row, "Cooling technologies (the footprint picks the first tier that handles the rack density)"
    )
    header_row(ws, row + 1, [heading.format(currency=money_currency()) for heading in COOLING_HEADINGS])
    by_path = {a.path: a for a in content.assumptions}
    first = row + 2
    for index, tier in enumerate(content.inputs.cooling):
        current = first + index
        ws.cell(row=current, column=1, value=index + 1)
        put_text(ws.cell(row=current, column=2), tier.name)
        for offset, field in enumerate(COOLING_FIELDS):
            assumption = by_path[f"cooling.{index}.{field}"]
            style_input(
                put_number(
                    ws.cell(row=current, column=3 + offset),
                    assumption.value,
                    NUMBER if field == "max_kw_per_rack" else USD_PRICE,
                )
            )
        put_text(ws.cell(row=current, column=6), by_path[f"cooling.{index}.capex_usd_per_kw"].source)
    last = first + len(content.inputs.cooling) - 1
    define_name(ws, "cooling_name", absolute_range(ws, first, last, 2))
    for offset, field in enumerate(COOLING_FIELDS):
        define_name(ws, f"cooling_{field}", absolute_range(ws, first, last, 3 + offset))
    return last + 1


def _residual_curve_table(ws: Sheet, row: int, curve: tuple[tuple[float, float], ...]) -> int:
    """The resale curve's points, columns named ``residual_curve_month`` and ``residual_curve_share``.

    Without a curve one row (month 0, empty share) keeps the names defined; the Buy sheet then
    uses the decline rate or the single residual share.
    """
    section(ws, row, "Resale value by age (share of the system price; linear between points)")
    header_row(ws, row + 1, ("Month of age", "Resale share"))
    points = curve or ((0.0, math.nan),)
    first = row + 2
    for index, (month, share) in enumerate(points):
        style_input(put_number(ws.cell(row=first + index, column=1), month, COUNT))
        style_input(put_number(ws.cell(row=first + index, column=2), share, PERCENT))
    last = first + len(points) - 1
    define_name(ws, "residual_curve_month", absolute_range(ws, first, last, 1))
    define_name(ws, "residual_curve_share", absolute_range(ws, first, last, 2))
    return last + 1


def _conventions(ws: Sheet, row: int) -> None:
    section(ws, row, "Conventions of the cost model (not assumptions: the engine's definitions)")
    header_row(ws, row + 1, ("Name in formulas", "Meaning", "Value"))
    for offset, (name, value, meaning) in enumerate(CONVENTIONS):
        current = row + 2 + offset
        put_text(ws.cell(row=current, column=1), name)
        put_text(ws.cell(row=current, column=2), meaning)
        number_format = NUMBER if value >= 1 else SCIENTIFIC
        put_number(ws.cell(row=current, column=VALUE_COLUMN), float(value), number_format)
        define_name(ws, name, absolute(ws, current, VALUE_COLUMN))
