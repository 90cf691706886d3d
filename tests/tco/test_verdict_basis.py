"""The verdict's basis, before or after tax, chosen by the scenario or its team (after tax by
default once a tax rate is entered), and said wherever the verdict is shown.

Worked by hand on scenario_body (no discounting, no resale): buying $426,805.60 over 36 months,
the per-token API $378,432.00 (see test_one_verdict.py). At a 30 % tax rate every cost is
deducted within the horizon (the undepreciated basis at its end), so after tax each costs 70 %:
the API $264,902.40, buying $298,763.92, a margin of $33,861.52.
"""
from __future__ import annotations

import html

import pytest

from tco.admin.result import scenario_result
from tco.models import Scenario
from teams.models import Role
from tests.tco.scenario_body import scenario_body
from tests.tco.test_one_verdict import CHEAP_API
from tests.tco.test_one_verdict import TOKENS
from tests.teams.conftest import client_of
from tests.teams.members import member

pytestmark = pytest.mark.django_db
TAXED = {"tax_rate": "0.3", "tax_depreciation": "macrs_5"}


@pytest.fixture
def analyst(db):
    return member("ana", role=Role.ANALYST)


def verdict_of(analyst, **overrides) -> dict:
    response = client_of(analyst).post("/api/v1/evaluate/", scenario_body(
        **TOKENS, **TAXED, rent_options=[], api_options=[CHEAP_API], **overrides), format="json")
    assert response.status_code == 200, response.json()
    return response.json()


def test_with_a_tax_rate_the_verdict_ranks_after_tax_and_the_table_lists_the_api(analyst, catalog):
    data = verdict_of(analyst)
    verdict = data["result"]["verdict"]
    assert verdict["basis"] == "after_tax"
    assert (verdict["cheapest"]["kind"], verdict["cheapest"]["total_usd"]) == ("api", 264_902.40)
    assert verdict["runner_up"]["total_usd"] == pytest.approx(298_763.92, abs=0.005)
    assert verdict["margin_usd"] == pytest.approx(33_861.52, abs=0.005)
    assert verdict["sentence"] == (
        "Pay per token: quoted API is the cheapest over 36 months: NPV of costs after tax $264.9k "
        "(cash $264.9k), $33.9k less than buying (NPV); buying never breaks even against it "
        "(discounted).")
    (api,) = data["after_tax"]["api"]
    assert (api["name"], api["total_after_tax_usd"]) == ("quoted API", 264_902.40)


@pytest.mark.parametrize(("team_basis", "scenario_basis", "basis", "api_total"), [
    ("", "pre_tax", "pre_tax", 378_432.00),
    ("pre_tax", "", "pre_tax", 378_432.00),
    ("pre_tax", "after_tax", "after_tax", 264_902.40),
])
def test_the_scenario_then_its_team_choose_the_basis(analyst, catalog, team_basis, scenario_basis,
                                                     basis, api_total):
    team = analyst.memberships.get().team
    team.verdict_basis = team_basis
    team.save()
    verdict = verdict_of(analyst, team=team.slug, verdict_basis=scenario_basis)["result"]["verdict"]
    assert (verdict["basis"], verdict["cheapest"]["total_usd"]) == (basis, api_total)


def test_the_page_says_the_basis_and_which_breakeven_the_headline_quotes(analyst, catalog):
    # Renting the p5 at $50/h costs $1,314,000: buying breaks even against it (marked on the
    # chart) but never against the API, which is what the headline quotes.
    body = scenario_body(**TOKENS, **TAXED, api_options=[CHEAP_API])
    created = client_of(analyst).post("/api/v1/scenarios/", body, format="json")
    assert created.status_code == 201, created.json()
    page = html.unescape(scenario_result(Scenario.objects.get(pk=created.json()["id"]))["result_html"])
    assert "Rank by NPV after tax" in page and "NPV of the costs after tax" in page
    assert ("Cumulative cost after tax, discounted at 0.0% a year: each line ends at its option's "
            "NPV after tax; buying's breakeven against each option is marked where it has one, "
            "and the headline quotes the one against paying quoted API per token: buying never "
            "breaks even.") in page
    assert "<td>Pay per token: quoted API</td>" in page
    assert "The verdict ranks the options after tax." in page
