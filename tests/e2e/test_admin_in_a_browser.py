"""End to end in headless Chromium: log in, open a demo scenario and its chart, run a sweep to
100 %, export the Excel report and download it. Screenshots of each step go to
test-artifacts/e2e/ (not committed)."""
from __future__ import annotations

import re
import zipfile

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS


@pytest.mark.worker
def test_an_analyst_runs_a_sweep_and_downloads_the_excel_report(
        live_server, redis_worker, catalog, demo_scenarios, sign_in, tmp_path):
    scenario = demo_scenarios["8x H100 training cluster"]
    page = sign_in()
    expect(page.locator("#site-name")).to_be_visible()
    page.screenshot(path=ARTIFACTS / "1-logged-in.png")

    page.goto(f"{live_server.url}/admin/tco/scenario/{scenario.pk}/change/")
    chart = page.locator("#scenario-result .cumulative-chart svg")
    expect(chart).to_be_visible()
    expect(page.locator("#scenario-result")).to_contain_text("Cost per useful GPU-hour")
    page.screenshot(path=ARTIFACTS / "2-scenario-with-chart.png", full_page=True)

    page.locator(".object-tools a", has_text=re.compile(r"^\s*Sweep\s*$")).click()
    page.fill("textarea[name=axes]",
              "workload.utilisation=0.3,0.5,0.7,0.9\nfacility.electricity_usd_per_kwh=0.05:0.30@6")
    page.fill("input[name=chunk_size]", "4")  # several chunks, so the bar moves
    page.click("input[type=submit]")
    bar = page.locator("#run-progress-bar")
    expect(bar).to_be_visible()
    page.screenshot(path=ARTIFACTS / "3-sweep-running.png", full_page=True)
    expect(page.locator("#run-progress-text")).to_contain_text("100%", timeout=120_000)
    assert bar.get_attribute("value") == "100"
    page.screenshot(path=ARTIFACTS / "4-sweep-done.png", full_page=True)

    page.goto(f"{live_server.url}/admin/tco/scenario/")
    page.locator("tr", has_text=scenario.name).locator("input.action-select").check()
    page.select_option("select[name=action]", label="Export Excel")
    page.click("button[name=index]")
    expect(page.locator(".messagelist")).to_contain_text("Queued 1 export")
    page.goto(f"{live_server.url}/admin/reports/reportexport/")
    link = page.locator("a", has_text=re.compile(r"Download", re.I)).first
    for _ in range(60):  # the worker builds it in well under a second; allow a slow machine
        if link.count():
            break
        page.wait_for_timeout(1000)
        page.reload()
    page.screenshot(path=ARTIFACTS / "5-exports.png", full_page=True)
    with page.expect_download() as download_info:
        link.click()
    saved = tmp_path / "report.xlsx"
    download_info.value.save_as(saved)
    with zipfile.ZipFile(saved) as workbook:  # an xlsx is a zip with a workbook part
        assert "xl/workbook.xml" in workbook.namelist()


FIRST_SCREEN = {"width": 1366, "height": 768}
ENGINE_PATH = re.compile(r"\b(?:workload|buy|facility|finance|cooling|rent|footprint)\.[a-z_0-9.]+|"
                         r"\b(?:capex|opex|usd|kw|mwh)_[a-z_]+|"
                         r"\b[a-z]+(?:_[a-z]+)+\b")  # a field name: system_price_usd


def test_the_scenario_page_leads_with_the_answer_on_a_laptop_screen(
        live_server, catalog, demo_scenarios, sign_in):
    scenario = demo_scenarios["8x H100 training cluster"]
    page = sign_in("/admin/tco/scenario/", screen=FIRST_SCREEN)

    # The list shows the answer of each scenario and fits the screen's width.
    row = page.locator("#result_list tr", has_text=scenario.name)
    expect(row).to_contain_text(re.compile(r"\$[\d,]+\.\d\d"))
    page.screenshot(path=ARTIFACTS / "scenario-list-1366.png")
    assert page.evaluate("document.documentElement.scrollWidth") <= FIRST_SCREEN["width"]

    page.goto(f"{live_server.url}/admin/tco/scenario/{scenario.pk}/change/")
    headline = page.locator("#scenario-result .headline")
    chart = page.locator("#scenario-result .cumulative-chart svg")
    expect(headline).to_contain_text(re.compile(r"^(Buy|Rent)"))
    page.screenshot(path=ARTIFACTS / "scenario-first-screen-1366x768.png")
    for element in (headline, chart):
        box = element.bounding_box()
        assert box is not None and box["y"] >= 0
        assert box["y"] + box["height"] <= FIRST_SCREEN["height"], box
        assert box["x"] + box["width"] <= FIRST_SCREEN["width"], box
    # Every rent option's key figures are in view, none cut off on the right of the table.
    key_figures = page.locator("#scenario-result .key-figures")
    assert key_figures.evaluate("table => table.scrollWidth <= table.clientWidth")
    # Labels, not engine paths ("gpu_8x_h100_sxm5" is Lambda's own instance name and may stay).
    assert ENGINE_PATH.findall(page.locator("#scenario-result").inner_text()) == []
