"""POST /api/v1/sizing/throughput/ and GET /api/v1/throughput-measurements/ on the real catalog."""
from __future__ import annotations

import pytest
from numpy.testing import assert_allclose

from tests.teams.members import member

pytestmark = pytest.mark.django_db

L40S_8B = {"accelerator": "l40s-pcie-48gb", "model": "llama-3.1-8b", "precision": "fp8",
           "accelerators": 1, "input_tokens": 1000, "output_tokens": 1000}


@pytest.fixture
def api(client, db):
    client.force_login(member("planner"))
    return client


def throughput(api, **body):
    return api.post("/api/v1/sizing/throughput/", body, content_type="application/json")


def test_an_estimate_carries_its_range_and_the_nearest_measurements(api, catalog):
    answer = throughput(api, **L40S_8B).json()

    assert answer["basis"].startswith("estimate calibrated on ")
    low, figure, high = (answer["tokens_per_s_low"], answer["tokens_per_s"],
                         answer["tokens_per_s_high"])
    assert low < figure < high
    calibration = answer["calibration"]
    assert_allclose([low / figure, high / figure],
                    [calibration["range_low"], calibration["range_high"]], rtol=1e-3)
    nearest = answer["nearest_measurements"]
    # The closest are Llama 3.1 8B at 1,000/1,000 on H100 and H200 (same model and lengths);
    # an L40S run (a 7B model, TensorRT-LLM 0.5) is among them, or follows them when none is.
    assert [row["key"] for row in nearest[:2]] == ["trtllm10-llama31-8b-h100-1000-1000",
                                                   "trtllm10-llama31-8b-h200-1000-1000"]
    (l40s,) = [row for row in nearest if row["key"].startswith("trtllm05-llama2-7b-l40s")]
    assert l40s["url"].startswith("https://github.com/NVIDIA/TensorRT-LLM/")
    assert all(0.5 <= row["ratio"] <= 2 for row in nearest)
    assert answer["estimate"]["decode_bound"] in ("memory", "compute")


def test_prefill_and_decode_are_reported_apart(api, catalog):
    estimate = throughput(api, **L40S_8B).json()["estimate"]
    # 1,000 prompt tokens at 2 x 8.03e9 FLOPs (+ attention) each take a prefill of some tens of
    # milliseconds on a 733-TFLOPS card; a decode step is a few tens of milliseconds.
    assert 0.005 < estimate["prefill_s_per_request"] < 0.2
    assert estimate["decode_step_s"] > 0
    assert estimate["prefill_tokens_per_s_per_replica"] > estimate[
        "decode_tokens_per_s_per_replica"] / estimate["concurrency_per_replica"]


def test_a_stated_measurement_wins_with_its_source(api, catalog):
    answer = throughput(api, **L40S_8B, measured_tokens_per_s_per_accelerator=1234.5,
                        measured_source="our load test, 2026-11-20").json()
    assert answer["tokens_per_s"] == answer["tokens_per_s_low"] == 1234.5
    assert answer["basis"] == "stated measurement: our load test, 2026-11-20"
    assert answer["estimate"]["tokens_per_s"] > 0  # the estimate stays in sight beside it


def test_a_measurement_without_its_source_is_refused(api, catalog):
    response = throughput(api, **L40S_8B, measured_tokens_per_s_per_accelerator=1234.5)
    assert response.status_code == 400
    assert "measured_source" in response.json()


def test_the_user_fixes_accelerators_and_tensor_parallelism(api, catalog):
    answer = throughput(api, accelerator="h100-sxm-80gb", model="llama-3.1-70b",
                        precision="fp8", accelerators=8, tensor_parallel=2).json()
    assert (answer["accelerators"], answer["tensor_parallel"], answer["replicas"]) == (8, 2, 4)
    # Four replicas of TP 2: the fleet's figure is four times one replica's.
    one = throughput(api, accelerator="h100-sxm-80gb", model="llama-3.1-70b",
                     precision="fp8", accelerators=2, tensor_parallel=2).json()
    assert_allclose(answer["tokens_per_s"], 4 * one["tokens_per_s"], rtol=1e-9)


def test_without_a_layout_the_fewest_devices_that_hold_the_model(api, catalog):
    answer = throughput(api, accelerator="h100-sxm-80gb", model="llama-3.1-70b",
                        precision="fp16").json()
    # 141 GB of FP16 weights: two 80 GB devices (72 GB usable each).
    assert (answer["accelerators"], answer["tensor_parallel"]) == (2, 2)


def test_a_layout_that_splits_no_heads_evenly_is_refused_by_name(api, catalog):
    response = throughput(api, accelerator="h100-sxm-80gb", model="llama-3.1-70b",
                          precision="fp8", accelerators=6, tensor_parallel=3)
    assert response.status_code == 400
    assert "tensor_parallel" in response.json()


def test_cost_per_million_tokens_and_api_breakeven_carry_the_range(api, catalog):
    answer = throughput(api, **L40S_8B, price_usd_per_accelerator_hour=0.91,
                        api_usd_per_million_tokens=0.6).json()
    per_accelerator = answer["tokens_per_s_per_accelerator"]
    cost = answer["cost"]
    # $0.91 an hour / (tokens/s x 3,600 s) x 1e6.
    assert_allclose(cost["usd_per_million_tokens"], 0.91 / (per_accelerator * 3600) * 1e6)
    assert cost["low"] < cost["usd_per_million_tokens"] < cost["high"]
    breakeven = answer["api_breakeven"]
    # One L40S at $0.91 x 730 h = $664.30 a month = 1,107 million tokens at $0.60.
    assert_allclose(breakeven["fleet_usd_per_month"], 664.3)
    assert_allclose(breakeven["breakeven_tokens_per_month"], 664.3 / 0.6 * 1e6)
    assert breakeven["capacity_low"] < breakeven["capacity_tokens_per_month"] < \
        breakeven["capacity_high"]


def test_the_measurements_are_listed_with_their_source_and_judgement(api, catalog):
    rows = api.get("/api/v1/throughput-measurements/?accelerator=l40s-pcie-48gb").json()
    keys = {row["key"] for row in rows["results"]} if "results" in rows else \
        {row["key"] for row in rows}
    assert "trtllm05-llama2-7b-l40s-b64-128-128" in keys
    claim = api.get("/api/v1/throughput-measurements/seed003-cost-70b-int8-l40s/").json()
    assert claim["physically_possible"] is False and claim["calibrated"] is False
    assert "it does not fit" in claim["judgement"]
    assert claim["source"] == "seed-003"


def test_a_monte_carlo_run_can_draw_the_throughput_over_its_range(api, catalog, demo_scenarios):
    from tco.services.engine_inputs import engine_case
    from tco.services.runs import run_spec

    answer = throughput(api, **L40S_8B).json()
    distribution = answer["monte_carlo_distribution"]
    assert (distribution["low"], distribution["mode"], distribution["high"]) == (
        answer["tokens_per_s_per_accelerator_low"], answer["tokens_per_s_per_accelerator"],
        answer["tokens_per_s_per_accelerator_high"])
    scenario = demo_scenarios["Inference fleet: 32x L40S vs cloud"]
    spec = run_spec("monte_carlo", {"samples": 1000, "distributions": [distribution]},
                    engine_case(scenario).inputs)
    low, high = spec.distributions["workload.tokens_per_s_per_accelerator"].support()
    assert (low, high) == (distribution["low"], distribution["high"])
