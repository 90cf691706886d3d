"""Issue 47 in headless Chromium: the scenario form's serving sizing filled in as a person does
(a model preset, FP8 from the list, the request shape and the targets, no JSON), saved, and the
page's throughput-against-interactivity chart. Screenshots go to test-artifacts/e2e/."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS


@pytest.fixture
def h100_scenario(demo_scenarios, browser_user):
    return next(s for s in demo_scenarios.values() if s.accelerator.slug == "h100-sxm-80gb")


def test_a_person_sizes_a_70b_fleet_with_the_form_and_sees_the_interactivity_chart(
        live_server, h100_scenario, sign_in):
    page = sign_in(f"/admin/tco/scenario/{h100_scenario.pk}/change/")
    # A saved scenario's inputs are folded away: open the serving sizing and the workload.
    page.click("fieldset summary:has-text('Serving sizing')")
    page.click("fieldset summary:has-text('Workload')")
    page.select_option("#id_sizing_model", "llama-3.1-70b")
    page.select_option("#id_sizing_precision", "fp8")
    page.fill("#id_sizing_tokens_per_s", "20000")
    page.fill("#id_sizing_input_tokens", "1000")
    page.fill("#id_sizing_output_tokens", "300")
    page.fill("#id_sizing_time_to_first_token_s", "2")
    page.fill("#id_sizing_tokens_per_s_per_user", "10")
    page.fill("#id_accelerators", "")
    page.locator("#id_sizing_model").scroll_into_view_if_needed()
    page.locator("#id_sizing_model").locator("xpath=ancestor::fieldset").screenshot(
        path=str(ARTIFACTS / "sizing-form.png"))
    page.click("input[name=_continue]")

    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")
    expect(page.locator("#id_sizing_model")).to_have_value("llama-3.1-70b")
    chart = page.locator("#interactivity-chart")
    expect(chart).to_be_visible()
    expect(chart.locator("svg")).to_be_visible()
    expect(chart.locator("figcaption")).to_contain_text("against interactivity")
    expect(page.locator("#scenario-sizing")).to_contain_text("needs the fewest accelerators")
    chart.scroll_into_view_if_needed()
    chart.screenshot(path=str(ARTIFACTS / "sizing-interactivity-chart.png"))
