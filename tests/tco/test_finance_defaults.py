"""No silent zeros: a new scenario starts from its team's finance defaults, each with its reason,
and a result lists as warnings the cost lines still at zero that owning usually has.

The scenario is the 8x H100 demo's question as a new user types it: one DGX H100, 8 GPUs at
80 %, colo-air, against AWS p5.48xlarge on demand over 36 months, nothing else given.
"""
from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse

from catalog.models import CloudOffering
from teams.finance_defaults import FINANCE_DEFAULTS
from teams.models import FinanceDefault
from teams.models import Role
from tests.teams.conftest import client_of
from tests.teams.members import member
from tests.teams.members import team

ZERO_LINES = {"discount rate", "Support", "Staff", "Spares", "Network", "Storage", "Racks",
              "Residual value", "Electricity escalation"}


@pytest.fixture
def analyst(catalog):
    return member("ana", role=Role.ANALYST)


def minimal() -> dict:
    p5 = CloudOffering.objects.get(provider="aws", instance_type="p5.48xlarge",
                                   pricing_model="on_demand", region="unspecified")
    return {"name": "8x H100", "accelerator": "h100-sxm-80gb", "accelerators": 8,
            "utilisation": "0.8", "system": "dgx-h100", "facility": "colo-air",
            "horizon_months": 36, "rent_options": [{"offering": p5.pk}]}


def zero_lines(body: dict) -> set[str]:
    """The cost lines the zero_cost warnings name (their first words)."""
    return {next(line for line in ZERO_LINES if line in w["message"].split(":")[0])
            for w in body["warnings"] if w["code"] == "zero_cost"}


def test_a_result_lists_the_costs_left_at_zero(analyst):
    zeros = {name: "0" for name in FINANCE_DEFAULTS if name != "depreciation_months"}
    body = client_of(analyst).post("/api/v1/evaluate/", {**minimal(), **zeros}, format="json").json()
    saving = body["result"]["summary"]

    assert zero_lines(body) == ZERO_LINES
    # Undiscounted: the NPV saving is the plain saving, as the warning says.
    (figures,) = saving.values()
    assert figures["npv_saving_usd"] == pytest.approx(figures["saving_usd"], rel=1e-12)


def test_a_new_scenario_starts_from_the_finance_defaults(analyst):
    api = client_of(analyst)
    created = api.post("/api/v1/scenarios/", minimal(), format="json").json()
    body = api.post(f"/api/v1/scenarios/{created['id']}/evaluate/").json()

    assert {name: Decimal(str(created[name])) for name in FINANCE_DEFAULTS} == {
        name: figure.value for name, figure in FINANCE_DEFAULTS.items()}
    assert zero_lines(body) == {"Storage", "Racks"}
    (figures,) = body["result"]["summary"].values()
    assert figures["npv_saving_usd"] < figures["saving_usd"]  # discounted at 8 %


def test_evaluating_before_saving_gives_the_figures_saving_gives(analyst):
    FinanceDefault.objects.create(team=team(), field="discount_rate_per_year",
                                  value=Decimal("0.11"), reason="our treasury's hurdle rate")
    api = client_of(analyst)

    unsaved = api.post("/api/v1/evaluate/", minimal(), format="json").json()
    created = api.post("/api/v1/scenarios/", minimal(), format="json").json()
    saved = api.post(f"/api/v1/scenarios/{created['id']}/evaluate/").json()

    assert unsaved["result"]["summary"] == saved["result"]["summary"]
    assert zero_lines(unsaved) == {"Storage", "Racks"}
    rate = next(row for row in unsaved["assumptions"] if row["path"] == "finance.discount_rate_per_year")
    assert rate["value"] == 0.11


def test_given_figures_win_over_the_defaults_and_a_team_has_its_own(analyst):
    FinanceDefault.objects.create(team=team(), field="discount_rate_per_year",
                                  value=Decimal("0.11"), reason="our treasury's hurdle rate")
    api = client_of(analyst)

    own = api.post("/api/v1/scenarios/", {**minimal(), "spares_share": "0"}, format="json").json()

    assert (Decimal(own["discount_rate_per_year"]), Decimal(own["spares_share"])) == (
        Decimal("0.11"), Decimal("0"))


def test_every_default_says_why(db):
    assert all(len(figure.reason) > 20 for figure in FINANCE_DEFAULTS.values())


def test_the_admin_add_form_starts_from_the_team_defaults(analyst, client):
    client.force_login(analyst)

    form = client.get(reverse("admin:tco_scenario_add")).context["adminform"].form

    assert form.initial["support_share_per_year"] == Decimal("0.08")
    assert form.initial["depreciation_months"] == 60


def test_the_admin_page_shows_the_zero_cost_warnings(analyst, client):
    created = client_of(analyst).post("/api/v1/scenarios/", minimal(), format="json").json()
    client.force_login(analyst)

    page = client.get(reverse("admin:tco_scenario_change", args=[created["id"]])).content.decode()

    assert "Storage is 0: no storage is bought with the systems." in page


@pytest.mark.parametrize(("field", "line"), [
    ("system_price_usd", "The system price is 0: the systems themselves are not costed."),
    ("electricity_usd_per_kwh", "The electricity price is 0: power is not costed."),
])
def test_a_free_system_or_free_power_is_accepted_and_warned_about(analyst, field, line):
    body = client_of(analyst).post("/api/v1/evaluate/", {**minimal(), field: "0"}, format="json")

    assert body.status_code == 200, body.json()
    assert line in {w["message"].split(" Usually")[0] for w in body.json()["warnings"]}
