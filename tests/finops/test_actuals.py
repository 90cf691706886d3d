"""Actual costs against an approved plan: a FOCUS file imported for the team (a job, run inline
here), compared month by month, by option, by provider and in total, with an alert on the month
off by more than 10 %; a bad file is refused naming row and column, and nothing is imported."""
from __future__ import annotations

import subprocess
from datetime import date
from decimal import Decimal

import pytest
from django.core import mail
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import TestCase
from rest_framework.test import APIClient

from catalog.exchange_rates.services import ecb_source
from catalog.models import ExchangeRate
from finops.exports.focus import focus_csv
from finops.exports.projections import plan_focus
from finops.exports.projections import scenario_focus
from finops.models import ActualCost
from finops.models import CostImport
from finops.models import VarianceAlert
from notifications.choices import Channel
from notifications.models import Subscription
from tco.services.scenarios import scenario_approve

START = date(2027, 1, 1)


@pytest.fixture
def approved_plan(demo, admin_user):
    scenarios, plan = demo
    scenario_approve(scenario=plan.scenario, approved_by=admin_user)
    plan.refresh_from_db()
    return plan


@pytest.fixture
def client(admin_user):
    client = APIClient()
    client.force_authenticate(admin_user)
    return client


def upload(client, name: str, content: bytes, team: str = "demo"):
    return client.post("/api/v1/cost-imports/", {"team": team, "file": SimpleUploadedFile(name, content)},
                       format="multipart")


def imported(client, name: str, content: bytes, team: str = "demo") -> dict:
    """The import job after its task ran (inline, once the upload's transaction committed)."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        response = upload(client, name, content, team)
    assert response.status_code == 202, response.json()
    assert response.json()["status"] == "pending"
    return client.get(f"/api/v1/cost-imports/{response.json()['id']}/").json()


@pytest.mark.django_db
def test_an_imported_focus_file_shows_its_variance_against_the_approved_plan(approved_plan, client):
    plan = approved_plan
    Subscription.objects.create(team=plan.scenario.team, channel=Channel.EMAIL,
                                address="finance@example.com")
    target = client.post("/api/v1/cost-targets/",
                         {"team": "demo", "plan": plan.pk, "starts_on": "2027-01-01"}, format="json")
    assert target.status_code == 201, target.json()
    # What was spent in the plan's first four months: as projected, but AWS billed 30 % more in
    # March 2027; the AWS bill names no option of ours (matched by provider).
    projected = plan_focus(plan, start=START)
    actual = projected[projected["x_Month"] < 4].copy()
    aws = actual["ProviderName"] == "AWS"
    march = actual["x_Month"] == 2
    actual.loc[aws & march, "BilledCost"] *= 1.3
    actual.loc[aws, "x_Option"] = None
    expected_extra = round(0.3 * float(projected[(projected["ProviderName"] == "AWS")
                                                 & (projected["x_Month"] == 2)]["BilledCost"].sum()), 2)
    assert expected_extra > 100  # the month is worth an alert
    job = imported(client, "bills-2027-q1.csv", focus_csv(actual))
    assert (job["status"], job["rows_total"], job["rows_written"]) == ("done", len(actual), len(actual))

    found = client.get(f"/api/v1/cost-targets/{target.json()['id']}/variance/").json()
    months = {row["month"]: row for row in found["months"]}
    assert list(months) == ["2027-01-01", "2027-02-01", "2027-03-01", "2027-04-01"]
    assert months["2027-03-01"]["variance_usd"] == pytest.approx(expected_extra, abs=0.02)
    assert months["2027-03-01"]["over_threshold"]
    assert all(abs(months[m]["variance_usd"]) < 0.02 for m in ("2027-01-01", "2027-02-01", "2027-04-01"))
    providers = {row["provider"]: row for row in found["by_provider"]}
    assert providers["AWS"]["variance_usd"] == pytest.approx(expected_extra, abs=0.02)
    assert found["total"]["variance_usd"] == pytest.approx(expected_extra, abs=0.02)
    assert {row["option"] for row in found["by_option"]} <= set(projected["x_Option"])

    (alert,) = VarianceAlert.objects.all()
    assert alert.month == date(2027, 3, 1) and "over by" in alert.message
    (sent,) = mail.outbox
    assert sent.subject == f"Variance alert: {plan.scenario.name}, 2027-03"
    assert sent.to == ["finance@example.com"]

    pdf = client.get(f"/api/v1/cost-targets/{target.json()['id']}/variance-pdf/")
    assert pdf.status_code == 200 and pdf.content[:5] == b"%PDF-"


@pytest.mark.django_db
def test_a_bad_focus_file_is_refused_naming_row_and_column_and_nothing_is_imported(approved_plan, client):
    frame = plan_focus(approved_plan, start=START).head(3).copy()
    frame["BillingCurrency"] = frame["BillingCurrency"].astype(object)
    frame["ChargeCategory"] = frame["ChargeCategory"].astype(object)
    frame.iloc[1, frame.columns.get_loc("BillingCurrency")] = "XTS"  # row 3: a code with no rate
    frame.iloc[2, frame.columns.get_loc("ChargeCategory")] = "Rental"  # row 4
    job = imported(client, "bill.csv", focus_csv(frame))
    charged_on = str(frame.iloc[1]["ChargePeriodStart"])[:10]  # the row's own date
    assert (job["status"], job["rows_written"]) == ("failed", 0)
    no_rate = (f"no XTS/USD rate on or before {charged_on}; add a rate with its source, or refresh the ECB "
               "reference rates")
    assert job["errors"] == [
        {"row": 3, "field": "BillingCurrency", "reason": no_rate},
        {"row": 4, "field": "ChargeCategory",
         "reason": "'Rental' is not one of Usage, Purchase, Tax, Credit, Adjustment"}]
    assert job["error"] == f"Nothing was imported: 2 bad rows (first: row 3, BillingCurrency: {no_rate})."
    missing = imported(client, "bill.csv", focus_csv(frame.drop(columns=["BilledCost"])))
    assert missing["errors"] == [
        {"row": None, "field": "BilledCost", "reason": "the column is missing (FOCUS requires it)"}]
    assert not ActualCost.objects.exists()


@pytest.mark.django_db
def test_a_file_of_the_wrong_name_size_or_container_is_refused_at_once_and_no_job_exists(demo, client):
    good = b"BilledCost,BillingCurrency,ChargeCategory,ChargePeriodStart,ProviderName\n"
    refusals = {
        "bill.xlsx": (good, "expected a .csv or .parquet file, got 'bill.xlsx'"),
        "bill.csv": (good + b"5.00,USD,Usage,2027-01-05T00:00:00Z,A\x00WS\n",
                     "not a CSV text file: it holds binary data ('\\x00' at character 110)"),
        "bill.parquet": (good, "not a readable Parquet file: it does not begin and end with PAR1, as every "
                               "Parquet file does"),
    }
    for name, (content, reason) in refusals.items():
        response = upload(client, name, content)
        assert (response.status_code, response.json()) == (400, {"file": [reason]}), name
    assert not CostImport.objects.exists()


@pytest.mark.django_db
def test_a_target_must_be_approved(demo, client):
    _, plan = demo
    response = client.post("/api/v1/cost-targets/",
                           {"team": "demo", "plan": plan.pk, "starts_on": "2027-01-01"}, format="json")
    assert response.status_code == 400
    assert "approved scenario only" in response.json()["plan"][0]


@pytest.mark.django_db
def test_a_euro_teams_bills_in_dollars_are_compared_in_euros_at_their_months_rate(
        demo_scenarios, admin_user, client, tmp_path):
    scenario = next(s for name, s in demo_scenarios.items() if name.startswith("8x H100"))
    team = scenario.team
    team.reporting_currency = "EUR"
    team.save()
    scenario.rates_as_of = date(2026, 12, 31)  # the scenario's dollar prices at that day's rate
    scenario.save()
    ExchangeRate.objects.create(base="EUR", quote="USD", rate=Decimal("1.25"), on=date(2026, 12, 31),
                                source=ecb_source())
    for day, rate in ((date(2027, 1, 29), "1.25"), (date(2027, 2, 26), "1.10")):
        ExchangeRate.objects.create(base="EUR", quote="USD", rate=Decimal(rate), on=day, source=ecb_source())
    scenario_approve(scenario=scenario, approved_by=admin_user)
    target = client.post("/api/v1/cost-targets/", {"team": team.slug, "scenario": scenario.pk,
                                                   "starts_on": "2027-01-01"}, format="json")
    assert target.status_code == 201, target.json()
    projected = scenario_focus(scenario, start=START)
    assert set(projected["BillingCurrency"]) == {"EUR"}
    # The provider bills the projected euros in dollars: January and February at 1.25 (the rates
    # of 2026-12-31 and 2027-01-29), March at 1.10 (2027-02-26).
    compared = client.get(f"/api/v1/cost-targets/{target.json()['id']}/variance/").json()["compared_with"]
    rows = projected[(projected["x_Option"] == compared) & (projected["x_Month"] < 3)]
    bills = rows.copy()
    bills["BillingCurrency"] = "USD"
    dollars_a_euro = bills["x_Month"].map({0: 1.25, 1: 1.25, 2: 1.10})
    bills["BilledCost"] = (bills["BilledCost"] * dollars_a_euro).round(6)
    job = imported(client, "bills.csv", focus_csv(bills), team=team.slug)
    assert (job["status"], job["currency"]) == ("done", "EUR")

    stored = ActualCost.objects.filter(month=date(2027, 3, 1)).order_by("id").first()
    usd = Decimal(str(bills[bills["x_Month"] == 2]["BilledCost"].iloc[0]))
    assert stored.billed_cost == pytest.approx(usd / Decimal("1.10"), abs=Decimal("0.000001"))
    found = client.get(f"/api/v1/cost-targets/{target.json()['id']}/variance/").json()
    assert found["currency"] == "EUR"
    assert [row["month"] for row in found["months"]] == ["2027-01-01", "2027-02-01", "2027-03-01"]
    assert all(abs(row["variance_usd"]) < 0.02 for row in found["months"])
    assert found["total"]["projected_usd"] == pytest.approx(float(rows["BilledCost"].sum()), abs=0.02)

    pdf = client.get(f"/api/v1/cost-targets/{target.json()['id']}/variance-pdf/")
    (tmp_path / "variance.pdf").write_bytes(pdf.content)
    text = subprocess.run(["pdftotext", "-layout", str(tmp_path / "variance.pdf"), "-"],
                          capture_output=True, text=True, check=True).stdout
    assert "Projected (EUR)" in text and "EUR " in text and "$" not in text


@pytest.mark.django_db
def test_out_of_bounds_cells_are_refused_naming_row_and_column_not_a_500(demo, client):
    header = "BilledCost,BillingCurrency,ChargeCategory,ChargePeriodStart,ProviderName\n"
    good = "100.00,USD,Usage,2027-01-05T00:00:00Z,AWS\n"
    rows = ["1e30,USD,Usage,2027-01-05T00:00:00Z,AWS\n",                          # row 3
            "123456789012345678901234567890,USD,Usage,2027-01-05T00:00:00Z,AWS\n",  # row 4
            f"5.00,USD,Usage,2027-01-05T00:00:00Z,{'P' * 5000}\n"]                  # row 5
    job = imported(client, "bill.csv", (header + good + "".join(rows)).encode())
    assert job["status"] == "failed"
    assert job["errors"] == [
        {"row": 3, "field": "BilledCost", "reason": "1e30 is more than 1,000,000,000,000"},
        {"row": 4, "field": "BilledCost",
         "reason": "123456789012345678901234567890 is more than 1,000,000,000,000"},
        {"row": 5, "field": "ProviderName", "reason": "has 5,000 characters; at most 200"}]
    assert not ActualCost.objects.exists()
