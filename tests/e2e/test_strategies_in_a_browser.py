"""Issue 48 in headless Chromium: the H100 demo scenario's page with an imported rental curve shows
the strategies over time, the value of waiting for the B200, the curve used (chart and table) and
its sources. Screenshots at 1366 px go to test-artifacts/e2e/."""
from __future__ import annotations

import datetime

import pytest
from playwright.sync_api import expect

from catalog.models import Accelerator
from catalog.rental_curves import import_rental_curve
from tests.e2e.conftest import ARTIFACTS

SCREEN = {"width": 1366, "height": 900}
# Seed 003's H100 on demand ($2.89 mid-range) and spot ($1.38); the terms are a broker's sheet.
CURVE = """date,term,price,source
2026-11-02,spot,1.38,seed 003
2026-11-02,on demand,2.89,seed 003
2026-11-02,1,2.75,Broker quote sheet (example)
2026-11-02,3,2.65,Broker quote sheet (example)
2026-11-02,6,2.55,Broker quote sheet (example)
2026-11-02,12,2.40,Broker quote sheet (example)
2026-11-02,24,2.25,Broker quote sheet (example)
2026-11-02,36,2.10,Broker quote sheet (example)
"""


@pytest.fixture
def h100_case(demo_scenarios, browser_user):
    """The H100 demo scenario with its accelerator's curve imported (before the browser starts:
    its event loop forbids ORM calls in this thread after)."""
    h100 = Accelerator.objects.get(slug="h100-sxm-80gb")
    import_rental_curve(accelerator=h100, text=CURVE, today=datetime.date.today())
    return next(scenario for scenario in demo_scenarios.values() if scenario.accelerator_id == h100.pk)


def test_the_strategies_and_the_curve_are_on_the_scenario_page(live_server, h100_case, sign_in):
    page = sign_in(f"/admin/tco/scenario/{h100_case.pk}/change/", screen=SCREEN)
    section = page.locator("#strategies")
    expect(section.locator("h2")).to_have_text("Strategies over time")
    expect(page.locator("#strategies-verdict")).to_contain_text("Waiting 24 months to buy B200")
    rows = page.locator("#strategies-table tbody tr")
    expect(rows).to_have_count(11)  # buy now twice (resale), six terms, on demand, spot, the B200
    expect(page.locator("#strategies-curve tbody tr")).to_have_count(8)
    expect(page.locator("#strategies-curve")).to_contain_text("Broker quote sheet (example)")
    expect(page.locator("#strategies-unavailable")).to_contain_text("no mix given")
    expect(section.locator("svg")).to_be_visible()
    section.scroll_into_view_if_needed()
    section.screenshot(path=ARTIFACTS / "i48-strategies-1366.png")
    page.screenshot(path=ARTIFACTS / "i48-scenario-page-1366-full.png", full_page=True)
