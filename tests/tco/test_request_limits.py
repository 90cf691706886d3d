"""Every request's work is bounded: oversized input is refused early with a 400 naming the limit."""
from __future__ import annotations

import json

import pytest

from costmodel import MAX_HORIZON_MONTHS
from costmodel import MAX_RENT_OPTIONS
from tco.models import SweepRun
from tco.runs.limits import MAX_DISTRIBUTIONS
from tco.runs.limits import MAX_SWEEP_AXES
from tests.tco.scenario_body import p5
from tests.tco.scenario_body import scenario_body

pytestmark = pytest.mark.django_db

PRICE = "rent.0.price_usd_per_instance_hour"


def start_run(api, scenario, kind, spec):
    return api.post("/api/v1/runs/", {"scenario": scenario.pk, "kind": kind, "spec": spec},
                    content_type="application/json")


def test_evaluate_refuses_more_rent_options_than_the_limit(api, catalog):
    options = [{"name": f"option {i}", "offering": p5().pk, "price_usd_per_instance_hour": "50"}
               for i in range(MAX_RENT_OPTIONS + 1)]

    response = api.post(
        "/api/v1/evaluate/", scenario_body(rent_options=options), content_type="application/json"
    )

    assert response.status_code == 400
    assert response.json() == {"rent_options": {"non_field_errors": [
        f"Ensure this field has no more than {MAX_RENT_OPTIONS} elements."]}}


def test_the_engine_refuses_more_rent_options_than_the_limit_for_commands_too():
    from dataclasses import replace

    import costmodel as engine
    from costmodel.tests.scenarios import flat_scenario

    scenario = flat_scenario()
    many = tuple(replace(scenario.rent[0], name=f"option {i}") for i in range(MAX_RENT_OPTIONS + 1))

    with pytest.raises(engine.InputError, match=f"51 rent options; the limit is {MAX_RENT_OPTIONS}"):
        engine.validate(replace(scenario, rent=many))


def test_sensitivity_refuses_100000_repeated_paths_by_their_count(api, run_scenario):
    response = start_run(api, run_scenario, "sensitivity", {"paths": ["utilisation"] * 100_000})

    assert response.status_code == 400
    message = response.json()["spec"]["paths"][0]
    assert message.startswith("100,000 paths; this scenario has ")


def test_sensitivity_names_repeated_paths_once(api, run_scenario):
    response = start_run(api, run_scenario, "sensitivity", {"paths": ["utilisation", PRICE, "utilisation"]})

    assert response.json() == {"spec": {"paths": ["workload.utilisation given more than once"]}}


def test_a_sweep_refuses_more_axes_than_the_limit(api, run_scenario):
    axes = [{"path": "utilisation", "values": [0.5]}] * (MAX_SWEEP_AXES + 1)

    response = start_run(api, run_scenario, "sweep", {"axes": axes})

    assert response.json() == {"spec": {"axes": [f"11 axes; the limit is {MAX_SWEEP_AXES}"]}}


def test_a_range_with_a_subnormal_step_is_refused_not_an_overflow(api, run_scenario):
    spec = {"axes": [{"path": "utilisation", "start": 0.1, "stop": 0.9, "step": 5e-324}]}

    response = start_run(api, run_scenario, "sweep", spec)

    assert response.status_code == 400
    assert response.json() == {"spec": {"axes[0]": [
        "the range has over 1,000,000 values; the limit is 1,000,000"]}}
    assert SweepRun.objects.count() == 0


def test_a_horizon_axis_stops_at_the_scenario_cap(api, run_scenario):
    spec = {"axes": [{"path": "finance.horizon_months", "values": [36, 10**15]}]}

    response = start_run(api, run_scenario, "sweep", spec)

    assert response.json() == {"spec": {"axes[0]": [
        f"finance.horizon_months: must be in [1.0, {MAX_HORIZON_MONTHS}]"]}}


@pytest.mark.parametrize(
    ("distribution", "key", "error"),
    [
        pytest.param({"path": PRICE, "kind": "lognormal", "median": 50, "sigma": 1000},
                     "distributions[0]", "must be finite", id="a lognormal whose draws overflow"),
        pytest.param({"path": PRICE, "kind": "uniform", "low": 1, "high": 1e306},
                     "distributions", "costs are not finite numbers", id="prices whose costs are not finite"),
    ],
)
def test_monte_carlo_refuses_draws_that_are_not_finite(api, run_scenario, distribution, key, error):
    spec = {"samples": 1000, "distributions": [distribution]}

    response = start_run(api, run_scenario, "monte_carlo", spec)

    assert response.status_code == 400
    assert error in response.json()["spec"][key][0]


def test_monte_carlo_refuses_more_distributions_than_the_limit(api, run_scenario):
    spec = {"samples": 100, "distributions": [{"path": "utilisation", "kind": "uniform", "low": 0.1,
                                               "high": 0.9}] * (MAX_DISTRIBUTIONS + 1)}

    response = start_run(api, run_scenario, "monte_carlo", spec)

    assert response.json() == {"spec": {"distributions": [
        f"11 distributions; the limit is {MAX_DISTRIBUTIONS}"]}}


def test_json_nested_1000_deep_is_a_400_naming_the_limit(api, run_scenario):
    deep = "[" * 1000 + "]" * 1000

    response = api.post("/api/v1/evaluate/", deep, content_type="application/json")

    assert response.status_code == 400
    assert response.json() == {"detail": "JSON nested too deeply; the limit is 20 levels"}


def test_json_nested_just_past_the_limit_is_refused_before_any_view_code(api, run_scenario):
    spec = json.loads('{"a":' * 20 + "1" + "}" * 20)

    response = start_run(api, run_scenario, "sweep", spec)

    assert response.json() == {"detail": "JSON nested too deeply; the limit is 20 levels"}
