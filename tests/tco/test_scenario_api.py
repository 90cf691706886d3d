"""Scenario CRUD, evaluation (stored and stateless) and their refusals, through the REST API."""
from __future__ import annotations

import math

import pytest

from tco.models import RentOption
from tco.models import Scenario
from tests.tco.scenario_body import p5
from tests.tco.scenario_body import scenario_body
from tests.teams.members import member

pytestmark = pytest.mark.django_db


@pytest.fixture
def user(db):
    return member("analyst", of="planning")


@pytest.fixture
def api(client, user):
    client.force_login(user)
    return client


def test_it_evaluates_a_scenario_without_saving_it(api, catalog):
    response = api.post("/api/v1/evaluate/", scenario_body(), content_type="application/json")

    assert response.status_code == 200, response.json()
    result = response.json()["result"]
    # Buy: $400,000 up front, then energy 10.2 kW x 730 h x $0.10 = $744.60 a month.
    # Rent: one p5 instance x 730 h x $50 = $36,500 a month.
    # Breakeven: first m with 400,000 + 744.6 m <= 36,500 m -> m >= 11.19 -> month 12.
    rent = result["rent"][0]
    assert rent["breakeven_month"] == 12
    assert math.isclose(result["buy"]["total_usd"], 400_000 + 36 * 744.60, rel_tol=1e-12)
    assert math.isclose(rent["total_usd"], 36 * 36_500, rel_tol=1e-12)
    assert Scenario.objects.count() == 0


def test_it_records_where_each_input_came_from(api, catalog):
    response = api.post("/api/v1/evaluate/", scenario_body(), content_type="application/json")

    assumptions = {a["path"]: a for a in response.json()["assumptions"]}
    assert assumptions["buy.system_price_usd"]["origin"] == "scenario"
    power = assumptions["buy.system_power_max_kw"]
    assert (power["origin"], power["value"]) == ("catalog", 10.2)
    assert "seed-002" in power["source"]


def test_it_falls_back_to_the_catalog_price_in_force(api, catalog):
    data = scenario_body(rent_options=[{"offering": p5().pk}], prices_as_of="2026-07-01")

    response = api.post("/api/v1/evaluate/", data, content_type="application/json")

    assert response.status_code == 200, response.json()
    (price,) = response.json()["prices"]
    # seed-003 (revised 2026-06-18) quotes AWS H100 at $6.88 per GPU-hour: 8 x 6.88 = 55.04.
    assert price["amount"] == "55.0400"
    assert "seed-003" in price["source"]


def test_crud_creates_updates_and_evaluates_a_stored_scenario(api, user, catalog):
    created = api.post("/api/v1/scenarios/", scenario_body(), content_type="application/json")
    assert created.status_code == 201, created.json()
    pk = created.json()["id"]
    assert Scenario.objects.get(pk=pk).owner == user
    assert RentOption.objects.filter(scenario_id=pk).count() == 1

    patched = api.patch(f"/api/v1/scenarios/{pk}/", {"utilisation": "0.5"},
                        content_type="application/json", headers={"If-Match": created["ETag"]})
    assert patched.status_code == 200, patched.json()
    assert str(Scenario.objects.get(pk=pk).utilisation) == "0.5000"
    assert RentOption.objects.filter(scenario_id=pk).count() == 1

    evaluated = api.post(f"/api/v1/scenarios/{pk}/evaluate/")
    assert evaluated.status_code == 200
    assert evaluated.json()["result"]["recommendation"]


@pytest.mark.parametrize(("field", "value"), [
    ("utilisation", "1.5"), ("utilisation", "-0.1"), ("horizon_months", 0),
    ("horizon_months", 241), ("system_price_usd", "-5"), ("electricity_usd_per_kwh", "-0.01"),
])
def test_it_refuses_out_of_range_inputs_naming_the_field(api, catalog, field, value):
    response = api.post("/api/v1/scenarios/", scenario_body(**{field: value}),
                        content_type="application/json")

    assert response.status_code == 400
    assert field in response.json()
    assert Scenario.objects.count() == 0


def test_it_refuses_a_negative_rent_price_in_the_nested_option(api, catalog):
    data = scenario_body(rent_options=[{"offering": p5().pk, "price_usd_per_instance_hour": "-1"}])

    response = api.post("/api/v1/scenarios/", data, content_type="application/json")

    assert response.status_code == 400
    assert "price_usd_per_instance_hour" in response.json()["rent_options"]["0"]
    assert RentOption.objects.count() == 0


def test_it_refuses_a_rent_option_without_a_price_at_the_scenario_date(api, catalog):
    data = scenario_body(rent_options=[{"offering": p5().pk}], prices_as_of="2020-01-01")

    response = api.post("/api/v1/scenarios/", data, content_type="application/json")

    assert response.status_code == 400
    error = response.json()["rent_options"]["0"]["price_usd_per_instance_hour"][0]
    assert "2020-01-01" in error
    assert Scenario.objects.count() == 0


def test_it_refuses_a_system_that_cannot_be_racked(api, catalog):
    # A DGX H100 draws 10.2 kW; a 5 kW rack cannot hold even one.
    response = api.post("/api/v1/scenarios/", scenario_body(rack_power_limit_kw="5"),
                        content_type="application/json")

    assert response.status_code == 400
    assert "10.2 kW" in response.json()["system"][0]


def test_another_teams_scenario_is_not_found(api, catalog, demo_scenarios):
    demo = demo_scenarios["8x H100 training cluster"]

    assert api.get(f"/api/v1/scenarios/{demo.pk}/").status_code == 404
    assert api.get("/api/v1/scenarios/").json()["count"] == 0


def test_anonymous_users_cannot_evaluate(client, catalog):
    response = client.post("/api/v1/evaluate/", scenario_body(), content_type="application/json")

    assert response.status_code == 401


def test_an_evaluation_names_the_offering_as_people_say_it_and_months_are_whole(api, catalog):
    result = api.post("/api/v1/evaluate/", scenario_body(), content_type="application/json").json()["result"]

    rent = result["rent"][0]
    assert rent["name"] == "AWS p5.48xlarge (8x H100 SXM5 80 GB), on-demand"
    assert type(rent["breakeven_month"]) is int and type(result["horizon_months"]) is int
    assert type(result["footprint"]["systems"]) is int
    assert "_" not in result["recommendation"]


def test_the_vocabulary_labels_every_figure_of_an_evaluation(api, catalog):
    vocabulary = api.get("/api/v1/vocabulary/").json()
    result = api.post("/api/v1/evaluate/", scenario_body(), content_type="application/json").json()["result"]

    assert vocabulary["inputs"]["facility.electricity_usd_per_kwh"] == {
        "label": "Electricity price", "unit": "per kWh", "display_format": "usd_price", "digits": 2}
    assert vocabulary["results"]["rent.breakeven_month"]["display_format"] == "month"
    assert {f"rent.{key}" for key in result["rent"][0] if key != "cash_flows"} <= set(
        vocabulary["results"])
    assert set(result["buy"]["cash_flows"]["lines_usd"]) <= set(vocabulary["cash_flow_lines"])
