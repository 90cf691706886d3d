"""Issue 23: the workbook and the PDF of a question without a rent option (buying alone, and
buying against a per-token API alone), and a per-token API beside the rent options in the
workbook's live key figures and chart, recalculated by LibreOffice to the engine's figures.
"""
from __future__ import annotations

import io
import subprocess
import zipfile
from decimal import Decimal

import numpy as np
import pytest
from openpyxl import load_workbook

from costmodel.figures import scalar
from reports.formatting import format_usd_cents
from reports.services import report_build
from reports.services import report_content_for
from tco.models import ApiOption
from tests.reports.recalc import Values
from tests.reports.recalc import recalculate

pytestmark = pytest.mark.django_db
L40S_DEMO = "Inference fleet: 32x L40S vs cloud"
API_NAME = "Hosted 8B model API (quoted)"


def _with_api(scenario):
    return ApiOption.objects.create(scenario=scenario, name=API_NAME,
                                    usd_per_million_input=Decimal("0.05"),
                                    usd_per_million_cached_input=Decimal("0.025"),
                                    usd_per_million_output=Decimal("0.20"))


def _reports(scenario, tmp_path):
    content = report_content_for(scenario=scenario)
    pdf = subprocess.run(["pdftotext", "-", "-"], input=report_build(content=content, format="pdf"),
                         capture_output=True, check=True).stdout.decode()
    path = tmp_path / "scenario.xlsx"
    path.write_bytes(report_build(content=content, format="xlsx"))
    return content, " ".join(pdf.split()), path


def _errors(values: Values) -> list:
    """Cells ending in an error, but the chart's breakeven markers (NA() where buying never
    breaks even against an option: the chart leaves them out)."""
    return [(sheet, cell, value) for sheet, cell, value in values.errors()
            if not (sheet == "Comparison" and value == "#N/A"
                    and values.workbook[sheet][cell].row == _marker_row(values))]


def _marker_row(values: Values) -> int:
    return next(row[0].row for row in values.workbook["Comparison"].iter_rows(min_col=1, max_col=1)
                if row[0].value == "Cumulative cost at breakeven (chart marker)")


def _summary_text(path) -> str:
    sheet = load_workbook(path)["Summary"]
    return " ".join(str(cell) for row in sheet.iter_rows(values_only=True)
                    for cell in row if cell is not None)


@pytest.mark.parametrize("with_api", [False, True], ids=["buy alone", "buy against an API alone"])
def test_a_question_without_a_rent_option_has_a_workbook_and_a_pdf(demo_scenarios, tmp_path, with_api):
    scenario = demo_scenarios[L40S_DEMO]
    scenario.rent_options.all().delete()
    if with_api:
        _with_api(scenario)
    content, pdf, path = _reports(scenario, tmp_path)
    sentence = content.result.verdict.sentence()

    assert " ".join(sentence.rstrip(".").split()) in pdf  # the summary may go on after a semicolon
    assert f"Verdict {sentence}" in _summary_text(path)
    (recalculated,) = recalculate([path], tmp_path)
    values = Values(recalculated)
    assert _errors(values) == []
    assert values["buy_npv_usd"] == pytest.approx(scalar(content.result.buy.npv_usd), abs=0.01)
    if with_api:
        (api,) = content.result.api
        assert values["api1_total_usd"] == pytest.approx(scalar(api.total_usd), abs=0.01)
        assert values["api1_npv_usd"] == pytest.approx(scalar(api.npv_usd), abs=0.01)
        assert values["api1_winner"] == ("API" if scalar(api.npv_usd) < scalar(content.result.buy.npv_usd)
                                         else "buy")


def test_the_api_is_a_live_column_and_a_chart_line_beside_the_rent_options(demo_scenarios, tmp_path):
    scenario = demo_scenarios[L40S_DEMO]
    _with_api(scenario)
    content, pdf, path = _reports(scenario, tmp_path)
    (api,) = content.result.api
    label = f"Pay per token: {API_NAME}"
    # The PDF's key figures have the API's column too.
    key_figures = pdf.split("Key figures over 36 months")[-1].split("Cumulative cost and breakeven")[0]
    assert "Pay per token" in key_figures
    assert format_usd_cents(scalar(api.npv_usd)) in key_figures

    workbook = load_workbook(path)
    summary = workbook["Summary"]
    headers = [row for row in summary.iter_rows(values_only=True) if row[0] == "Figure"][0]
    # Every option headed as the verdict names it.
    assert headers[1:5] == ("Buy", *(f"Rent {option.name}" for option in content.result.rent), label)
    assert set(headers[1:5]) == {option.label for option in content.result.verdict.ranked}
    chart_xml = _chart_xml(path)
    assert label in chart_xml and "Market survey typical price per GPU" in chart_xml
    assert "typical-1x-l40s" not in chart_xml  # offerings by their human names

    (recalculated,) = recalculate([path], tmp_path)
    values = Values(recalculated)
    assert _errors(values) == []
    # The API's month-by-month bill is the engine's; the running total and NPV follow it.
    bill = np.reshape(api.cash_flows.per_month_usd, -1)
    assert values.cells("api1_flow") == pytest.approx(bill.tolist(), abs=0.01)
    assert values["api1_total_usd"] == pytest.approx(scalar(api.total_usd), abs=0.01)
    assert values["api1_npv_usd"] == pytest.approx(scalar(api.npv_usd), abs=0.01)
    assert values["api1_npv_saving_usd"] == pytest.approx(
        scalar(api.npv_usd) - scalar(content.result.buy.npv_usd), abs=0.01)


def _chart_xml(path) -> str:
    with zipfile.ZipFile(io.BytesIO(path.read_bytes())) as archive:
        return " ".join(archive.read(name).decode() for name in archive.namelist()
                        if name.startswith("xl/charts/"))
