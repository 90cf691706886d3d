"""Goodput, resale curves, carbon and per-token API options through the REST API."""
from __future__ import annotations

import io
import json
import math
import re

import pytest
from django.core.management import CommandError
from django.core.management import call_command

from catalog.models import TokenApiPrice
from tco.models import ApiOption
from tco.models import Scenario
from tco.services.engine_inputs import ScenarioInputError
from tco.services.evaluation import scenario_evaluate
from tests.tco.scenario_body import scenario_body

pytestmark = pytest.mark.django_db

LLAMA3_RATE = 419 / (54 * 24 * 16_384)


@pytest.fixture
def api(client):
    from tests.teams.members import member

    client.force_login(member("analyst", of="planning"))
    return client


def evaluate(api, **overrides):
    response = api.post("/api/v1/evaluate/", scenario_body(**overrides), content_type="application/json")
    assert response.status_code == 200, response.json()
    return response.json()


def test_empty_goodput_fields_take_the_stated_defaults_shown_as_assumptions(api, catalog):
    data = evaluate(api)
    assumptions = {a["path"]: a for a in data["assumptions"]}
    failures = assumptions["goodput.failures_per_accelerator_hour"]
    assert failures["origin"] == "default" and "Llama 3" in failures["source"]
    assert math.isclose(failures["value"], LLAMA3_RATE)
    # 8 accelerators: MTBF 1 / (8 x rate) h; Young/Daly interval sqrt(2 x 0.05 h x MTBF).
    mtbf = 1 / (8 * LLAMA3_RATE)
    goodput = data["result"]["buy"]["goodput"]
    assert math.isclose(goodput["checkpoint_interval_h"], math.sqrt(2 * 0.05 * mtbf))
    tau = math.sqrt(2 * 0.05 * mtbf)
    assert math.isclose(goodput["share"], tau / (tau + 0.05) * (1 - ((tau + 0.05) / 2 + 0.25) / mtbf))


def test_zero_failures_give_goodput_equal_to_utilisation(api, catalog):
    data = evaluate(api, utilisation="0.7", failures_per_accelerator_hour="0")
    assert data["result"]["buy"]["goodput"]["share"] == 0.7
    assert data["result"]["rent"][0]["goodput"]["share"] == 0.7


def test_carbon_per_year_is_energy_times_the_facility_intensity(api, catalog):
    data = evaluate(api, grid_kg_co2e_per_kwh="0.2", carbon_price_usd_per_tonne="100")
    result = data["result"]
    # 10.2 kW x 8,760 h = 89.352 MWh a year x 0.2 t/MWh.
    assert math.isclose(result["buy"]["carbon"]["tonnes_per_year"], 89.352 * 0.2)
    assert math.isclose(result["buy"]["cash_flows"]["lines_usd"]["carbon"][1], 10.2 * 730 * 0.2 / 1000 * 100)


def test_a_flat_resale_curve_equals_the_single_share_to_the_cent(api, catalog):
    single = evaluate(api, residual_value_share="0.3")["result"]["buy"]
    curve = evaluate(api, residual_curve=[[0, 0.3], [60, 0.3]])["result"]["buy"]
    assert round(curve["total_usd"], 2) == round(single["total_usd"], 2)


def _saved(api, **overrides) -> Scenario:
    response = api.post("/api/v1/scenarios/", scenario_body(**overrides), content_type="application/json")
    assert response.status_code == 201, response.json()
    return Scenario.objects.get(pk=response.json()["id"])


def test_an_api_option_from_a_shipped_example_row(api, catalog):
    row = TokenApiPrice.objects.get(model_name="large model")
    assert row.is_example
    scenario = _saved(api, tokens_per_s_per_accelerator="1000", token_input_share="0.6",
                      token_cached_input_share="0.2", token_output_share="0.2",
                      failures_per_accelerator_hour="0")
    ApiOption.objects.create(scenario=scenario, price=row)
    data = api.post(f"/api/v1/scenarios/{scenario.pk}/evaluate/").json()
    api_result = data["result"]["api"][0]
    blended = 0.6 * 3 + 0.2 * 0.3 + 0.2 * 15
    assert math.isclose(api_result["cost_per_million_tokens_usd"], blended)
    assert data["result"]["tokens_per_month"] == 8 * 730 * 1000 * 3600
    source = {a["path"]: a for a in data["assumptions"]}["api.0.usd_per_million_output"]["source"]
    assert "shipped example" in source
    assert api.get(f"/api/v1/scenarios/{scenario.pk}/").json()["api_options"][0]["price"] == row.pk


@pytest.mark.parametrize(("overrides", "field"), [
    ({"token_input_share": "0.5", "token_output_share": "0.2"}, "token_output_share"),
    ({"residual_curve": [[0, 0.3], [24, 0.5]]}, "residual_curve"),
    ({"checkpoint_interval_h": "0"}, "checkpoint_interval_h"),
    ({"failures_per_accelerator_hour": "-0.1"}, "failures_per_accelerator_hour"),
    ({"grid_kg_co2e_per_kwh": "450"}, "grid_kg_co2e_per_kwh"),
])
def test_bad_input_is_a_400_naming_the_field_and_nothing_is_saved(api, catalog, overrides, field):
    response = api.post("/api/v1/scenarios/", scenario_body(**overrides), content_type="application/json")
    assert response.status_code == 400
    assert field in response.json(), response.json()
    assert Scenario.objects.count() == 0


def test_a_negative_api_price_names_the_nested_field(api, catalog):
    scenario = _saved(api, tokens_per_s_per_accelerator="1000")
    bad = ApiOption(usd_per_million_input=-1, usd_per_million_cached_input=0, usd_per_million_output=1)
    with pytest.raises(ScenarioInputError) as error:
        scenario_evaluate(scenario=scenario, api_options=[bad])
    assert error.value.field == "api_options[0].usd_per_million_input"


TOKEN_MIX = {"tokens_per_s_per_accelerator": "1000", "token_input_share": "0.6",
             "token_cached_input_share": "0.2", "token_output_share": "0.2",
             "failures_per_accelerator_hour": "0"}
# 0.6 x $3 + 0.2 x $0.30 + 0.2 x $15 per million tokens.
QUOTED = {"name": "quoted API", "usd_per_million_input": "3", "usd_per_million_cached_input": "0.3",
          "usd_per_million_output": "15"}
QUOTED_BLENDED = 0.6 * 3 + 0.2 * 0.3 + 0.2 * 15


def test_the_stateless_evaluation_prices_the_api_options_sent(api, catalog):
    data = evaluate(api, **TOKEN_MIX, api_options=[QUOTED])
    (option,) = data["result"]["api"]
    assert option["name"] == "quoted API"
    assert math.isclose(option["cost_per_million_tokens_usd"], QUOTED_BLENDED)
    assert Scenario.objects.count() == 0


def test_api_options_are_written_with_the_scenario_and_replaced_by_an_edit(api, catalog):
    row = TokenApiPrice.objects.get(model_name="large model")
    scenario = _saved(api, **TOKEN_MIX, api_options=[QUOTED, {"price": row.pk}])
    assert [str(o) for o in scenario.api_options.all()] == ["quoted API", str(row)]

    url = f"/api/v1/scenarios/{scenario.pk}/"
    revision = api.get(url).json()["revision"]
    kept = api.patch(url, {"revision": revision, "name": "renamed"}, content_type="application/json")
    assert kept.status_code == 200, kept.json()
    assert len(kept.json()["api_options"]) == 2  # left out of the edit: kept

    edited = {**QUOTED, "usd_per_million_output": "10"}
    replaced = api.patch(url, {"revision": kept.json()["revision"], "api_options": [edited]},
                         content_type="application/json")
    assert replaced.status_code == 200, replaced.json()
    assert [o["usd_per_million_output"] for o in replaced.json()["api_options"]] == ["10.0000"]
    result = api.post(f"/api/v1/scenarios/{scenario.pk}/evaluate/").json()["result"]
    assert math.isclose(result["api"][0]["cost_per_million_tokens_usd"], 0.6 * 3 + 0.2 * 0.3 + 0.2 * 10)


@pytest.mark.parametrize(("overrides", "error"), [
    ({"api_options": [{**QUOTED, "usd_per_million_input": "-1"}]},
     {"api_options": {"0": {"usd_per_million_input": ["API price, input tokens must be at least 0, "
                                                   "not -1"]}}}),
    ({"api_options": [{"name": "no prices"}]},
     {"api_options": {"0": {"usd_per_million_input": ["give a price or pick a catalog price row"]}}}),
    ({"token_input_share": "0.5", "api_options": [QUOTED]}, "token_output_share"),
    ({"tokens_per_s_per_accelerator": None, "api_options": [QUOTED]}, "tokens_per_s_per_accelerator"),
])
def test_bad_api_options_are_a_400_naming_the_field_on_both_endpoints(api, catalog, overrides, error):
    body = scenario_body(**{**TOKEN_MIX, **overrides})
    for url in ("/api/v1/evaluate/", "/api/v1/scenarios/"):
        response = api.post(url, body, content_type="application/json")
        assert response.status_code == 400, response.json()
        if isinstance(error, str):
            assert error in response.json(), response.json()
        else:
            assert response.json() == error
    assert Scenario.objects.count() == 0


def test_the_evaluate_command_prices_the_api_options_as_the_endpoint_does(api, catalog, tmp_path):
    body = scenario_body(**TOKEN_MIX, api_options=[QUOTED])
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(body))
    out = io.StringIO()

    call_command("tco_evaluate", str(path), stdout=out)

    (option,) = json.loads(out.getvalue())["result"]["api"]
    assert option == evaluate(api, **TOKEN_MIX, api_options=[QUOTED])["result"]["api"][0]
    assert option["name"] == "quoted API"
    assert math.isclose(option["cost_per_million_tokens_usd"], QUOTED_BLENDED)


@pytest.mark.parametrize(("option", "field"), [
    ({**QUOTED, "usd_per_million_input": "-1"}, "api_options[0].usd_per_million_input"),
    ({"name": "no prices"}, "api_options[0].usd_per_million_input"),
    ({**QUOTED, "price": 999_999}, "api_options[0].price"),
])
def test_the_evaluate_command_refuses_a_bad_api_option_naming_the_field(catalog, tmp_path, option,
                                                                        field):
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scenario_body(**TOKEN_MIX, api_options=[option])))

    with pytest.raises(CommandError, match=rf"invalid scenario: {re.escape(field)}: ") as refused:
        call_command("tco_evaluate", str(path), stdout=io.StringIO())

    assert refused.value.returncode != 0


def test_a_checkpoint_time_in_minutes_reaches_the_engine_in_hours_exactly(api, catalog):
    """5 minutes, kept as 0.0833 h before, moved the Young/Daly interval in its 4th digit."""
    created = api.post("/api/v1/scenarios/", scenario_body(checkpoint_cost_min="5"),
                       content_type="application/json").json()
    data = api.post(f"/api/v1/scenarios/{created['id']}/evaluate/").json()

    assert created["checkpoint_cost_min"] == "5.0000"
    checkpoint = {a["path"]: a for a in data["assumptions"]}["goodput.checkpoint_cost_h"]
    assert (checkpoint["value"], checkpoint["unit"]) == (5 / 60, "h")
    mtbf = 1 / (8 * LLAMA3_RATE)  # 8 accelerators, Llama 3's failure rate
    interval = data["result"]["buy"]["goodput"]["checkpoint_interval_h"]
    assert math.isclose(interval, math.sqrt(2 * 5 / 60 * mtbf), rel_tol=1e-12)
    assert not math.isclose(interval, math.sqrt(2 * 0.0833 * mtbf), rel_tol=1e-4)


@pytest.mark.django_db(transaction=True)
def test_the_migration_turns_stored_hours_into_minutes_and_back(api, catalog):
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    created = api.post("/api/v1/scenarios/", scenario_body(checkpoint_cost_min="5"),
                       content_type="application/json").json()

    MigrationExecutor(connection).migrate([("tco", "0001_squashed_0038_nebius_provider")])
    with connection.cursor() as cursor:
        cursor.execute("SELECT checkpoint_cost_h FROM tco_scenario WHERE id = %s", [created["id"]])
        [hours] = cursor.fetchone()
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    assert str(hours) == "0.0833"  # 5 / 60 h to 4 decimals, as it was kept
    assert str(Scenario.objects.get(pk=created["id"]).checkpoint_cost_min) == "4.9980"  # 0.0833 x 60
