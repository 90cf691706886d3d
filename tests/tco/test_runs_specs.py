"""Run specs: axes, distributions and sensitivity steps parsed, checked and refused with reasons."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from numpy.testing import assert_array_equal

from costmodel.tests.scenarios import flat_scenario
from costmodel.tests.scenarios import rich_scenario
from tco.runs.compute import BUY_COST_COLUMN
from tco.runs.compute import WINNER_COLUMN
from tco.runs.compute import monte_carlo_chunk_table
from tco.runs.compute import option_column
from tco.runs.compute import winners_and_margins
from tco.runs.distributions import LogNormal
from tco.runs.distributions import Normal
from tco.runs.distributions import monte_carlo_draws
from tco.runs.errors import RunSpecError
from tco.runs.limits import RNG_BLOCK_POINTS
from tco.runs.limits import chunk_points_for
from tco.runs.snapshot import scenario_from_json
from tco.runs.snapshot import scenario_to_json
from tco.runs.specs import axis_from_text
from tco.runs.specs import distribution_from_text
from tco.runs.specs import parse_monte_carlo_spec
from tco.runs.specs import parse_sensitivity_spec
from tco.runs.specs import parse_sweep_spec


@pytest.fixture
def base():
    return flat_scenario()


def refusal(parse, raw, inputs, **kwargs) -> RunSpecError:
    with pytest.raises(RunSpecError) as caught:
        parse(raw, inputs, **kwargs)
    return caught.value


def test_an_axis_can_be_a_list_a_range_with_a_step_or_a_count_between_bounds(base):
    spec = parse_sweep_spec({"axes": [
        axis_from_text("utilisation=0.4,0.55,0.7"),
        axis_from_text("facility.pue=1.1:1.5:0.1"),
        axis_from_text("buy.system_price_usd=200000:400000@5"),
    ]}, base)

    assert spec.shape == (3, 5, 5)
    assert spec.points_total == 75
    paths = [axis.path for axis in spec.axes]
    assert paths == ["workload.utilisation", "facility.pue", "buy.system_price_usd"]
    # The stop 1.5 lands on the 4th step from 1.1 (within rounding), so it is included.
    assert_allclose(spec.axes[1].values, [1.1, 1.2, 1.3, 1.4, 1.5])
    assert_allclose(spec.axes[2].values, [200_000, 250_000, 300_000, 350_000, 400_000])
    assert spec.to_json()["axes"][1] == {"path": "facility.pue", "start": 1.1, "stop": 1.5, "step": 0.1}


def test_grid_points_come_from_flat_indices_in_c_order(base):
    spec = parse_sweep_spec({"axes": [axis_from_text("utilisation=0.4,0.7"),
                                      axis_from_text("facility.pue=1,1.2,1.4")]}, base)

    values = spec.overrides(2, 5)

    # Flat index 2 = (0, 2), 3 = (1, 0), 4 = (1, 1) in a 2 x 3 grid.
    assert_allclose(values["workload.utilisation"], [0.4, 0.7, 0.7])
    assert_allclose(values["facility.pue"], [1.4, 1.0, 1.2])


def test_it_refuses_an_axis_over_an_input_that_does_not_exist(base):
    error = refusal(parse_sweep_spec, {"axes": [{"path": "workload.gpus", "values": [1]}]}, base)

    assert error.field == "axes[0].path"
    assert "not a numeric input" in error.message


def test_it_refuses_an_axis_over_an_input_that_is_not_numeric(base):
    error = refusal(parse_sweep_spec, {"axes": [{"path": "rent.0.pricing_model", "values": [1]}]}, base)

    assert error.field == "axes[0].path"
    assert "not a numeric input" in error.message


def test_it_refuses_a_grid_over_five_million_points(base):
    raw = {"axes": [axis_from_text("utilisation=0.0001:1@2000"),
                    axis_from_text("electricity_usd_per_kwh=0.01:1@2500")]}

    error = refusal(parse_sweep_spec, raw, base)

    assert error.field == "axes"
    assert error.message == "the grid has 5,000,000 points (2,000 x 2,500); the limit is 1,000,000"


def test_it_refuses_a_huge_range_before_building_it(base):
    error = refusal(parse_sweep_spec, {"axes": [axis_from_text("system_price_usd=1:1e12:1")]}, base)

    assert error.field == "axes[0]"
    assert "the limit is 1,000,000" in error.message


def test_it_refuses_axis_values_outside_the_inputs_valid_range(base):
    error = refusal(parse_sweep_spec, {"axes": [axis_from_text("utilisation=0.5,1.2")]}, base)

    assert error.field == "axes[0]"
    assert error.message == "workload.utilisation: must be in [0.0, 1.0]"


def test_it_refuses_axes_that_break_a_rule_between_inputs_without_building_the_grid():
    inputs = rich_scenario()  # idle 3 kW, max 10.2 kW: each axis is fine on its own
    raw = {"axes": [axis_from_text("system_power_idle_kw=2,8"), axis_from_text("system_power_max_kw=7,20")]}

    error = refusal(parse_sweep_spec, raw, inputs)

    # Idle 8 kW with max 7 kW is one grid point that cannot be evaluated.
    assert error.field == "axes"
    assert "must not exceed buy.system_power_max_kw" in error.message


def test_it_refuses_an_ambiguous_short_name():
    inputs = rich_scenario()

    error = refusal(parse_sweep_spec, {"axes": [axis_from_text("price_usd_per_instance_hour=1,2")]}, inputs)

    assert "ambiguous" in error.message
    assert "rent.0.price_usd_per_instance_hour" in error.message


@pytest.mark.parametrize(("axis", "field", "reason"), [
    ({"path": "utilisation", "start": 0.1, "stop": 0.9, "step": 0}, "axes[0].step", "must be positive"),
    ({"path": "utilisation", "start": 0.9, "stop": 0.1, "step": 0.1}, "axes[0].stop", "must not be below"),
    ({"path": "utilisation", "start": 0.2, "stop": 1.0, "step": 50}, "axes[0].step",
     "50 is more than the range from 0.2 to 1, which would hold 0.2 alone"),
    ({"path": "utilisation", "low": 0.9, "high": 0.1, "count": 3}, "axes[0].low", "must be below high"),
    ({"path": "utilisation", "values": []}, "axes[0].values", "non-empty"),
    ({"path": "utilisation", "values": [0.5], "step": 1}, "axes[0]", "exactly one of"),
    ({"path": "utilisation", "values": ["half"]}, "axes[0].values[0]", "must be a number"),
])
def test_it_refuses_malformed_axes_naming_the_field(base, axis, field, reason):
    error = refusal(parse_sweep_spec, {"axes": [axis]}, base)

    assert error.field == field
    assert reason in error.message


def test_it_refuses_the_same_axis_twice(base):
    raw = {"axes": [axis_from_text("utilisation=0.5"), axis_from_text("workload.utilisation=0.6")]}

    assert refusal(parse_sweep_spec, raw, base).message == "workload.utilisation given more than once"


def test_distributions_parse_from_text_and_json(base):
    spec = parse_monte_carlo_spec({"samples": 1000, "distributions": [
        distribution_from_text("utilisation=triangular(0.4, 0.6, 0.9)"),
        distribution_from_text("electricity_usd_per_kwh=normal(0.1,0.02,0.05,0.2)"),
        distribution_from_text("system_price_usd=lognormal(300000,0.1)"),
        {"path": "rent.0.price_usd_per_instance_hour", "kind": "uniform", "low": 80, "high": 110},
    ]}, base)

    assert list(spec.distributions) == ["workload.utilisation", "facility.electricity_usd_per_kwh",
                                        "buy.system_price_usd", "rent.0.price_usd_per_instance_hour"]
    assert spec.distributions["facility.electricity_usd_per_kwh"] == Normal(0.1, 0.02, 0.05, 0.2)
    assert spec.distributions["buy.system_price_usd"] == LogNormal(300_000, 0.1)
    assert spec.to_json()["distributions"][2] == {
        "path": "buy.system_price_usd", "kind": "lognormal", "median": 300_000, "sigma": 0.1, "low": 0.0}


@pytest.mark.parametrize(("distribution", "field", "reason"), [
    ({"kind": "uniform", "low": 0.9, "high": 0.2}, "distributions[0].low",
     "low (0.9) must be below high (0.2)"),
    ({"kind": "normal", "mean": 0.5, "sd": -0.1, "low": 0, "high": 1}, "distributions[0].sd",
     "the standard deviation must be positive, got -0.1"),
    ({"kind": "triangular", "low": 0.2, "mode": 0.95, "high": 0.9}, "distributions[0].mode",
     "must lie between"),
    ({"kind": "normal", "mean": 0.1, "sd": 0.01, "low": 0.9, "high": 1}, "distributions[0]", "keep only"),
    ({"kind": "lognormal", "median": 0.5, "sigma": 0.2}, "distributions[0].high", "unbounded above"),
    ({"kind": "uniform", "low": 0.5, "high": 1.5}, "distributions[0]", "must be in [0.0, 1.0]"),
    ({"kind": "beta", "low": 0.5, "high": 1.5}, "distributions[0].kind", "must be one of"),
])
def test_it_refuses_distributions_that_cannot_be_drawn_or_leave_the_inputs_range(base, distribution, field,
                                                                                 reason):
    raw = {"samples": 100, "distributions": [{"path": "workload.utilisation", **distribution}]}

    error = refusal(parse_monte_carlo_spec, raw, base)

    assert error.field == field
    assert reason in error.message


def test_it_refuses_more_samples_than_the_limit(base):
    raw = {"samples": 5_000_000, "distributions": [distribution_from_text("utilisation=uniform(0.2,0.9)")]}

    error = refusal(parse_monte_carlo_spec, raw, base)

    assert (error.field, error.message) == ("samples", "must be between 1 and 1,000,000, got 5,000,000")


def test_truncated_draws_stay_inside_their_bounds():
    rng = np.random.default_rng(1)

    draws = Normal(mean=0.5, sd=0.5, low=0.4, high=0.6).sample(rng, 10_000)

    assert draws.min() >= 0.4
    assert draws.max() <= 0.6


def test_monte_carlo_draws_do_not_depend_on_chunking(base):
    spec = parse_monte_carlo_spec({"samples": 20_000, "distributions": [
        distribution_from_text("utilisation=triangular(0.4,0.6,0.9)"),
        distribution_from_text("electricity_usd_per_kwh=normal(0.1,0.03,0.02,0.2)"),
    ]}, base)
    whole = monte_carlo_draws(spec.distributions, 42, 0, 20_000)

    pieces = [monte_carlo_draws(spec.distributions, 42, start, min(start + RNG_BLOCK_POINTS, 20_000))
              for start in range(0, 20_000, RNG_BLOCK_POINTS)]

    for path in spec.distributions:
        assert_array_equal(np.concatenate([piece[path] for piece in pieces]), whole[path])


def test_a_different_seed_gives_different_draws(base):
    spec = parse_monte_carlo_spec({"samples": 100, "distributions": [
        distribution_from_text("utilisation=uniform(0.2,0.9)")]}, base)

    first = monte_carlo_draws(spec.distributions, 1, 0, 100)["workload.utilisation"]
    second = monte_carlo_draws(spec.distributions, 2, 0, 100)["workload.utilisation"]

    assert not np.array_equal(first, second)


def test_a_monte_carlo_chunk_matches_the_engine_on_its_draws(base):
    import costmodel as engine

    spec = parse_monte_carlo_spec({"samples": 500, "distributions": [
        distribution_from_text("utilisation=uniform(0.2,0.9)")]}, base)

    frame = monte_carlo_chunk_table(base, spec, 7, 0, 500).frame()

    utilisation = frame["workload.utilisation"].to_numpy()
    direct = engine.evaluate(engine.with_overrides(base, {"workload.utilisation": utilisation}), detail=False)
    assert_allclose(frame[option_column("on-demand", "npv_saving_usd")], direct.rent[0].npv_saving_usd)
    assert_allclose(frame[BUY_COST_COLUMN], direct.buy.cost_per_useful_accelerator_hour_usd)
    expected_winner = np.where(direct.rent[0].npv_saving_usd > 0, "buy", "on-demand")
    assert_array_equal(frame[WINNER_COLUMN].astype(str), expected_winner)
    assert_array_equal(frame["point"], np.arange(500))


def test_sensitivity_spec_checks_its_step_and_rent_option(base):
    assert parse_sensitivity_spec({"step_share": 0.2}, base).step_share == 0.2
    assert refusal(parse_sensitivity_spec, {"step_share": 1.5}, base).field == "step_share"
    unknown = refusal(parse_sensitivity_spec, {"rent_option": "gcp"}, base)
    assert unknown.message.startswith("no rent option 'gcp'")


def test_the_snapshot_round_trips_nan_and_infinity():
    inputs = rich_scenario()

    stored = scenario_to_json(inputs)

    assert scenario_from_json(stored) == inputs
    assert stored["cooling"][-1]["max_kw_per_rack"] == "inf"  # jsonb has no infinity


def test_chunks_fit_the_memory_budget_and_whole_rng_blocks():
    # 268,435,456 B / (512 B + 40 rent options x 256 B) = 25,098 points -> 3 blocks of 8,192.
    assert chunk_points_for(40, align=RNG_BLOCK_POINTS) == 24_576
    # 268,435,456 B / (512 B + 20 x 256 B) = 47,662 points.
    assert chunk_points_for(20) == 47_662
    # 268,435,456 B / (512 B + 3 x 256 B) = 209,715 points.
    assert chunk_points_for(3) == 209_715
    # One rent option stops at the upper bound (the budget would allow 349,525 points).
    assert chunk_points_for(1) == 262_144
    # A run is cut into 4 chunks per worker process, 1,000,000 / (2 x 4) points each.
    assert chunk_points_for(3, points=1_000_000, workers=2) == 125_000


def test_winner_names_the_cheapest_rent_option_when_buying_loses():
    inputs = rich_scenario()
    spec = parse_monte_carlo_spec({"samples": 300, "distributions": [
        distribution_from_text("utilisation=uniform(0.05,1)")]}, inputs)

    frame = monte_carlo_chunk_table(inputs, spec, 3, 0, 300).frame()

    names = [option.name for option in inputs.rent]
    savings = frame[[option_column(name, "npv_saving_usd") for name in names]].to_numpy()
    cheapest = np.array(names)[savings.argmin(axis=1)]
    expected = np.where(savings.min(axis=1) > 0, "buy", cheapest)
    assert_array_equal(frame[WINNER_COLUMN].astype(str), expected)
    assert isinstance(frame[WINNER_COLUMN].dtype, pd.CategoricalDtype)


def test_the_winner_and_its_margin_of_each_point_by_hand():
    # NPVs of buying, two rent options and a per-token API, a row each, at six points; NaN is
    # an API above its rate limit (left out, as the verdict leaves it out).
    npvs = np.array([
        [100.0, 100.0, 50.0, 10.0, 100.0, np.nan],
        [120.0, 90.0, 50.0, 20.0, np.nan, np.nan],
        [130.0, 80.0, 60.0, 30.0, np.nan, np.nan],
        [90.0, np.nan, 70.0, 5.0, np.nan, 7.0],
    ])
    winner, margin = np.full(6, -1, dtype=np.int8), np.zeros(6)

    winners_and_margins(npvs, winner, margin)

    # The cheapest wins, the first of equals (buying before renting); the margin is the next
    # cheapest less the winner; alone, or with nothing ranked, no margin.
    assert winner.tolist() == [3, 2, 0, 3, 0, 3]
    assert_array_equal(margin, [10.0, 10.0, 0.0, 5.0, np.nan, np.nan])
    # Buying alone: buying, no margin.
    alone, alone_margin = np.full(2, -1, dtype=np.int8), np.zeros(2)
    winners_and_margins(np.array([[5.0, 6.0]]), alone, alone_margin)
    assert alone.tolist() == [0, 0] and np.isnan(alone_margin).all()
