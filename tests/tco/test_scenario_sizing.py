"""A scenario whose accelerator count and throughput come from a sizing: API, evaluation, admin."""
from __future__ import annotations

import json
import re

import pytest
from numpy.testing import assert_allclose

from tco.models import Scenario
from tco.services.evaluation import scenario_evaluate
from tests.tco.scenario_body import scenario_body
from tests.teams.members import member
from tests.teams.members import team

pytestmark = pytest.mark.django_db

# Llama 3.1 8B in BF16 at batch 1 on an H100: each step reads 16.06 GB of weights and 0.54 GB
# of KV cache (4K tokens) at 3,350 GB/s, 4.954 ms, so 201.84 tokens/s from one accelerator;
# 20,000 tokens/s with 32 requests in flight a replica: the calibrated estimate gives one H100
# 2,856.9 tokens/s (33 measurements), so ceil(20,000 / 2,856.9) = 8 one-accelerator replicas.
SERVE_8B = {"mode": "inference", "model": "llama-3.1-8b", "tokens_per_s": 20000,
            "concurrency": 32}
SIZED_ACCELERATORS = 8
SIZED_TOKENS_PER_S = 2856.902561


@pytest.fixture
def api(client, db):
    client.force_login(member("analyst"))
    return client


def body(**overrides):
    """H100 DGX systems against p5.48xlarge on-demand at $50/h, no accelerator count given."""
    data = scenario_body(name="Serve 8B", sizing=SERVE_8B)
    del data["accelerators"]
    return {**data, **overrides}


def evaluate(api, **overrides):
    return api.post("/api/v1/evaluate/", body(**overrides), content_type="application/json")


def test_a_scenario_without_a_count_evaluates_with_the_sized_count_and_throughput(api, catalog):
    response = evaluate(api)

    evaluation = response.json()
    assert response.status_code == 200, evaluation
    assumptions = {a["path"]: a for a in evaluation["assumptions"]}
    count = assumptions["workload.accelerators"]
    throughput = assumptions["workload.tokens_per_s_per_accelerator"]
    assert (count["origin"], count["value"]) == ("sizing", SIZED_ACCELERATORS)
    assert throughput["origin"] == "sizing"
    assert_allclose(throughput["value"], SIZED_TOKENS_PER_S, rtol=1e-6)
    assert "Llama 3.1 8B on h100-sxm-80gb" in count["source"]
    # 8 accelerators rent as one p5 instance: $50 x 730 h x 36 months.
    assert_allclose(evaluation["result"]["rent"][0]["total_usd"], 50 * 730 * 36)
    # The estimate's range carries into the cost per million tokens: the fleet costs the same
    # whatever it serves, so the cost scales as 1 / tokens/s.
    spread = evaluation["sizing"]["throughput_range"]
    rate = spread["tokens_per_s_per_accelerator"]
    assert rate["low"] < rate["central"] < rate["high"]
    assert_allclose(rate["central"], throughput["value"], rtol=1e-9)
    buy = next(row for row in spread["figures"] if row["option"] == "Buy")
    assert_allclose([buy["at_low_throughput"], buy["at_high_throughput"]],
                    [buy["central"] * rate["central"] / rate["low"],
                     buy["central"] * rate["central"] / rate["high"]], rtol=1e-6)
    assert spread["monte_carlo_distribution"]["path"] == "workload.tokens_per_s_per_accelerator"


def test_the_result_shows_the_sizing_figures_and_assumptions(api, catalog):
    sizing = evaluate(api).json()["sizing"]

    assert (sizing["mode"], sizing["accelerator"]) == ("inference", "h100-sxm-80gb")
    assert (sizing["replicas"], sizing["accelerators"]) == (8, 8)
    assert sizing["spec"] == SERVE_8B
    parameters = next(a for a in sizing["assumptions"] if a["name"] == "parameters")
    assert parameters["value"] == 8_030_261_248
    assert "Llama 3 Herd" in parameters["source"]


def test_the_scenario_own_count_wins_over_the_sizing_which_is_still_shown(api, catalog):
    evaluation = evaluate(api, accelerators=8, tokens_per_s_per_accelerator="300").json()

    assumptions = {a["path"]: a for a in evaluation["assumptions"]}
    assert (assumptions["workload.accelerators"]["origin"],
            assumptions["workload.accelerators"]["value"]) == ("scenario", 8)
    assert assumptions["workload.tokens_per_s_per_accelerator"]["value"] == 300
    assert evaluation["sizing"]["accelerators"] == SIZED_ACCELERATORS


def test_a_training_deadline_sizes_the_cluster(api, catalog):
    training = {"mode": "training", "tokens": 1e12, "mfu": 0.4, "deadline_days": 30,
                "model": {"name": "7B", "parameters": 7e9, "layers": 32, "hidden_size": 4096,
                          "attention_heads": 32, "max_context_length": 4096,
                          "vocab_size": 32000}}

    evaluation = evaluate(api, sizing=training).json()

    # 4.2e22 FLOP at 989e12 x 0.4 FLOP/s per H100 in 30 days: 48 H100 (see test_sizing_api).
    count = next(a for a in evaluation["assumptions"] if a["path"] == "workload.accelerators")
    assert (count["origin"], count["value"]) == ("sizing", 48)
    # Training has no serving throughput: the scenario's (empty) figure stays.
    throughput = next(a for a in evaluation["assumptions"]
                      if a["path"] == "workload.tokens_per_s_per_accelerator")
    assert (throughput["origin"], throughput["value"]) == ("scenario", None)


def test_a_stored_scenario_keeps_its_sizing_and_evaluates_with_it(api, catalog):
    created = api.post("/api/v1/scenarios/", body(), content_type="application/json")
    assert created.status_code == 201, created.json()
    pk = created.json()["id"]

    assert Scenario.objects.get(pk=pk).sizing == SERVE_8B
    assert api.get(f"/api/v1/scenarios/{pk}/").json()["sizing"] == SERVE_8B
    evaluated = api.post(f"/api/v1/scenarios/{pk}/evaluate/").json()
    assert evaluated["sizing"]["accelerators"] == SIZED_ACCELERATORS


@pytest.mark.parametrize(("sizing", "field"), [
    ({**SERVE_8B, "tokens_per_s": 0}, "tokens_per_s"),
    ({**SERVE_8B, "input_tokens": 0}, "input_tokens"),
    ({**SERVE_8B, "concurrency": 0}, "concurrency"),
    ({"mode": "training", "model": "llama-3.1-8b", "tokens": 1e12, "mfu": 0}, "mfu"),
    ({"mode": "training", "model": "llama-3.1-8b", "tokens": 1e12, "mfu": 1.5}, "mfu"),
    ({"mode": "training", "model": "llama-3.1-8b", "tokens": 0}, "tokens"),
    # The H100's catalog has no INT4 figure: a precision the accelerator cannot run.
    ({**SERVE_8B, "precision": "int4"}, "precision"),
])
def test_it_refuses_a_bad_sizing_naming_the_field_under_sizing(api, catalog, sizing, field):
    response = api.post("/api/v1/scenarios/", body(sizing=sizing),
                        content_type="application/json")

    assert response.status_code == 400
    assert response.json()["sizing"][field], response.json()
    assert Scenario.objects.count() == 0


def test_it_refuses_a_custom_model_with_zero_parameters_naming_the_nested_field(api, catalog):
    shape = {"parameters": 0, "layers": 32, "hidden_size": 4096, "attention_heads": 32,
             "max_context_length": 4096, "vocab_size": 32000}

    response = evaluate(api, sizing={**SERVE_8B, "model": shape})

    assert response.status_code == 400
    assert response.json()["sizing"]["model"]["parameters"]


def test_without_a_count_or_a_sizing_it_asks_for_the_count(api, catalog):
    response = evaluate(api, sizing=None)

    assert response.status_code == 400
    assert "accelerators" in response.json()


def test_a_sizing_that_does_not_fit_cannot_give_the_count(api, catalog):
    # 405B in BF16 is 812 GB of weights: more than 4 x 72 GB usable.
    response = evaluate(api, sizing={"mode": "inference", "model": "llama-3.1-405b",
                                     "max_accelerators": 4})

    assert response.status_code == 400
    assert "max_accelerators" in response.json()["sizing"][0]


@pytest.fixture
def sized_scenario(catalog):
    from tco.api.serializers import ScenarioSerializer
    from tco.services.scenarios import scenario_create

    serializer = ScenarioSerializer(data=body())
    serializer.is_valid(raise_exception=True)
    data = dict(serializer.validated_data)
    return scenario_create(data={**data, "team": team()}, rent_options=data.pop("rent_options"),
                           user=None)


def test_the_admin_page_shows_the_sizing_figures_and_assumptions(admin_client, sized_scenario):
    response = admin_client.get(f"/admin/tco/scenario/{sized_scenario.pk}/change/")

    page = response.content.decode()
    assert response.status_code == 200
    assert 'id="scenario-result"' in page
    assert 'id="scenario-sizing"' in page
    assert '<th>Replicas</th><td class="num">8</td>' in page
    assert '<th>Throughput per accelerator</th><td class="num">2,857</td>' in page
    # The estimate's range (x0.62 to x1.27 of the leave-one-out misses) and what it rests on.
    assert '<td class="num">1,808 to 4,019</td><td>output tokens/s</td>' in page
    assert "Nearest measurement 1" in page and "TensorRT-LLM" in page
    assert "Llama 3 Herd" in page  # the source of the model's figures


def _admin_form(scenario: Scenario, sizing: object) -> dict:
    """The admin change form's fields for the scenario, with the sizing JSON replaced."""
    evaluation = scenario_evaluate(scenario=scenario)
    assert evaluation.sizing is not None
    fields = {f.name: getattr(scenario, f.attname) for f in Scenario._meta.concrete_fields
              if f.name not in ("id", "owner", "created_at", "updated_at")}
    option = scenario.rent_options.get()
    prefix = "rent_options"
    return {**{k: "" if v is None else v for k, v in fields.items()},
            "sizing": json.dumps(sizing),
            "edited_revision": scenario.revision,  # the hidden field the page carries
            f"{prefix}-TOTAL_FORMS": 1, f"{prefix}-INITIAL_FORMS": 1,
            # The read-only inline of past exports (none yet) posts its management form too.
            "report_exports-TOTAL_FORMS": 0, "report_exports-INITIAL_FORMS": 0,
            "api_options-TOTAL_FORMS": 0, "api_options-INITIAL_FORMS": 0,
            f"{prefix}-0-id": option.pk, f"{prefix}-0-scenario": scenario.pk,
            f"{prefix}-0-offering": option.offering_id,
            f"{prefix}-0-price_usd_per_instance_hour": option.price_usd_per_instance_hour,
            **{f"{prefix}-0-{name}": "" if getattr(option, name) is None else getattr(option, name)
               for name in (
                "upfront_usd", "spot_interruption_overhead", "egress_tb_per_month",
                "egress_usd_per_gb", "storage_tb", "storage_usd_per_gb_month",
                "price_change_per_year", "spot_interruptions_per_hour")}}


def test_the_admin_refuses_a_bad_sizing_json_as_a_form_error(admin_client, sized_scenario):
    url = f"/admin/tco/scenario/{sized_scenario.pk}/change/"

    response = admin_client.post(url, _admin_form(sized_scenario, {**SERVE_8B, "mfu": 0.4}))

    assert response.status_code == 200  # the form again, not a redirect
    errors = response.context["adminform"].form.errors["sizing"]
    assert errors == ["mfu: applies to training sizing only"]
    assert Scenario.objects.get(pk=sized_scenario.pk).sizing == SERVE_8B


def test_the_admin_refuses_a_precision_the_accelerator_lacks(admin_client, sized_scenario):
    url = f"/admin/tco/scenario/{sized_scenario.pk}/change/"

    response = admin_client.post(url, _admin_form(sized_scenario,
                                                  {**SERVE_8B, "precision": "int4"}))

    (error,) = response.context["adminform"].form.errors["sizing"]
    assert error.startswith("precision: NVIDIA H100") and "int4" in error


def test_the_admin_saves_an_edited_sizing(admin_client, sized_scenario):
    url = f"/admin/tco/scenario/{sized_scenario.pk}/change/"
    edited = {**SERVE_8B, "tokens_per_s": 5000}

    response = admin_client.post(url, _admin_form(sized_scenario, edited))

    assert response.status_code == 302, response.context["adminform"].form.errors
    saved = Scenario.objects.get(pk=sized_scenario.pk)
    assert saved.sizing == edited
    # ceil(5,000 / 2,856.9) = 2 one-accelerator replicas.
    assert scenario_evaluate(scenario=saved).sizing.accelerators == 2


def test_an_inference_api_beside_a_training_sizing_is_flagged(api, catalog):
    training = {"mode": "training", "model": "llama-3.1-8b", "tokens": 1e12, "mfu": 0.4}
    quoted = {"name": "quoted API", "usd_per_million_input": "3",
              "usd_per_million_cached_input": "0.3", "usd_per_million_output": "15"}

    # A fine-tuning cluster's tokens per second, as a person types it to compare with the API.
    flagged = evaluate(api, sizing=training, api_options=[quoted],
                       tokens_per_s_per_accelerator="1000")
    serving = evaluate(api, sizing=SERVE_8B, api_options=[quoted])
    assert flagged.status_code == serving.status_code == 200, flagged.json()
    flagged, serving = flagged.json(), serving.json()

    (warning,) = [w for w in flagged["warnings"] if w["code"] == "inference_api_beside_training"]
    assert warning["severity"] == "warning"
    assert "sized for training, but quoted API prices inference tokens" in warning["message"]
    assert not [w for w in serving["warnings"] if w["code"] == "inference_api_beside_training"]


SEVENTY_B_FIELDS = {"sizing_model": "llama-3.1-70b", "sizing_precision": "fp8",
                    "sizing_tokens_per_s": 20000, "sizing_input_tokens": 1000,
                    "sizing_output_tokens": 300, "sizing_time_to_first_token_s": 2,
                    "sizing_tokens_per_s_per_user": 10}


def test_the_admin_sizes_from_its_fields_and_draws_throughput_against_interactivity(
        admin_client, sized_scenario):
    url = f"/admin/tco/scenario/{sized_scenario.pk}/change/"
    page = admin_client.get(url).content.decode()
    # The stored preset spec fills the fields; the JSON box is left for what they cannot say.
    assert re.search(r'<option value="llama-3.1-8b" selected>', page)
    assert re.search(r'<textarea name="sizing"[^>]*>\s*</textarea>', page)

    response = admin_client.post(url, {**_admin_form(sized_scenario, None), "sizing": "",
                                       **SEVENTY_B_FIELDS})

    assert response.status_code == 302, response.context["adminform"].form.errors
    assert Scenario.objects.get(pk=sized_scenario.pk).sizing == {
        "mode": "inference", "model": "llama-3.1-70b", "precision": "fp8", "tokens_per_s": 20000,
        "input_tokens": 1000, "output_tokens": 300, "time_to_first_token_s": 2,
        "tokens_per_s_per_user": 10}
    page = admin_client.get(url).content.decode()
    chart = page[page.index('id="interactivity-chart"'):]
    assert "<svg" in chart[:2000] and "Interactivity (output tokens/s per user" in chart


def test_the_admin_refuses_the_fields_and_the_json_together(admin_client, sized_scenario):
    url = f"/admin/tco/scenario/{sized_scenario.pk}/change/"

    response = admin_client.post(url, {**_admin_form(sized_scenario, SERVE_8B),
                                       **SEVENTY_B_FIELDS})

    assert response.context["adminform"].form.errors["sizing"] == [
        "give the serving sizing in the fields above or as JSON here, not both"]
    assert Scenario.objects.get(pk=sized_scenario.pk).sizing == SERVE_8B
