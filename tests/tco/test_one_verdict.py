"""Issue 23 through the API, the page, the PDF and the approval page: one verdict over every
option, rent optional, one warnings list, and signing that acknowledges each warning."""
from __future__ import annotations

import html
import re
import subprocess

import pytest
from django.urls import reverse

from catalog.models import TokenApiPrice
from reports.services import report_build
from reports.services import report_content_for
from tco.models import ApiOption
from tco.models import ScenarioSnapshot
from tco.models import ScenarioStatus
from tco.models import SnapshotReason
from teams.models import Role
from tests.tco.scenario_body import scenario_body
from tests.teams.conftest import client_of
from tests.teams.members import member

pytestmark = pytest.mark.django_db

# scenario_body: buying $400,000 up front and 10.2 kW x 730 h x $0.10 = $744.60 a month, no
# discounting: $426,805.60 over 36 months. Without failures every busy hour is useful: 8 x 730 h
# x 1,000 tokens/s x 3,600 s = 21,024 million tokens a month, at $0.50 per million output token
# $10,512 a month, $378,432 over 36 months.
BUY_USD = 400_000 + 36 * 744.60
API_USD = 36 * 21_024 * 0.50
TOKENS = {"tokens_per_s_per_accelerator": "1000", "failures_per_accelerator_hour": "0",
          "token_input_share": "0", "token_cached_input_share": "0", "token_output_share": "1"}
CHEAP_API = {"name": "quoted API", "usd_per_million_input": "0.5",
             "usd_per_million_cached_input": "0.5", "usd_per_million_output": "0.5"}


@pytest.fixture
def analyst(db):
    return member("ana", role=Role.ANALYST)


def test_buying_against_a_per_token_api_alone_evaluates(analyst, catalog):
    response = client_of(analyst).post("/api/v1/evaluate/", scenario_body(
        **TOKENS, rent_options=[], api_options=[CHEAP_API]), format="json")
    assert response.status_code == 200, response.json()
    verdict = response.json()["result"]["verdict"]
    assert (verdict["cheapest"]["kind"], verdict["cheapest"]["name"]) == ("api", "quoted API")
    assert verdict["cheapest"]["total_usd"] == pytest.approx(API_USD)  # 378,432.00
    assert verdict["runner_up"]["kind"] == "buy"
    assert verdict["runner_up"]["total_usd"] == pytest.approx(BUY_USD)  # 426,805.60
    assert verdict["margin_usd"] == pytest.approx(BUY_USD - API_USD)  # 48,373.60
    assert verdict["breakeven_month"] is None
    assert verdict["sentence"] == (
        "Pay per token: quoted API is the cheapest over 36 months: NPV of costs before tax $378.4k (cash "
        "$378.4k), $48.4k less than buying (NPV); buying never breaks even against it (discounted).")


def test_buying_alone_evaluates(analyst, catalog):
    response = client_of(analyst).post("/api/v1/evaluate/", scenario_body(rent_options=[]),
                                       format="json")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["result"]["verdict"]["sentence"] == (
        "Buy is the only option given: over 36 months, NPV of costs before tax $426.8k (cash $426.8k).")
    assert body["result"]["recommendation"] == body["result"]["verdict"]["sentence"]
    assert body["result"]["rent"] == [] and body["billing"] == []


def test_used_hours_billing_is_an_input_stated_with_its_effect(analyst, catalog):
    # Half busy, the p5 at $50 an hour: held, 730 h x $50 = $36,500 a month; billed for use,
    # half of it. The note says what billing every held hour would cost more: 36 x $18,250.
    option = {**scenario_body()["rent_options"][0], "billing_basis": "used"}
    body = client_of(analyst).post("/api/v1/evaluate/", scenario_body(
        utilisation="0.5", rent_options=[option]), format="json").json()
    assert body["result"]["rent"][0]["total_usd"] == pytest.approx(36 * 18_250)
    billing = body["billing"][0]
    assert (billing["basis"], billing["why"]) == ("hours used", "chosen for this option")
    (note,) = [w for w in body["warnings"] if w["code"] == "billed_for_use"]
    assert note["severity"] == "info"
    assert "Billed for every hour held it would cost $657.0k more (NPV)" in note["message"]
    held = client_of(analyst).post("/api/v1/evaluate/", scenario_body(utilisation="0.5"),
                                   format="json").json()
    assert held["result"]["rent"][0]["total_usd"] == pytest.approx(36 * 36_500)
    assert held["billing"][0]["basis"] == "every hour held"


def test_reserved_capacity_cannot_be_billed_for_use(analyst, demo_scenarios):
    # The demo adds the p5 1-year reserved offering (its price is the demo's own assumption).
    from tests.tco.scenario_body import p5

    reserved = {"offering": p5("reserved_1y").pk, "price_usd_per_instance_hour": "30",
                "billing_basis": "used"}
    response = client_of(analyst).post("/api/v1/evaluate/", scenario_body(rent_options=[reserved]),
                                       format="json")
    assert response.status_code == 400
    assert "every hour of its term" in str(response.json())


def _page_warnings(page: str) -> list[tuple[str, str]]:
    """(code, words) of each warning on the scenario page, in order."""
    return [(code, html.unescape(words)) for code, words in re.findall(
        r'<li class="severity-\w+" data-code="(\w+)"><strong>\w+</strong>: (.*?)</li>', page)]


def test_the_same_warnings_from_the_api_the_page_and_the_pdf(demo_scenarios, client):
    scenario = demo_scenarios["Inference fleet: 32x L40S vs cloud"]
    ApiOption.objects.create(scenario=scenario,
                             price=TokenApiPrice.objects.get(model_name="small model"))
    user = member("viv", role=Role.ANALYST)
    api = client_of(user)
    stored = api.post(f"/api/v1/scenarios/{scenario.pk}/evaluate/").json()["warnings"]
    body = api.get(f"/api/v1/scenarios/{scenario.pk}/").json()
    response = api.post("/api/v1/evaluate/", body, format="json")
    assert response.status_code == 200, response.json()
    stateless = response.json()["warnings"]
    assert stateless == stored
    expected = [(w["code"], w["message"]) for w in stored]
    assert "example_price" in [code for code, _ in expected]  # shipped example prices warn

    client.force_login(user)
    page = client.get(reverse("admin:tco_scenario_change", args=[scenario.pk])).content.decode()
    assert _page_warnings(page) == expected

    pdf = subprocess.run(["pdftotext", "-", "-"], capture_output=True, check=True,
                         input=report_build(content=report_content_for(scenario=scenario),
                                            format="pdf")).stdout.decode()
    words = " ".join(pdf.split())
    for _, message in expected:
        assert " ".join(message.split()) in words


def test_approving_asks_to_acknowledge_each_warning_and_keeps_the_comment(demo_scenarios, client):
    scenario = demo_scenarios["8x H100 training cluster"]
    approver = member("april", role=Role.APPROVER)
    client.force_login(approver)
    url = reverse("admin:tco_scenario_approve", args=[scenario.pk])
    page = client.get(url).content.decode()
    boxes = re.findall(rf'name="ack-{scenario.pk}" value="(\d+)" required', page)
    assert len(boxes) >= 1  # the demo leaves costs at zero, and its prices are old

    client.post(url, {"confirm": "yes", f"ack-{scenario.pk}": boxes[:-1]})
    scenario.refresh_from_db()
    assert scenario.status == ScenarioStatus.DRAFT  # one warning not acknowledged

    client.post(url, {"confirm": "yes", f"ack-{scenario.pk}": boxes,
                      f"comment-{scenario.pk}": "Checked with finance on the 24th."})
    scenario.refresh_from_db()
    assert scenario.status == ScenarioStatus.APPROVED
    assert scenario.history.first().history_change_reason == "Approved: Checked with finance on the 24th."
    pin = ScenarioSnapshot.objects.get(scenario=scenario, reason=SnapshotReason.APPROVED).pinned
    assert pin["approval"]["comment"] == "Checked with finance on the 24th."
    assert len(pin["approval"]["acknowledged_warnings"]) == len(boxes)


def test_an_authorless_scenario_is_not_approved_by_its_last_editor(demo_scenarios, settings):
    settings.SCENARIO_SELF_APPROVAL = False
    scenario = demo_scenarios["8x H100 training cluster"]
    assert scenario.owner_id is None
    editor = member("ed", role=Role.APPROVER)
    api = client_of(editor)
    url = f"/api/v1/scenarios/{scenario.pk}/"
    revision = api.get(url).json()["revision"]
    assert api.patch(url, {"revision": revision, "utilisation": "0.75"}, format="json").status_code == 200

    refused = api.post(url + "approve/")
    assert refused.status_code in (400, 403, 409), refused.json()
    assert "another approver" in str(refused.json())
    settings.SCENARIO_SELF_APPROVAL = True
    assert api.post(url + "approve/").status_code == 200


def test_the_api_approval_takes_a_comment_and_the_acknowledged_warnings(demo_scenarios):
    scenario = demo_scenarios["8x H100 training cluster"]
    api = client_of(member("april", role=Role.APPROVER))
    url = f"/api/v1/scenarios/{scenario.pk}/"
    warnings = [w["message"] for w in api.post(url + "evaluate/").json()["warnings"]]
    assert warnings

    refused = api.post(url + "approve/", {"acknowledged_warnings": warnings[1:]}, format="json")
    assert refused.status_code == 403 and "acknowledge each warning" in str(refused.json())
    approved = api.post(url + "approve/", {"acknowledged_warnings": warnings, "comment": "Fine."},
                        format="json")
    assert approved.status_code == 200, approved.json()
    pin = ScenarioSnapshot.objects.get(scenario=scenario, reason=SnapshotReason.APPROVED).pinned
    assert pin["approval"]["comment"] == "Fine."
