"""FinOps in the admin: FOCUS and price-sheet downloads from the scenario and plan lists, a FOCUS
cost file imported as a job (refused at once by its name, or on its page with the row and
column), and the variance on the target's page."""
from __future__ import annotations

import json
from datetime import date

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import TestCase

from finops.exports.focus import focus_csv
from finops.exports.projections import plan_focus
from finops.models import ActualCost
from finops.models import CostImport
from finops.models import CostTarget
from tco.services.scenarios import scenario_approve

H100 = "8x H100 training cluster"


def action(admin_client, model: str, name: str, ids: list[int]):
    return admin_client.post(f"/admin/tco/{model}/", {"action": name, "_selected_action": ids})


@pytest.mark.django_db
def test_scenario_and_plan_lists_download_focus_and_price_sheets(demo, admin_client):
    scenarios, plan = demo
    ids = [scenario.pk for scenario in scenarios.values()]
    csv = action(admin_client, "scenario", "focus_csv_selected", ids)
    assert csv["Content-Type"] == "text/csv"
    body = csv.content.decode()
    assert body.startswith("AvailabilityZone,BilledCost,") and all(f",{pk}," in body for pk in ids)
    parquet = action(admin_client, "scenario", "focus_parquet_selected", ids)
    assert parquet.content[:4] == b"PAR1"
    sheet = json.loads(action(admin_client, "scenario", "opencost_selected", [scenarios[H100].pk]).content)
    assert sheet["provider"] == "custom" and float(sheet["GPU"]) > 0
    refused = action(admin_client, "scenario", "opencost_selected", ids)
    assert refused.status_code == 302  # back to the list, with the message to select one
    plan_csv = action(admin_client, "procurementplan", "plan_focus_csv_selected", [plan.pk])
    assert plan_csv["Content-Type"] == "text/csv" and "On-premises" in plan_csv.content.decode()


@pytest.mark.django_db
def test_importing_a_cost_file_and_reading_the_variance_in_the_admin(demo, admin_client, admin_user):
    _, plan = demo
    scenario_approve(scenario=plan.scenario, approved_by=admin_user)
    target = CostTarget.objects.create(team=plan.scenario.team, plan=plan, starts_on=date(2027, 1, 1))
    actual = plan_focus(plan, start=date(2027, 1, 1))
    actual = actual[actual["x_Month"] < 3].copy()
    actual.loc[actual["x_Month"] == 1, "BilledCost"] *= 2
    bad = actual.copy()
    bad["ChargePeriodStart"] = bad["ChargePeriodStart"].astype(object)
    bad.iloc[0, bad.columns.get_loc("ChargePeriodStart")] = "soon"
    screened = admin_client.post("/admin/finops/costimport/add/", {
        "team": plan.scenario.team_id, "file": SimpleUploadedFile("bad.xlsx", focus_csv(bad))})
    assert screened.status_code == 200
    assert "expected a .csv or .parquet file, got &#x27;bad.xlsx&#x27;" in screened.content.decode()
    assert not CostImport.objects.exists()
    with TestCase.captureOnCommitCallbacks(execute=True):  # the import task runs inline here
        refused = admin_client.post("/admin/finops/costimport/add/", {
            "team": plan.scenario.team_id, "file": SimpleUploadedFile("bad.csv", focus_csv(bad))})
    job = CostImport.objects.get()
    assert refused["Location"] == f"/admin/finops/costimport/{job.pk}/change/"
    page = admin_client.get(refused["Location"]).content.decode()
    assert "<td>2</td><td>ChargePeriodStart</td><td>&#x27;soon&#x27; is not a date and time</td>" in page
    assert not ActualCost.objects.exists()
    with TestCase.captureOnCommitCallbacks(execute=True):
        added = admin_client.post("/admin/finops/costimport/add/", {
            "team": plan.scenario.team_id, "file": SimpleUploadedFile("good.csv", focus_csv(actual))})
    assert added.status_code == 302 and ActualCost.objects.count() == len(actual)
    page = admin_client.get(added["Location"]).content.decode()
    assert f"100 % ({len(actual):,} of {len(actual):,} rows checked, {len(actual):,} written)" in page

    page = admin_client.get(f"/admin/finops/costtarget/{target.pk}/change/").content.decode()
    assert "Actual against projected" in page and "2027-02" in page and "over the threshold" in page
    assert "+100.0%" in page  # February billed twice its projection
    pdf = admin_client.get(f"/admin/finops/costtarget/{target.pk}/variance.pdf")
    assert pdf.content[:5] == b"%PDF-"
