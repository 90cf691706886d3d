"""Issue 23's case in headless Chromium: the 32x L40S inference fleet with a cloud option and a
per-token API that is the cheapest. The page's headline, the scenario list and the chart's legend
name the API; so do the PDF's executive summary and the workbook's summary sheet (read without
recalculating), and the API's typed ``verdict``. Screenshots at 1366 px go to test-artifacts/e2e/.
"""
from __future__ import annotations

import io
import subprocess
from decimal import Decimal

import pytest
from openpyxl import load_workbook
from playwright.sync_api import expect
from rest_framework.test import APIClient

from reports.services import report_build
from reports.services import report_content_for
from tco.models import ApiOption
from tests.e2e.conftest import ARTIFACTS

API_NAME = "Hosted 8B model API (quoted)"
LABEL = f"Pay per token: {API_NAME}"
SCREEN = {"width": 1366, "height": 900}


@pytest.fixture
def l40s_case(demo_scenarios, browser_user):
    """The L40S demo with a per-token API whose quoted prices undercut buying and renting, and
    what the API, the PDF and the workbook say of it (read before the browser starts: its event
    loop forbids ORM calls in this thread after)."""
    scenario = demo_scenarios["Inference fleet: 32x L40S vs cloud"]
    ApiOption.objects.create(scenario=scenario, name=API_NAME,
                             usd_per_million_input=Decimal("0.05"),
                             usd_per_million_cached_input=Decimal("0.025"),
                             usd_per_million_output=Decimal("0.20"))
    client = APIClient()
    client.force_authenticate(browser_user)
    body = client.post(f"/api/v1/scenarios/{scenario.pk}/evaluate/").json()
    content = report_content_for(scenario=scenario)
    pdf_bytes = report_build(content=content, format="pdf")
    pdf = subprocess.run(["pdftotext", "-layout", "-", "-"], input=pdf_bytes, capture_output=True,
                         check=True).stdout.decode()
    workbook = load_workbook(io.BytesIO(report_build(content=content, format="xlsx")))
    summary = [" ".join(str(cell) for cell in row if cell is not None)
               for row in workbook["Summary"].iter_rows(values_only=True)]
    return {"scenario": scenario, "verdict": body["result"]["verdict"], "warnings": body["warnings"],
            "pdf": pdf, "summary": summary, "sentence": content.result.verdict.sentence()}


def test_the_api_that_is_cheapest_is_named_everywhere(live_server, l40s_case, sign_in):
    verdict, scenario = l40s_case["verdict"], l40s_case["scenario"]
    # The API's typed verdict: the per-token API first, then buying, then the cloud options.
    assert (verdict["cheapest"]["kind"], verdict["cheapest"]["name"]) == ("api", API_NAME)
    assert verdict["cheapest"]["label"] == LABEL
    assert [row["kind"] for row in verdict["options"]][:2] == ["api", "buy"]
    assert verdict["margin_usd"] == pytest.approx(verdict["options"][1]["npv_usd"]
                                                  - verdict["cheapest"]["npv_usd"], abs=0.01)
    assert verdict["breakeven_month"] is None  # buying never catches up within 36 months
    assert verdict["sentence"] == l40s_case["sentence"]
    assert verdict["sentence"].startswith(f"{LABEL} is the cheapest over 36 months")

    # The PDF's executive summary and the workbook's summary sheet, as written (no recalculation).
    summary_text = l40s_case["pdf"].split("Executive summary")[-1].split("Key figures")[0]
    assert LABEL in " ".join(summary_text.split())
    assert f"Verdict {l40s_case['sentence']}" in l40s_case["summary"]
    assert f"Option 1 (cheapest) {LABEL}" in " ".join(l40s_case["summary"])

    page = sign_in("/admin/tco/scenario/", screen=SCREEN)
    row = page.locator("#result_list tr", has_text=scenario.name)
    expect(row).to_contain_text(LABEL)
    page.screenshot(path=ARTIFACTS / "i23-scenario-list-1366.png")

    page.goto(f"{live_server.url}/admin/tco/scenario/{scenario.pk}/change/")
    expect(page.locator("#scenario-result .headline")).to_have_text(l40s_case["sentence"])
    chart = page.locator("#scenario-result .cumulative-chart > svg")
    # matplotlib writes each text as a comment beside its glyphs: the legend's entries.
    assert f"{LABEL} (cheapest)" in chart.inner_html()
    assert "Cumulative cost, discounted at 8.0%/yr" in chart.inner_html()
    expect(page.locator("#scenario-result .key-figures th").nth(1)).to_have_text(f"{LABEL} (cheapest)")
    # The same warnings as the API, in the same order.
    shown = page.locator("#scenario-warnings li").all_inner_texts()
    assert [text.split(": ", 1)[1] for text in shown] == [w["message"] for w in l40s_case["warnings"]]
    page.screenshot(path=ARTIFACTS / "i23-l40s-api-cheapest-1366.png")
    page.locator("#inputs-used summary").click()
    expect(page.locator("#inputs-used")).to_contain_text("Electricity price")
    page.screenshot(path=ARTIFACTS / "i23-l40s-api-cheapest-1366-full.png", full_page=True)

    # Approving asks for each warning to be acknowledged, with a comment for the history.
    page.goto(f"{live_server.url}/admin/tco/scenario/{scenario.pk}/approve/")
    boxes = page.locator(f"input[name=ack-{scenario.pk}]")
    assert boxes.count() == len(l40s_case["warnings"])
    expect(page.locator(f"#comment-{scenario.pk}")).to_be_visible()
    page.screenshot(path=ARTIFACTS / "i23-approve-1366.png", full_page=True)
