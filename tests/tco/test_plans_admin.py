"""The plan's admin page: the capacity chart, the order schedule, the baselines, the uncertainty."""
from __future__ import annotations

import pytest

from tco.services.plans import plan_create

pytestmark = pytest.mark.django_db

SPEC = {"demand": {"start": 8, "growth_per_month": 0.05, "months": 36},
        "owned": [{"name": "DGX H100", "lead_time_months": 4}],
        "limits": {"site_it_power_kw": 25},
        "uncertainty": {"draws": 300, "seed": 1,
                        "rent_price_factor": {"kind": "triangular", "low": 0.8, "mode": 1, "high": 1.2}}}


def test_the_plan_page_shows_chart_schedule_baselines_limits_and_uncertainty(
        admin_client, run_scenario, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        plan = plan_create(scenario=run_scenario, name="growth", spec=SPEC)
    plan.refresh_from_db()
    page = admin_client.get(f"/admin/tco/procurementplan/{plan.pk}/change/").content.decode()

    assert "<svg" in page and "Capacity by source against demand" in page
    first = plan.result["orders"][0]
    assert f"<td>DGX H100</td><td>{first['order_month']}</td><td>{first['in_service_month']}</td>" in page
    assert "All rent (no new systems)" in page and "All buy (on demand only before delivery)" in page
    assert "The site power binds" in page  # 25 kW holds two 10.2 kW systems
    assert "Under uncertainty (300 draws" in page
    # The request as a labelled table, each setting in words (issue 24: no JSON on the page).
    assert '<table class="spec">' in page and "Demand › Growth per month (share)</th><td>0.05</td>" in page
    assert "&quot;growth_per_month&quot;" not in page
    assert "costmodel/plan/spec.py" not in page
    listing = admin_client.get("/admin/tco/procurementplan/").content.decode()
    assert f"${plan.result['npv_usd']:,.0f}" in listing
