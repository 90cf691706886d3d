"""Approval pins the numbers: the approved answer stays whatever the catalog says later, and
today's prices are shown beside it, with a price alert when they move the answer enough.

The repro of issue 12: approve a clone of the 8x H100 demo (prices as of: empty), then add an
AWS p5.48xlarge on-demand price of $30 an hour dated two days ago. At the catalog's $55.04 an
hour, the instance held all 730 h a month (issue 23: on-demand is billed for every hour held
by default; these figures were for 80 % of the hours before) costs 730 x 55.04 = $40,179.20 a
month, $1,446,451.20 over 36 months, and buying breaks even in month 12; at $30 renting costs
$21,900 a month, $788,400 in all, and buying only breaks even in month 26: a move of 14 months,
beyond the 3 the alert threshold allows.
"""
from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

import pytest
from django.test import TestCase
from django.urls import reverse
from django.utils import timezone

from catalog.models import CloudOffering
from catalog.models import PricePoint
from catalog.models import Source
from reports.services import report_content_for
from tco.models import AlertKind
from tco.models import PriceAlert
from tco.models import RunKind
from tco.models import ScenarioSnapshot
from tco.models import SnapshotReason
from tco.services.evaluation import option_figures
from tco.services.evaluation import scenario_evaluate
from tco.services.plans import scenario_plan_inputs
from tco.services.runs import run_inputs
from tco.services.runs import sweep_run_start
from tco.services.scenarios import ApprovalRefused
from tco.services.scenarios import scenario_approve
from tco.services.scenarios import scenario_clone
from teams.models import Role
from tests.teams.conftest import client_of
from tests.teams.members import member

# The demo rents p5 on demand in its cheapest region (the catalog has one).
AWS = "AWS p5.48xlarge (8x H100 SXM5 80 GB), cheapest region, on-demand"
AWS_PRICE = "AWS p5.48xlarge (8x H100 SXM5 80 GB), on-demand"
LAMBDA = "Lambda gpu_8x_h100_sxm5 (8x H100 SXM5 80 GB), global, on-demand"
DGX = "NVIDIA DGX H100 (8x H100 SXM5 80 GB)"


@pytest.fixture
def analyst(db):
    return member("ana", role=Role.ANALYST)


@pytest.fixture
def approver(db):
    return member("april", role=Role.APPROVER)


@pytest.fixture
def approved(demo_scenarios, analyst, approver):
    """The analyst's clone of the 8x H100 demo, approved by the approver."""
    clone = scenario_clone(scenario=demo_scenarios["8x H100 training cluster"], owner=analyst)
    return scenario_approve(scenario=clone, approved_by=approver)


def p5_on_demand() -> CloudOffering:
    return CloudOffering.objects.get(provider="aws", instance_type="p5.48xlarge",
                                     pricing_model="on_demand", region="unspecified")


def add_p5_price(amount: str) -> PricePoint:
    """A newer public price for AWS p5.48xlarge on demand, dated two days ago."""
    return PricePoint.objects.create(
        offering=p5_on_demand(), amount=Decimal(amount), as_of=timezone.localdate() - dt.timedelta(days=2),
        source=Source.objects.get(key="seed-004"), retrieved_at=timezone.now())


def figures(evaluation, name=AWS) -> dict:
    return next(row for row in option_figures(evaluation.result) if row["name"] == name)


def test_approving_pins_every_input_and_price_it_was_evaluated_with(approved):
    snapshot = ScenarioSnapshot.objects.get(scenario=approved, reason=SnapshotReason.APPROVED)
    paths = {row["path"] for row in snapshot.pinned["assumptions"]}

    assert {"buy.system_price_usd", "rent.0.price_usd_per_instance_hour",
            "buy.system_power_max_kw", "facility.pue"} <= paths
    assert [price["target"] for price in snapshot.prices] == [
        DGX, AWS_PRICE, LAMBDA]


def test_a_newer_price_leaves_the_approved_answer_and_shows_todays_beside_it(approved):
    before = scenario_evaluate(scenario=approved)
    add_p5_price("30")

    after = scenario_evaluate(scenario=approved)

    assert option_figures(after.result) == option_figures(before.result)
    assert after.prices == before.prices
    assert figures(after)["breakeven_month"] == 12
    assert figures(after.today)["breakeven_month"] == 26
    assert after.differs_today and not before.differs_today
    assert float(after.result.rent[0].total_usd) == pytest.approx(36 * 730 * 55.04, rel=1e-12)
    assert float(after.today.result.rent[0].total_usd) == pytest.approx(36 * 730 * 30, rel=1e-12)


def test_the_api_gives_the_approved_answer_todays_figures_and_an_alert(approved, analyst):
    api = client_of(analyst)
    url = f"/api/v1/scenarios/{approved.pk}/evaluate/"
    signed = api.post(url).json()
    new_point = add_p5_price("30")

    body = api.post(url).json()
    again = api.post(url).json()

    assert body["result"]["summary"] == signed["result"]["summary"]
    pinned = body["pinned"]
    aws_today = next(row for row in pinned["at_todays_prices"]["options"] if row["name"] == AWS)
    aws_signed = next(row for row in pinned["options"] if row["name"] == AWS)
    assert pinned["at_todays_prices"]["differs"] is True
    assert (aws_signed["breakeven_month"], aws_today["breakeven_month"]) == (12, 26)
    assert [alert["kind"] for alert in pinned["price_alerts"]] == [AlertKind.BREAKEVEN_MOVED]
    alert = PriceAlert.objects.get(scenario=approved)
    assert (alert.rent_option, alert.old_breakeven_month, alert.new_breakeven_month) == (AWS, 12, 26)
    assert alert.new_price_point == new_point
    assert alert.new_price_usd_per_instance_hour == Decimal("30")
    # Evaluating again raises no second alert for the same move.
    assert len(again["pinned"]["price_alerts"]) == 1


def test_a_price_added_later_with_an_earlier_date_does_not_move_it_either(approved):
    before = scenario_evaluate(scenario=approved)
    PricePoint.objects.create(offering=p5_on_demand(), amount=Decimal("30"),
                              as_of=dt.date(2020, 1, 1), source=Source.objects.get(key="seed-004"),
                              retrieved_at=timezone.now())

    assert option_figures(scenario_evaluate(scenario=approved).result) == option_figures(before.result)


def test_an_approver_may_not_approve_a_version_they_edited(demo_scenarios, approver):
    clone = scenario_clone(scenario=demo_scenarios["8x H100 training cluster"], owner=approver)

    with pytest.raises(ApprovalRefused, match="another approver"):
        scenario_approve(scenario=clone, approved_by=approver)
    clone.refresh_from_db()
    assert clone.status == "draft"


def test_only_an_approver_of_the_team_may_approve_whoever_calls_the_service(demo_scenarios, analyst):
    # The approve service checks the role itself: the API and the admin check it before, a
    # command or a task calling the service directly would not.
    other = member("olga", role=Role.ANALYST)
    clone = scenario_clone(scenario=demo_scenarios["8x H100 training cluster"], owner=analyst)

    with pytest.raises(ApprovalRefused, match="you are not an approver of its team"):
        scenario_approve(scenario=clone, approved_by=other)
    clone.refresh_from_db()
    assert clone.status == "draft"


def test_a_one_person_team_may_allow_self_approval(demo_scenarios, approver, settings):
    settings.SCENARIO_SELF_APPROVAL = True
    clone = scenario_clone(scenario=demo_scenarios["8x H100 training cluster"], owner=approver)

    assert scenario_approve(scenario=clone, approved_by=approver).is_approved


def test_the_api_refuses_self_approval_with_a_reason(demo_scenarios, approver):
    clone = scenario_clone(scenario=demo_scenarios["8x H100 training cluster"], owner=approver)

    response = client_of(approver).post(f"/api/v1/scenarios/{clone.pk}/approve/")

    assert response.status_code == 403
    assert "you created or edited version 1" in response.json()["detail"]


def test_the_admin_page_shows_the_approved_answer_todays_and_the_alert(approved, analyst, client):
    add_p5_price("30")
    client.force_login(analyst)

    page = client.get(reverse("admin:tco_scenario_change", args=[approved.pk])).content.decode()

    assert "evaluated with the prices and catalog figures pinned on" in page
    assert "<th>At today's prices and rates</th>" in page
    assert "breakeven month 12" in page and "breakeven month 26" in page
    assert "Price alert: 8x H100 training cluster (copy): against " + AWS in page
    # Money as people read it: $736,176.04 of NPV saving at $55.04 an hour, $150,449.5x at $30
    # (1,287,475.42 / 55.04 x 30 - 551,299.38 by hand, to the cent the rounding allows).
    assert re.search(r"NPV saving of buying \$736,176\.04 -&gt; \$150,449\.5\d; the price of [^;]+ moved "
                     r"\$55\.04 -&gt; \$30\.00 per instance-hour", page)


def test_the_confirmation_page_names_prices_as_people_do_and_notes_old_ones(
        demo_scenarios, analyst, approver, client):
    clone = scenario_clone(scenario=demo_scenarios["8x H100 training cluster"], owner=analyst)
    client.force_login(approver)

    page = client.get(reverse("admin:tco_scenario_approve", args=[clone.pk])).content.decode()

    # The system by its label with its price and unit, the source by its title, not keys;
    # the seed's 2025-01-01 price is older than the 30-day limit, and the page says so.
    assert f"<td>{DGX}</td>" in page and "dgx-h100" not in page
    assert "$320,000.00 per system" in page and "$55.04 per instance-hour" in page
    assert '<td class="date">2025-01-01</td>' in page  # kept on one line
    title = Source.objects.get(key="seed-004").title
    assert f"{title} (seed-004)" in page
    assert f"The price of {DGX} is " in page and "older than the 30-day limit" in page
    assert "give it as the scenario&#x27;s system price" in page and "system_price_usd" not in page


def test_the_reports_carry_the_approved_answer_and_todays_beside_it(approved):
    add_p5_price("30")

    notes = dict(report_content_for(scenario=approved).signing_notes())

    assert notes["Approved answer"].startswith("evaluated with the prices and catalog figures pinned")
    assert notes[f"At today's prices, against {AWS}"] == (
        "buy saves $150.4k (NPV), breakeven month 26 (approved: buy saves $736.2k (NPV), "
        "breakeven month 12)")


def test_comparing_versions_shows_the_approved_one_at_its_pinned_prices(approved, analyst, client):
    signed = figures(scenario_evaluate(scenario=approved))
    edited = client_of(analyst).patch(
        f"/api/v1/scenarios/{approved.pk}/", {"name": "8x H100, version 2"}, format="json",
        headers={"If-Match": f'"{approved.revision}"'}).json()
    add_p5_price("30")
    client.force_login(analyst)

    page = client.get(reverse("admin:tco_scenario_compare", args=[edited["id"]]))

    diff = page.context["diff"]
    assert (diff.old.record.status, diff.new.record.status) == ("approved", "draft")
    move = next(move for move in diff.moves if move.rent_option == AWS)
    # The approved version keeps its signed answer ($55.04 an hour, breakeven month 12); the
    # new draft is at today's $30 (month 26): the edit is a name, the move is the price.
    assert move.old == {key: value for key, value in signed.items() if key != "name"}
    assert (move.old["breakeven_month"], move.new["breakeven_month"]) == (12, 26)
    snapshot = ScenarioSnapshot.objects.get(scenario=approved, reason=SnapshotReason.APPROVED)
    pinned_on = f"{timezone.localtime(snapshot.created_at):%Y-%m-%d %H:%M %Z}"
    assert (f"The old point is evaluated at the prices pinned at its approval on {pinned_on}, as "
            "signed; the new point at\n  today&#x27;s catalog prices. The prices differ, so a move can "
            "come from the prices as well as from the edits.") in page.content.decode()
    assert "same catalog prices" not in page.content.decode()


def test_runs_and_plans_over_an_approved_scenario_start_from_its_signed_prices(approved):
    add_p5_price("30")
    aws = next(index for index, row in enumerate(scenario_evaluate(scenario=approved).result.rent)
               if row.name == AWS)

    with TestCase.captureOnCommitCallbacks():  # nothing queued: the run's inputs are what count
        run = sweep_run_start(scenario=approved, kind=RunKind.SWEEP,
                              spec={"axes": [{"path": "workload.utilisation", "values": [0.5, 0.8]}]})
    plan = scenario_plan_inputs(approved, {"demand": {"start": 8, "months": 36},
                                           "owned": [{"name": "DGX H100"}]})

    assert run_inputs(run).rent[aws].price_usd_per_instance_hour == 55.04  # signed, not today's $30
    plan_rent = next(choice.option for choice in plan.rent if choice.name == AWS)
    assert plan_rent.price_usd_per_instance_hour == 55.04
