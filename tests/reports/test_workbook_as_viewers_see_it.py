"""The workbook as a viewer that does not calculate shows it (a file previewer, pandas, openpyxl
with ``data_only=True``): the key figures are there and equal to the API's, and what people read
is labels and formatted numbers, not engine names or float noise."""

from __future__ import annotations

import io
import re
import zipfile

import pandas as pd
import pytest
from openpyxl import load_workbook
from openpyxl.worksheet.cell_range import CellRange

from costmodel.tests.scenarios import rich_scenario
from reports.builders.excel import build_workbook
from reports.content import RecordedRun
from tests.reports.conftest import MONTE_CARLO
from tests.reports.conftest import SWEEP
from tests.reports.conftest import content_for
from tests.reports.test_excel_workbook import named_cell
from tests.reports.test_pdf_report import words_people_read

CENT = 0.01
# The defined names formulas use are listed for the analyst who follows a formula back to its
# inputs; they are the spreadsheet's identifiers, not words a figure is read by.
IDENTIFIER_HEADING = "Name in formulas"
EXPORTS = "/api/v1/report-exports/"


@pytest.mark.django_db
def test_every_key_figure_is_stored_and_equals_the_api(api, scenario, django_capture_on_commit_callbacks):
    evaluation = api.post(f"/api/v1/scenarios/{scenario.pk}/evaluate/").json()["result"]
    with django_capture_on_commit_callbacks(execute=True):
        job = api.post(EXPORTS, {"scenario": scenario.pk, "format": "xlsx"}, format="json").json()
    download = api.get(api.get(f"{EXPORTS}{job['id']}/").json()["download_url"])
    workbook = load_workbook(io.BytesIO(b"".join(download.streaming_content)), data_only=True)

    def stored(name: str):
        return named_cell(workbook, name).value

    buy = evaluation["buy"]
    for name, figure in (
        ("buy_total_usd", "total_usd"),
        ("buy_npv_usd", "npv_usd"),
        ("capex_total", "total_capex_usd"),
        ("buy_cost_per_useful_accelerator_hour_usd", "cost_per_useful_accelerator_hour_usd"),
    ):
        assert stored(name) == pytest.approx(buy[figure], abs=CENT), name
    assert len(evaluation["rent"]) == 3
    for index, option in enumerate(evaluation["rent"], start=1):
        for figure in ("total_usd", "npv_usd", "saving_usd", "npv_saving_usd",
                       "cost_per_useful_accelerator_hour_usd"):
            assert stored(f"rent{index}_{figure}") == pytest.approx(option[figure], abs=CENT), figure
        breakeven = stored(f"rent{index}_breakeven_month")
        assert breakeven == ("never" if option["breakeven_month"] is None else option["breakeven_month"])
        assert stored(f"rent{index}_winner") == ("buy" if option["npv_saving_usd"] > 0 else "rent")
    # The Summary's live key figures show the same numbers (they are formulas over Comparison).
    summary = [row for row in workbook["Summary"].iter_rows(values_only=True) if row[0]]
    total_row = next(row for row in summary if row[0] == "Total cost over the horizon")
    assert total_row[1] == pytest.approx(buy["total_usd"], abs=CENT)
    assert total_row[2:5] == pytest.approx([option["total_usd"] for option in evaluation["rent"]], abs=CENT)


@pytest.fixture(scope="module")
def everything():
    """The rich report with a sweep (points listed) and a Monte Carlo run, as a viewer reads it."""
    points = pd.DataFrame({
        "rent.2.price_usd_per_instance_hour": [20.0, 40.0],
        "cost_per_useful_accelerator_hour_buy_usd": [3.352641234, 3.352641234],
        "spot: breakeven_month": [float("nan"), 20.0],
        "spot: npv_saving_usd": [-5.123456, 9.0],
        "winner": ["spot", "buy"],
    })
    content = content_for(
        rich_scenario(),
        sweeps=(RecordedRun(3, "sweep", SWEEP, points=points),),
        monte_carlo=(RecordedRun(4, "monte_carlo", MONTE_CARLO),),
    )
    return load_workbook(io.BytesIO(build_workbook(content)), data_only=True)


def visible_cells(workbook):
    """Every cell a person reads, leaving out the columns that list formula identifiers."""
    for ws in workbook.worksheets:
        identifier_columns = {
            (cell.column, cell.row)
            for row in ws.iter_rows()
            for cell in row
            if cell.value == IDENTIFIER_HEADING
        }
        for row in ws.iter_rows():
            for cell in row:
                if any(cell.column == column and cell.row > top for column, top in identifier_columns):
                    continue
                if cell.value is not None:
                    yield ws.title, cell


def test_what_people_read_is_labels_not_engine_names(everything):
    words = {
        f"{sheet}!{cell.coordinate}": found
        for sheet, cell in visible_cells(everything)
        if isinstance(cell.value, str) and (found := words_people_read(cell.value))
    }
    assert words == {}
    assert "Instance price, spot (per instance-hour)" in [cell.value for _, cell in visible_cells(everything)]


def shown_decimals(number_format: str) -> int | None:
    """The most decimals a number format shows (None for General, which shows up to 10)."""
    if number_format == "General":
        return None
    first = re.sub(r'"[^"]*"|\[[^\]]*\]', "", number_format.split(";")[0])
    if "E" in first:
        return 1
    _, _, decimals = first.partition(".")
    return len(re.findall(r"[0#]", decimals))


def test_every_number_is_shown_with_the_digits_of_its_format(everything):
    noisy = [
        f"{sheet}!{cell.coordinate} {cell.value} as {cell.number_format}"
        for sheet, cell in visible_cells(everything)
        if isinstance(cell.value, float)
        and not cell.value.is_integer()
        and shown_decimals(cell.number_format) is None
    ]
    assert noisy == []
    # Spot-check by hand: a share as a percentage, money to the cent, a price to four decimals.
    sweep = everything["Sweep"]
    rows = {row[0].value: row for row in sweep.iter_rows(min_row=5) if row[0].value}
    assert rows["spot"][1].number_format == "0.00##%"
    assert shown_decimals(rows["spot"][2].number_format) == 2
    assert shown_decimals(sweep["C5"].number_format) == 4  # the swept price, from


def test_the_sweep_sheet_has_its_chart():
    content = content_for(rich_scenario(), sweeps=(RecordedRun(3, "sweep", SWEEP),))
    with zipfile.ZipFile(io.BytesIO(build_workbook(content))) as archive:
        charts = sorted(name for name in archive.namelist() if name.startswith("xl/charts/chart"))
        sweep_chart = archive.read(charts[-1]).decode()
    # One on the Summary, one on the Sweep: the saving's lowest, mean and highest per option.
    assert len(charts) == 2
    assert sweep_chart.count("<c:ser>") == 3
    assert "NPV saving of buying across the sweep" in sweep_chart
    assert "'Sweep'!$C$" in sweep_chart


def test_an_option_that_never_breaks_even_shows_no_na_on_the_comparison(everything):
    # Issue 24: NA() keeps the breakeven marker of such an option off the chart; a conditional
    # format (white text when ISNA) keeps the #N/A off the page where it used to show.
    ws = everything["Comparison"]
    marker_row = next(cell.row for row in ws.iter_rows() for cell in row
                      if cell.value == "Cumulative cost at breakeven (chart marker)")
    rules = [(CellRange(str(cf.sqref)), rule) for cf in ws.conditional_formatting for rule in cf.rules]
    (covered, rule), = [(cells, rule) for cells, rule in rules if cells.min_row == marker_row]
    assert rule.formula == [f"ISNA(B{marker_row})"] and rule.dxf.font.color.rgb.endswith("FFFFFF")
    # Buy and every rent option's column are covered, the #N/A ones among them.
    figures = [cell for cell in ws[marker_row][1:] if cell.value is not None]
    assert figures and all(cell.coordinate in covered for cell in figures)
