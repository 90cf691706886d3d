"""Measurements with their dates, the yearly software gain over an asset's life, and each per-token
API priced at the fleet's own tokens kind by kind (issue 47)."""
from __future__ import annotations

import math
from datetime import date

import pytest
from numpy.testing import assert_allclose

from catalog.models import Accelerator
from catalog.models import ThroughputMeasurement
from catalog.models import ThroughputMeasurementKind
from tco.services.sizing import size_spec
from tco.services.sizing_throughput import age_years
from tco.services.sizing_throughput import catalog_software_gain
from tests.tco.scenario_body import scenario_body
from tests.teams.members import member

pytestmark = pytest.mark.django_db

SERVE_8B = {"mode": "inference", "model": "llama-3.1-8b", "tokens_per_s": 20000,
            "concurrency": 32}
V41, V51 = date(2024, 8, 28), date(2025, 9, 9)


@pytest.fixture
def api(client, db):
    client.force_login(member("analyst"))
    return client


def evaluate(api, **overrides):
    data = {**scenario_body(name="Serve 8B", sizing=SERVE_8B), **overrides}
    del data["accelerators"]
    response = api.post("/api/v1/evaluate/", data, content_type="application/json")
    return response.status_code, response.json()


def test_every_published_measurement_keeps_its_date_and_software(catalog):
    rows = ThroughputMeasurement.objects.filter(kind=ThroughputMeasurementKind.MEASUREMENT)
    assert all(row.measured_on and row.serving_software for row in rows)
    v51 = rows.filter(key__startswith="mlperf51")
    assert {row.accelerator.slug for row in v51} == {"h200-sxm-141gb", "b200-sxm-192gb",
                                                     "mi300x-oam-192gb"}
    for row in v51:
        assert row.measured_on == V51 and row.calibrated
        assert "965182b03376a00fcae415c54e560e1c83937932" in row.source.url
        assert row.where.startswith("closed/") and row.where.endswith("mlperf_log_summary.txt")
    assert rows.get(key="mlperf41-llama2-70b-h200x8-offline").measured_on == V41


def test_the_software_gain_is_fitted_on_the_same_chip_and_model_a_year_apart(catalog):
    # Llama 2 70B, FP8, 8 GPUs, one copy each, MLPerf Offline, 28 Aug 2024 -> 9 Sep 2025
    # (377 days = 1.0322 years): H200 31,059.3 -> 34,812.1 tokens/s (x1.1208), MI300X
    # 23,514.8 -> 27,803.9 (x1.1824). One shared slope: the mean of the two log ratios over
    # 1.0322 years, exp(0.14081 / 1.0322) - 1 = 14.6 % a year.
    years = (V51 - V41).days / 365.25
    expected = math.exp((math.log(34812.1 / 31059.3) + math.log(27803.9 / 23514.8)) / 2
                        / years) - 1
    gain = catalog_software_gain()
    assert gain is not None and len(gain.groups) == 2
    assert gain.per_year == pytest.approx(expected, rel=1e-9)
    assert round(gain.per_year, 3) == 0.146


def test_a_stated_software_gain_raises_the_throughput_averaged_over_the_life(api, catalog):
    status, plain = evaluate(api)
    gained_status, gained = evaluate(api, sizing={**SERVE_8B, "software_gain_per_year": 0.1})
    assert status == gained_status == 200, gained

    def throughput(evaluation):
        return next(a for a in evaluation["assumptions"]
                    if a["path"] == "workload.tokens_per_s_per_accelerator")

    # 36 months at 10 % a year: (1.1^3 - 1) / (3 ln 1.1) = 1.157624 times today's rate.
    assert_allclose(throughput(gained)["value"] / throughput(plain)["value"],
                    (1.1 ** 3 - 1) / (3 * math.log(1.1)), rtol=1e-9)
    assert "software gain 10.0% a year (stated in the sizing): x1.158 on average over 36 " \
           "months" in throughput(gained)["source"]
    assert plain["sizing"]["software_gain"]["per_year"] == 0.0
    assert plain["sizing"]["software_gain"]["basis"].startswith("default: none assumed")
    assert gained["sizing"]["software_gain"] == {"per_year": 0.1, "basis": "stated in the sizing"}
    figures = {f.name: f for f in size_spec(SERVE_8B, Accelerator.objects.get(
        slug="h100-sxm-80gb")).figures()}
    assert figures["software_gain_per_year"].value == 0.0
    assert "default: none assumed" in figures["software_gain_per_year"].unit


def test_the_fitted_gain_can_be_asked_for_and_a_bad_one_is_refused_naming_the_field(api, catalog):
    status, fitted = evaluate(api, sizing={**SERVE_8B, "software_gain_per_year": "fitted"})
    assert status == 200, fitted
    assert fitted["sizing"]["software_gain"]["basis"].startswith("fitted: 14.6% a year")
    status, refused = evaluate(api, sizing={**SERVE_8B, "software_gain_per_year": 3})
    assert status == 400
    assert "software_gain_per_year" in str(refused)
    assert "between -0.5 and 1" in str(refused)


def test_the_estimate_names_the_measurements_it_leans_on_with_their_age(api, catalog):
    status, evaluation = evaluate(api)
    assert status == 200, evaluation
    nearest = evaluation["sizing"]["nearest_measurements"]
    assert nearest
    for row in nearest:
        published = date.fromisoformat(row["measured_on"])
        assert row["age_years"] == age_years(published) and row["software"]
    assert age_years(V41, today=date(2026, 8, 28)) == 2.0
    figures = [f for f in size_spec(SERVE_8B, Accelerator.objects.get(
        slug="h100-sxm-80gb")).figures() if f.name.startswith("nearest_measurement_")]
    assert figures and all("published 20" in f.unit and "years ago" in f.unit for f in figures)


def test_each_api_is_priced_at_the_fleets_own_tokens_kind_by_kind(api, catalog):
    quoted = {"name": "quoted API", "usd_per_million_input": "3",
              "usd_per_million_cached_input": "0.3", "usd_per_million_output": "15"}
    # A 3:1 input to output mix with half the input served from cache: 37.5 % input, 37.5 %
    # cached input, 25 % output.
    status, evaluation = evaluate(api, api_options=[quoted], token_input_share="0.375",
                                  token_cached_input_share="0.375", token_output_share="0.25")
    assert status == 200, evaluation
    tokens = evaluation["result"]["tokens_per_month"]
    (row,) = evaluation["api_at_fleet_tokens"]
    assert (row["api"], row["currency"]) == ("quoted API", "USD")
    kinds = {k["kind"]: k for k in row["kinds"]}
    for kind, share, price in (("input", 0.375, 3), ("cached input", 0.375, 0.3),
                               ("output", 0.25, 15)):
        assert_allclose(kinds[kind]["tokens_per_month"], tokens * share, rtol=1e-12)
        assert kinds[kind]["price_per_million"] == price
        assert_allclose(kinds[kind]["cost_per_month"], tokens * share / 1e6 * price, atol=0.006)
    # Per million tokens of the mix: 0.375 x 3 + 0.375 x 0.3 + 0.25 x 15 = $4.9875, the blend.
    assert_allclose(row["cost_per_month"], tokens / 1e6 * 4.9875, atol=0.02)
    assert_allclose(evaluation["result"]["api"][0]["blended_usd_per_million_tokens"], 4.9875)


def test_a_training_sizing_says_no_public_fine_tuning_price_was_found_and_prices_one_given(
        api, catalog):
    from catalog.models import TokenApiPrice

    training = {"mode": "training", "model": "llama-3.1-8b", "tokens": 2e9, "mfu": 0.4}
    status, evaluation = evaluate(api, sizing=training)
    assert status == 200, evaluation
    none_found = evaluation["sizing"]["fine_tuning_apis"]
    assert none_found["options"] == []
    assert none_found["note"].startswith("No public fine-tuning price per training token was "
                                         "found for Llama 3.1 8B")

    # A price a person enters for a host of the same model: 2e9 tokens x $0.50 per million.
    host = TokenApiPrice.objects.filter(serves_model="llama-3.1-8b", is_example=False).first()
    host.usd_per_million_training = "0.5"
    host.save()
    status, evaluation = evaluate(api, sizing=training)
    (option,) = evaluation["sizing"]["fine_tuning_apis"]["options"]
    assert option["api"] == f"{host.provider} {host.model_name}"
    assert option["cost_of_the_run"] == pytest.approx(2e9 / 1e6 * 0.5)
