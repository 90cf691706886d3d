"""POST /api/v1/sizing/ searches the serving layout (issue 47): the cheapest fleet that meets the
service-level targets, why, the next two, the target that forces a larger fleet; its schema's
precision names in any case and unknown fields refused; the fleet's tokens priced by kind beside
an API's three prices."""
from __future__ import annotations

import pytest
from numpy.testing import assert_allclose

from catalog.models import TokenApiPrice
from tests.teams.members import member

pytestmark = pytest.mark.django_db

# The request of issue 47: on the base it proposed 128 H100 at TP 1 (157 tokens/s each).
SEVENTY_B_FP8 = {"accelerator": "h100-sxm-80gb", "mode": "inference", "model": "llama-3.1-70b",
                 "precision": "fp8", "tokens_per_s": 20000, "input_tokens": 1000,
                 "output_tokens": 300}


@pytest.fixture
def api(client, db):
    client.force_login(member("planner"))
    return client


def size(api, path="/api/v1/sizing/", **body):
    return api.post(path, body, content_type="application/json")


def test_the_70b_fp8_request_proposes_the_smallest_fleet_meeting_the_targets_and_says_why(
        api, catalog):
    sizing = size(api, **SEVENTY_B_FP8).json()

    search = sizing["layout_search"]
    meeting = [o["accelerators"] for o in search["options"] if o["meets_targets"]]
    assert sizing["accelerators"] <= 1.25 * min(meeting)
    assert sizing["accelerators"] <= 32  # a quarter of the 128 the base proposed
    chosen = search["chosen"]
    assert sizing["accelerators"] == chosen["accelerators"]
    assert sizing["fit"]["layout"].startswith(chosen["label"])
    assert chosen["tensor_parallel"] >= 2 and chosen["meets_targets"]
    # The layout is explained, and the next two are named with their own fleets.
    assert search["why"].startswith(f"{chosen['label']} needs the fewest accelerators")
    assert len(search["next_two"]) == 2
    assert all(o["accelerators"] >= chosen["accelerators"] for o in search["next_two"])
    # One device per replica holds the FP8 weights but only a few requests' KV cache.
    tp1 = next(o for o in search["options"] if o["label"] == "TP 1 x PP 1")
    assert tp1["accelerators"] > 4 * chosen["accelerators"]


def test_the_targets_are_met_and_shown_with_their_defaults(api, catalog):
    sizing = size(api, **SEVENTY_B_FP8).json()

    chosen = sizing["layout_search"]["chosen"]
    assumptions = {a["name"]: a["value"] for a in sizing["assumptions"]}
    assert assumptions["time_to_first_token_s"] == 2.0
    assert assumptions["tokens_per_s_per_user"] == 10.0
    assert chosen["tokens_per_s_per_user"] >= 10.0 and chosen["time_to_first_token_s"] <= 2.0
    # Little's law: each user gets the replica's tokens/s shared by its requests.
    assert_allclose(chosen["tokens_per_s_per_user"] * chosen["concurrency_per_replica"],
                    chosen["tokens_per_s_per_replica"], rtol=1e-9)
    # The curve: the more requests a replica takes, the more each accelerator serves and the
    # slower each user is served.
    curve = chosen["curve"]
    assert len(curve) > 10
    per_user = [p["tokens_per_s_per_user"] for p in curve]
    per_accelerator = [p["tokens_per_s_per_accelerator"] for p in curve]
    assert per_user == sorted(per_user, reverse=True)
    assert per_accelerator == sorted(per_accelerator)


def test_a_target_that_forces_a_larger_fleet_is_named(api, catalog):
    sizing = size(api, **SEVENTY_B_FP8, tokens_per_s_per_user=30).json()

    search = sizing["layout_search"]
    assert sizing["accelerators"] > search["smallest_fleet_without_targets"]
    assert search["forced_by"] == ["tokens/s per user"]
    assert f"Without the targets {search['smallest_fleet_without_targets']:,.0f} would do" in \
        search["why"]
    assert search["chosen"]["tokens_per_s_per_user"] >= 30


def test_a_given_tensor_parallel_fixes_the_layout(api, catalog):
    sizing = size(api, **SEVENTY_B_FP8, tensor_parallel=1).json()

    assert [o["label"] for o in sizing["layout_search"]["options"]] == ["TP 1 x PP 1"]
    assert sizing["fit"]["layout"] == "TP 1 x PP 1 x DP 1"
    assert sizing["accelerators_per_replica"] == 1


@pytest.mark.parametrize("path", ["/api/v1/sizing/", "/api/v1/sizing/throughput/"])
def test_precision_names_are_read_in_any_case_and_bad_ones_list_the_choices(api, catalog, path):
    body = ({**SEVENTY_B_FP8} if path == "/api/v1/sizing/" else
            {"accelerator": "h100-sxm-80gb", "model": "llama-3.1-70b", "accelerators": 8})
    upper = size(api, path, **{**body, "precision": "FP8"})
    lower = size(api, path, **{**body, "precision": "fp8"})
    assert upper.status_code == lower.status_code == 200, upper.json()
    assert upper.json()["accelerators"] == lower.json()["accelerators"]

    refused = size(api, path, **{**body, "precision": "FP9"})
    assert refused.status_code == 400
    message = refused.json()["precision"][0]
    assert "fp8" in message and "bf16" in message and "FP9" in message


@pytest.mark.parametrize("path", ["/api/v1/sizing/", "/api/v1/sizing/throughput/"])
def test_unknown_fields_are_refused_by_name(api, catalog, path):
    body = ({**SEVENTY_B_FP8} if path == "/api/v1/sizing/" else
            {"accelerator": "h100-sxm-80gb", "model": "llama-3.1-70b", "accelerators": 8})
    response = size(api, path, **body, utilization=0.6)

    assert response.status_code == 400
    assert list(response.json()) == ["utilization"]
    assert "is not a field here" in response.json()["utilization"][0]


def test_the_fleets_tokens_are_priced_by_kind_beside_an_apis_three_prices(api, catalog):
    """3 input tokens to 1 output, half the input from the prefix cache, USD 2 an H100-hour."""
    fireworks = TokenApiPrice.objects.get(provider="Fireworks AI",
                                          model_name="Llama 3.1 70B Instruct")
    sizing = size(api, **{**SEVENTY_B_FP8, "input_tokens": 900, "output_tokens": 300},
                  cached_input_share=0.5, price_usd_per_accelerator_hour=2.0,
                  token_api_price=fireworks.pk).json()

    costs, estimate = sizing["token_costs"], sizing["estimate"]
    devices = sizing["accelerators_per_replica"]
    usd_per_replica_second = 2.0 * devices / 3600
    # Input: the replica prefills the 450 uncached tokens of a request in its prefill time.
    prefill_rate = 450 / estimate["prefill_s_per_request"]
    assert_allclose(costs["usd_per_million_input"], usd_per_replica_second / prefill_rate * 1e6,
                    rtol=1e-9)
    # Output: each decode step writes one token for every request in the batch.
    decode_rate = estimate["concurrency_per_replica"] / estimate["decode_step_s"]
    assert_allclose(costs["usd_per_million_output"], usd_per_replica_second / decode_rate * 1e6,
                    rtol=1e-9)
    # Cached input: its keys and values (2 x 80 layers x 8 heads x 128 values, 1 byte in FP8)
    # read once at the replica's fitted bandwidth.
    bandwidth = 3350e9 * devices * sizing["calibration"]["efficiency"]["memory_bandwidth"]
    assert_allclose(costs["usd_per_million_cached_input"],
                    usd_per_replica_second / (bandwidth / (2 * 80 * 8 * 128)) * 1e6, rtol=1e-9)
    assert costs["usd_per_million_cached_input"] < costs["usd_per_million_input"]
    # A request: 450 input, 450 cached input and 300 output tokens at those prices.
    request = (450 * costs["usd_per_million_input"] + 450 * costs["usd_per_million_cached_input"]
               + 300 * costs["usd_per_million_output"]) / 1e6
    assert_allclose(costs["usd_per_request"], request, rtol=1e-9)

    comparison = sizing["api_comparison"]
    assert comparison["api_usd_per_million"] == {"input": 0.9, "cached_input": 0.9,
                                                 "output": 0.9}
    assert_allclose(comparison["api_usd_per_request"], (450 + 450 + 300) * 0.9 / 1e6)
    assert_allclose(comparison["self_hosted_usd_per_request"], request, rtol=1e-9)
