"""The procurement plan in the reports: a workbook sheet whose totals recalculate to the plan's
figures, and a PDF section with the chart and the order schedule."""
from __future__ import annotations

import re

import pytest
from openpyxl import load_workbook

from costmodel.plan import make_plan
from costmodel.tests.scenarios import rich_scenario
from costmodel.tests.test_plan import small_plan
from reports.builders.excel import build_workbook
from reports.builders.pdf import build_pdf
from reports.content import RecordedPlan
from reports.content import RecordedRun
from tests.reports.conftest import MONTE_CARLO
from tests.reports.conftest import SWEEP
from tests.reports.conftest import content_for
from tests.reports.recalc import recalculate
from tests.reports.test_pdf_report import poppler

CENT = 0.01


@pytest.fixture(scope="module")
def plan() -> RecordedPlan:
    result = make_plan(small_plan(tuple(8.0 + m for m in range(36)), rate=0.1)).to_json()
    return RecordedPlan(plan_id=7, name="Growth", result=result, uncertainty=None, discount_rate_per_year=0.1)


def test_the_plan_sheet_totals_and_npvs_recalculate_to_the_plans_figures(plan, tmp_path):
    path = tmp_path / "plan.xlsx"
    path.write_bytes(build_workbook(content_for(rich_scenario(), plans=(plan,))))
    (recalculated,) = recalculate([path], tmp_path)
    ws = load_workbook(recalculated, data_only=True)["Procurement plan"]
    labels = {ws.cell(row=row, column=1).value: row for row in range(1, ws.max_row + 1)}
    first_cash = 3 + len(plan.result["sources"])
    total, npv = labels["Total cash (USD)"], labels["NPV (USD, month 0 undiscounted)"]
    baselines = [figures for figures in plan.result["baselines"].values() if figures["available"]]
    for column, figures in enumerate([plan.result, *baselines], start=first_cash):
        assert ws.cell(row=total, column=column).value == pytest.approx(figures["total_usd"], abs=CENT)
        assert ws.cell(row=npv, column=column).value == pytest.approx(figures["npv_usd"], abs=CENT)
    assert plan.result["orders"]
    orders_total = labels["Total"]
    assert ws.cell(row=orders_total, column=5).value == sum(o["systems"] for o in plan.result["orders"])


def test_the_pdf_has_a_plan_section_with_its_order_schedule(plan, tmp_path):
    pdf = tmp_path / "plan.pdf"
    pdf.write_bytes(build_pdf(content_for(rich_scenario(), plans=(plan,))))
    text = poppler("pdftotext", "-layout", str(pdf), "-")
    assert "Procurement plan: Growth" in text
    assert "Order schedule" in text and "Against the baselines" in text
    first = plan.result["orders"][0]
    assert f"${first['capex_usd']:,.0f}" in text


def test_the_contents_list_the_chapters_in_the_order_they_come(plan, tmp_path):
    pdf = tmp_path / "plan.pdf"
    content = content_for(rich_scenario(), plans=(plan,),
                          sweeps=(RecordedRun(3, "sweep", SWEEP),),
                          monte_carlo=(RecordedRun(4, "monte_carlo", MONTE_CARLO),))
    pdf.write_bytes(build_pdf(content))
    contents = poppler("pdftotext", "-layout", str(pdf), "-").split("\f")[1]

    pages = [int(page) for page in re.findall(r"\.+ ?(\d+)$", contents, re.M)]
    assert len(pages) >= 12 and pages == sorted(pages)  # the plan no longer listed after the sweeps
