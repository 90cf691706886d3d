"""The exchange rate as an input: a sweep or a Monte Carlo run moves the rates the inputs given in
another currency were converted at, and only those inputs.

Worked by hand on ``flat_scenario`` (discount rate 0, so NPV = cash) for a team reporting in
euros whose cloud price is quoted in US dollars: buying costs 32 x 300,000 = 9,600,000 up front
and 32 x 10.2 kW x 730 h x 0.10 = 23,827.20 a month, 10,457,779.20 over 36 months, all in euros.
The rent option, converted from dollars, is 12.00 an instance-hour: 32 x 730 h x 12.00 x 36 =
10,091,520.00, so renting saves 366,259.20. Were the dollar 10 % dearer (a move of 1.1) renting
would cost 11,100,672.00 and buying save 642,892.80; 10 % cheaper (0.9), 9,082,368.00 and renting
save 1,375,411.20: a 10 % move of the rate turns the verdict.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from numpy.testing import assert_allclose

import costmodel as engine
from costmodel.tests.scenarios import flat_scenario
from tco.runs.compute import WINNER_COLUMN
from tco.runs.compute import monte_carlo_chunk_table
from tco.runs.compute import sweep_chunk_table
from tco.runs.snapshot import scenario_from_json
from tco.runs.snapshot import scenario_to_json
from tco.runs.specs import distribution_from_text
from tco.runs.specs import parse_monte_carlo_spec
from tco.runs.specs import parse_sweep_spec

MOVE = "exchange.rate_change"


@pytest.fixture
def eur_team_usd_cloud() -> engine.Scenario:
    case = flat_scenario()
    return replace(case, rent=(replace(case.rent[0], price_usd_per_instance_hour=12.0),),
                   exchange=engine.Exchange(converted=("rent.0.price_usd_per_instance_hour",)))


def test_a_10_percent_move_of_the_rate_scales_the_converted_price_and_turns_the_verdict(eur_team_usd_cloud):
    moved = engine.with_overrides(eur_team_usd_cloud, {MOVE: np.array([0.9, 1.0, 1.1])})
    result = engine.evaluate(moved, detail=False)
    assert_allclose(result.buy.total_usd, 10_457_779.20, atol=0.005)
    assert_allclose(result.rent[0].total_usd, [9_082_368.00, 10_091_520.00, 11_100_672.00], atol=0.005)
    assert_allclose(result.rent[0].npv_saving_usd, [-1_375_411.20, -366_259.20, 642_892.80], atol=0.005)


def test_an_input_in_the_reporting_currency_does_not_move(eur_team_usd_cloud):
    nothing_converted = replace(eur_team_usd_cloud, exchange=engine.Exchange())
    moved = engine.with_overrides(nothing_converted, {MOVE: 1.1})
    assert engine.evaluate(moved, detail=False).rent[0].total_usd == pytest.approx(10_091_520.00)


def test_a_sweep_over_the_rate_names_the_winner_at_each_point(eur_team_usd_cloud):
    spec = parse_sweep_spec({"axes": [{"path": MOVE, "values": [0.9, 1.0, 1.1]}]}, eur_team_usd_cloud)
    frame = sweep_chunk_table(eur_team_usd_cloud, spec, 0, 3).frame()
    assert list(frame[WINNER_COLUMN]) == ["on-demand", "on-demand", "buy"]


def test_a_monte_carlo_run_draws_the_rate_and_the_run_keeps_which_inputs_were_converted(eur_team_usd_cloud):
    stored = scenario_from_json(scenario_to_json(eur_team_usd_cloud))
    assert stored.exchange.converted == ("rent.0.price_usd_per_instance_hour",)
    spec = parse_monte_carlo_spec({"samples": 400, "distributions": [
        distribution_from_text("rate_change=uniform(0.9, 1.1)")]}, stored)
    frame = monte_carlo_chunk_table(stored, spec, 7, 0, 400).frame()
    buy_wins = frame[MOVE] > 10_457_779.20 / 10_091_520.00  # the move at which the two cost the same
    assert (frame[WINNER_COLUMN] == "buy").tolist() == buy_wins.tolist()
    assert 0 < buy_wins.sum() < 400


def test_the_sensitivity_run_moves_the_rate_only_when_something_was_converted(eur_team_usd_cloud):
    assert MOVE in engine.sensitivity_paths(eur_team_usd_cloud)
    assert MOVE not in engine.sensitivity_paths(replace(eur_team_usd_cloud, exchange=engine.Exchange()))
