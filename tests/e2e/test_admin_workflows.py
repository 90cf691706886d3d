"""From sign-in to signature in headless Chromium at 1366 x 768: the team home answers first, a
plan is created, solved and read, a refresh of the shipped Lambda sample is started and
finishes, and a token made by its user works with curl. Screenshots go to test-artifacts/e2e/."""
from __future__ import annotations

import json
import re
import subprocess

import pytest
from playwright.sync_api import expect

from tests.catalog.test_refresh import SAMPLES
from tests.e2e.conftest import ARTIFACTS

SCREEN = {"width": 1366, "height": 768}
WORKER_TIMEOUT_MS = 120_000


def test_the_home_shows_every_demo_scenarios_verdict_on_the_first_screen(
        demo_scenarios, sign_in):
    page = sign_in(screen=SCREEN)

    for name in demo_scenarios:
        row = page.locator("#home-scenarios tr", has_text=name)
        expect(row).to_contain_text(re.compile(r"\b(Buy|Rent)\b"))
        expect(row).to_contain_text(re.compile(r"\$[\d,]+"))  # the margin, with separators
        box = row.bounding_box()
        assert box is not None and box["y"] + box["height"] <= SCREEN["height"], (name, box)
    assert page.evaluate("document.documentElement.scrollWidth") <= SCREEN["width"]
    # Operations (sign-in, login attempts, tokens, schedules) are grouped apart, below the work.
    operations = page.locator("#operations")
    expect(operations).to_contain_text("Periodic tasks")
    assert operations.bounding_box()["y"] > page.locator("#home-scenarios").bounding_box()["y"]
    page.screenshot(path=ARTIFACTS / "i24-home-1366x768.png")


@pytest.mark.worker
def test_a_plan_is_created_solved_and_read_in_the_admin(
        redis_worker, demo_scenarios, sign_in):
    scenario = demo_scenarios["8x H100 training cluster"]
    page = sign_in(f"/admin/tco/procurementplan/add/?scenario={scenario.pk}", screen=SCREEN)

    page.fill("input[name=name]", "H100 growth, 24 months")
    page.fill("input[name=demand_start]", "8")
    page.fill("input[name=growth_percent_per_month]", "5")
    page.fill("input[name=months]", "24")
    page.fill("input[name=lead_time_months]", "400")  # past the horizon: refused on its field
    page.click("input[name=solve]")
    expect(page.locator(".field-lead_time_months .errorlist")).to_be_visible()

    page.fill("input[name=lead_time_months]", "3")
    page.click("input[name=solve]")
    expect(page.locator(".messagelist")).to_contain_text("is being solved")
    chart = page.locator("#plan-chart svg")
    expect(chart).to_be_visible(timeout=WORKER_TIMEOUT_MS)  # the page reloads itself until solved
    expect(page.locator("#plan-baselines")).to_contain_text("All rent")
    expect(page.locator("#plan-orders")).to_contain_text("Order schedule")
    page.screenshot(path=ARTIFACTS / "i24-plan.png", full_page=True)


@pytest.mark.worker
def test_a_refresh_of_the_shipped_lambda_sample_is_started_in_the_admin_and_finishes(
        redis_worker, catalog, sign_in):
    page = sign_in("/admin/catalog/pricerefreshjob/", screen=SCREEN)
    page.click("text=Refresh prices now")
    page.select_option("select[name=provider]", "lambda")
    page.set_input_files("input[name=price_list]", str(SAMPLES / "lambda-instance-types-sample.json"))
    page.click("input[name=refresh]")
    expect(page.locator(".messagelist")).to_contain_text("The Lambda refresh from")

    row = page.locator("#result_list tbody tr").first
    for _ in range(60):  # the job row appears when the worker starts it, and ends in a second
        if row.count() and "Succeeded" in row.inner_text():
            break
        page.wait_for_timeout(1000)
        page.reload()
    expect(row).to_contain_text("Succeeded")
    expect(row).to_contain_text("Lambda")
    page.screenshot(path=ARTIFACTS / "i24-refresh-done.png", full_page=True)


def test_a_token_made_by_its_user_works_with_curl_until_revoked(
        live_server, demo_scenarios, sign_in):
    page = sign_in("/admin/my-api-tokens/", screen=SCREEN)
    page.fill("input[name=name]", "budget sync")
    page.click("input[name=create]")
    key = page.locator("#token-key").inner_text().strip()
    expect(page.locator("#my-tokens")).to_contain_text("budget sync")

    def curl(*headers: str) -> tuple[int, str]:
        args = ["curl", "-s", "-w", "\n%{http_code}", *[f"-H{h}" for h in headers],
                f"{live_server.url}/api/v1/scenarios/"]
        answer = subprocess.run(args, capture_output=True, text=True, check=True).stdout
        body, _, status = answer.rpartition("\n")
        return int(status), body

    status, body = curl(f"Authorization: Token {key}")
    assert status == 200
    assert "8x H100 training cluster" in {row["name"] for row in json.loads(body)["results"]}

    page.click("#my-tokens button:has-text('Revoke')")
    expect(page.locator(".messagelist")).to_contain_text("revoked")
    assert curl(f"Authorization: Token {key}")[0] == 401
