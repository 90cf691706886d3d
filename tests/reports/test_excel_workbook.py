"""The workbook as openpyxl reads it back: sheets, named inputs, formulas, safe text, print setup."""

from __future__ import annotations

import io
import math
import zipfile
from dataclasses import replace

import pytest
from openpyxl import load_workbook
from openpyxl.worksheet.worksheet import Worksheet

import costmodel as engine
from costmodel.tests.scenarios import rich_scenario
from reports.builders.excel import MODEL_SHEETS
from reports.builders.excel import build_workbook
from reports.builders.excel.buy_sheet import line_formula
from reports.builders.excel.cells import INPUT_FILL
from reports.builders.excel.names import input_name
from reports.content import RecordedRun
from reports.content import SizingSummary
from tests.reports.conftest import FORMULA_LIKE_NAME
from tests.reports.conftest import content_for

# Rent option names a user might type, each of which a spreadsheet would otherwise run.
HOSTILE_OPTION_NAMES = ('=HYPERLINK("http://x","y")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)")


@pytest.fixture(scope="module")
def workbook(rich_content):
    return load_workbook(io.BytesIO(build_workbook(rich_content)))


def named_cell(workbook, name: str):
    ((sheet, reference),) = workbook.defined_names[name].destinations
    return workbook[sheet][reference.replace("$", "")]


def test_it_has_the_model_sheets_in_reading_order(workbook):
    assert workbook.sheetnames == list(MODEL_SHEETS)
    assert MODEL_SHEETS == (
        "Summary", "Assumptions", "Buy cash flows", "Rent cash flows",
        "Comparison", "Bill of materials", "Footprint", "Prices",
    )


def test_every_engine_input_is_a_named_input_cell_with_its_value(workbook, rich_content):
    inputs = rich_content.inputs
    for path in engine.numeric_input_paths(inputs):
        if path.startswith("cooling."):
            continue  # a table: its columns are named ranges (next test)
        cell = named_cell(workbook, input_name(path))
        assert cell.parent.title == "Assumptions"
        value = float(engine.get_input(inputs, path))
        if math.isnan(value):  # "not given": an empty cell the formulas test with ISNUMBER
            assert cell.value is None, path
        else:
            assert cell.value == pytest.approx(value), path
        editable = path != "finance.horizon_months"
        assert (cell.fill.fgColor.rgb == "FF" + INPUT_FILL["bg_color"][1:]) is editable, path


def test_the_cooling_table_is_named_by_column(workbook, rich_content):
    ((sheet, reference),) = workbook.defined_names["cooling_capex_usd_per_kw"].destinations
    cells = [row[0].value for row in workbook[sheet][reference.replace("$", "")]]

    assert cells == [tier.capex_usd_per_kw for tier in rich_content.inputs.cooling]
    # The last tier has no upper limit: written as a huge number shown as "no limit".
    limit = workbook.defined_names["cooling_max_kw_per_rack"].destinations
    ((sheet, reference),) = limit
    last = workbook[sheet][reference.replace("$", "")][-1][0]
    assert (last.value, last.number_format.split(";")[0]) == (1e307, '[>=1E+300]"no limit"')


def test_key_figures_are_formulas_over_the_cash_flows(workbook):
    assert named_cell(workbook, "buy_total_usd").value == "=SUM(buy_flow)"
    assert named_cell(workbook, "buy_npv_usd").value == (
        "=INDEX(buy_flow,1)+NPV(discount_rate_per_month,buy_flow_operating)"
    )
    assert named_cell(workbook, "rent1_breakeven_month").value == (
        '=IF(COUNT(rent1_broken_even)=0,"never",MIN(rent1_broken_even))'
    )
    assert named_cell(workbook, "rent1_cost_per_useful_accelerator_hour_usd").value == (
        '=IF(rent1_useful_hours>0,rent1_total_usd/rent1_useful_hours,"n/a")'
    )
    assert "NPV() discounts its first value" in named_cell(workbook, "discount_rate_per_month").comment.text


def test_monthly_lines_are_formulas_row_by_row(workbook):
    buy: Worksheet = workbook["Buy cash flows"]
    header = next(row for row in buy.iter_rows(min_col=1, max_col=1) if row[0].value == "Month")[0].row
    headings = [cell.value for cell in buy[header]]
    month_1 = header + 2
    energy = buy.cell(row=month_1, column=headings.index("Electricity") + 1)

    assert energy.value == (
        f"=IF($A{month_1}>=1,buy_energy_per_month*(1+facility_electricity_escalation_per_year)"
        f"^INT(($A{month_1}-1)/months_per_year),0)"
    )
    assert buy.freeze_panes == f"B{header + 1}"
    # rich scenario: 60 months, rows for months 0..60
    assert buy.cell(row=header + 61, column=1).value == 60


def test_it_refuses_a_cash_flow_line_it_has_no_formula_for():
    with pytest.raises(KeyError, match="no formula"):
        line_formula("carbon_tax")


def test_a_formula_like_scenario_name_is_written_as_text(workbook):
    cell = workbook["Summary"]["B4"]

    assert (cell.value, cell.data_type, cell.quotePrefix) == (FORMULA_LIKE_NAME, "s", True)


@pytest.mark.parametrize("hostile", HOSTILE_OPTION_NAMES)
def test_rent_option_names_that_look_like_formulas_are_written_as_text(hostile):
    inputs = rich_scenario()
    inputs = replace(inputs, rent=(replace(inputs.rent[0], name=hostile), *inputs.rent[1:]))

    workbook = load_workbook(io.BytesIO(build_workbook(content_for(inputs))))

    found = [
        cell
        for ws in workbook.worksheets
        for row in ws.iter_rows()
        for cell in row
        if isinstance(cell.value, str) and hostile in cell.value
    ]
    assert found, "the option name appears in the workbook"
    assert all(cell.data_type == "s" for cell in found)
    assert all(cell.quotePrefix for cell in found if cell.value.startswith(hostile))


@pytest.mark.parametrize(
    ("paper", "size"), [("a4", Worksheet.PAPERSIZE_A4), ("letter", Worksheet.PAPERSIZE_LETTER)]
)
def test_every_sheet_prints_landscape_on_the_reports_paper(paper, size):
    workbook = load_workbook(io.BytesIO(build_workbook(content_for(rich_scenario(), paper_size=paper))))

    for ws in workbook.worksheets:
        assert (int(ws.page_setup.paperSize), ws.page_setup.orientation) == (int(size), "landscape"), ws.title
        assert ws.sheet_properties.pageSetUpPr.fitToPage and ws.page_setup.fitToHeight == 0
        assert ws.oddFooter.center.text == "Page &P of &N"


def test_the_summary_has_the_cumulative_cost_chart_with_breakeven_markers(rich_content):
    payload = build_workbook(rich_content)

    # The chart part and its series are in the file.
    with zipfile.ZipFile(io.BytesIO(payload)) as archive:
        charts = [name for name in archive.namelist() if name.startswith("xl/charts/chart")]
        chart = archive.read(charts[0]).decode()
    assert len(charts) == 1
    # Buy, three rent options and one breakeven marker per option.
    assert chart.count("<c:ser>") == 1 + 3 + 3
    assert "Breakeven vs spot" in chart


def test_recorded_runs_and_sizing_get_their_own_sheets():
    sweep_summary = {
        "points": 4,
        "axes": [
            {"path": "workload.utilisation", "count": 2, "min": 0.4, "max": 0.8},
            {"path": "facility.pue", "count": 2, "min": 1.1, "max": 1.3},
        ],
        "winner_shares": {"buy": 0.75, "spot": 0.25},
        "options": {"spot": {"buy_wins_share": 0.75,
                             "npv_saving_usd": {"min": -5.0, "max": 9.0, "mean": 4.0},
                             "breakeven_month": {"min": 20.0, "max": None, "never_share": 0.25}}},
        "heatmap": {
            "x_path": "workload.utilisation",
            "y_path": "facility.pue",
            "x_values": [0.4, 0.8],
            "y_values": [1.1, 1.3],
            "breakeven_month": {"spot": [[30.0, 20.0], [None, 24.0]]},
        },
    }
    sizing = SizingSummary(
        "inference sizing of llama-3.1-8b on h100",
        (("fits", True, ""), ("accelerators", 25.0, "accelerators")),
    )
    content = content_for(rich_scenario(), sweeps=(RecordedRun(7, "sweep", sweep_summary),), sizing=sizing)

    workbook = load_workbook(io.BytesIO(build_workbook(content)))

    assert workbook.sheetnames[-2:] == ["Sweep", "Sizing"]
    sweep = workbook["Sweep"]
    rows = list(sweep.iter_rows(values_only=True))
    # The heat map: utilisation across, PUE down, "never" where most points never break even.
    assert (1.1, 30, 20) in [row[:3] for row in rows]
    assert (1.3, "never", 24) in [row[:3] for row in rows]
    assert sweep.conditional_formatting
    assert "4 points are more than a sheet lists here" in " ".join(str(row[0]) for row in rows)
    assert [row[:2] for row in workbook["Sizing"].iter_rows(min_row=5, values_only=True)] == [
        ("fits", "yes"),
        ("accelerators", 25),
    ]
