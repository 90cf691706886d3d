"""One staleness rule everywhere: a price's age runs from the later of its as-of date and the
last day a refresh found it current (catalog/refresh/freshness.py), in the API, the scenario's
page, the approval page, the PDF and the workbook alike.

The 8x H100 demo is costed with seed prices as of 2025-01-01 and earlier, far beyond the 30-day
limit. Moved three years back and never confirmed, each is stale in all five places; the same
prices confirmed by a refresh yesterday are fresh in all five.
"""
from __future__ import annotations

import datetime as dt
import io
import subprocess

import pytest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape
from openpyxl import load_workbook

from catalog.models import PriceCheck
from catalog.models import PricePoint
from reports.builders.excel import build_workbook
from reports.builders.pdf import build_pdf
from reports.services import report_content_for
from tco.services.evaluation import scenario_evaluate
from tco.services.scenarios import scenario_clone
from teams.models import Role
from tests.teams.conftest import client_of
from tests.teams.members import member

STALE_WORDS = "older than the 30-day limit"


@pytest.fixture
def people(db):
    return member("ana", role=Role.ANALYST), member("april", role=Role.APPROVER)


@pytest.fixture
def draft(demo_scenarios, people):
    """A draft of the 8x H100 demo whose prices are all quoted as of three years ago."""
    scenario = scenario_clone(scenario=demo_scenarios["8x H100 training cluster"], owner=people[0])
    used = [price.price_point_id for price in scenario_evaluate(scenario=scenario).prices]
    three_years_ago = timezone.localdate() - dt.timedelta(days=3 * 365)
    PricePoint.objects.filter(pk__in=used).update(as_of=three_years_ago)
    return scenario


def confirm_yesterday(scenario) -> None:
    """A refresh found every price the scenario is costed with still current, yesterday."""
    yesterday = timezone.now() - dt.timedelta(days=1)
    PriceCheck.objects.bulk_create([PriceCheck(price_point_id=price.price_point_id, checked_at=yesterday)
                                    for price in scenario_evaluate(scenario=scenario).prices])


def what_each_place_says(scenario, people, client) -> dict[str, str]:
    analyst, approver = people
    api = client_of(analyst).post(f"/api/v1/scenarios/{scenario.pk}/evaluate/").json()
    client.force_login(approver)
    page = client.get(reverse("admin:tco_scenario_change", args=[scenario.pk])).content.decode()
    approval = client.get(reverse("admin:tco_scenario_approve", args=[scenario.pk])).content.decode()
    content = report_content_for(scenario=scenario)
    pdf = subprocess.run(["pdftotext", "-layout", "-", "-"], input=build_pdf(content),
                         capture_output=True, check=True).stdout.decode()
    prices = load_workbook(io.BytesIO(build_workbook(content)))["Prices"]
    return {"api": " ".join(w["message"] for w in api["warnings"] if w["code"] == "stale_price"),
            "page": page, "approval page": approval, "pdf": " ".join(pdf.split()),
            "workbook": " ".join(str(cell.value) for row in prices.iter_rows() for cell in row)}


def test_old_unconfirmed_prices_are_stale_in_all_five_places(draft, people, client):
    said = what_each_place_says(draft, people, client)

    assert {place: STALE_WORDS in text for place, text in said.items() if place != "workbook"} == {
        "api": True, "page": True, "approval page": True, "pdf": True}
    assert "1,095 (stale)" in said["workbook"]  # 3 x 365 days, from the as-of date


def test_prices_a_refresh_confirmed_yesterday_are_fresh_in_all_five_places(draft, people, client):
    confirm_yesterday(draft)

    said = what_each_place_says(draft, people, client)

    assert {place: STALE_WORDS in text for place, text in said.items()} == {
        "api": False, "page": False, "approval page": False, "pdf": False, "workbook": False}
    assert "(stale)" not in said["workbook"] and "(stale)" not in said["pdf"]
    yesterday = (timezone.localdate() - dt.timedelta(days=1)).isoformat()
    assert yesterday in said["workbook"]  # last known current


def test_the_stateless_evaluate_and_the_page_list_the_same_warnings(draft, people, client):
    analyst, approver = people
    body = client_of(analyst).get(f"/api/v1/scenarios/{draft.pk}/").json()
    unsaved = client_of(analyst).post("/api/v1/evaluate/", body, format="json").json()
    client.force_login(approver)
    page = client.get(reverse("admin:tco_scenario_change", args=[draft.pk])).content.decode()

    messages = [warning["message"] for warning in unsaved["warnings"]]
    assert any(STALE_WORDS in message for message in messages)
    for message in messages:
        assert escape(message) in page
