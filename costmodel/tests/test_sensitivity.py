"""One-at-a-time sensitivity and the recommendation built on it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from numpy.testing import assert_allclose
from numpy.testing import assert_array_equal

from costmodel import evaluate
from costmodel import one_at_a_time
from costmodel import sensitivity
from costmodel import sensitivity_paths
from costmodel import validate
from costmodel import with_overrides
from costmodel.compose import compute_result
from costmodel.compose import npv_saving_usd
from costmodel.recommend import recommendation
from costmodel.tests.scenarios import flat_scenario
from costmodel.tests.scenarios import rich_scenario
from costmodel.tests.scenarios import scalar_scenarios
from costmodel.vocabulary import sentence_labels

RENT_USD_PER_MONTH = 2_296_755.20  # flat_scenario at utilisation 1


def _half_busy_flat_scenario():
    scenario = flat_scenario()
    return replace(scenario, workload=replace(scenario.workload, utilisation=0.5))


def test_utilisation_moves_the_saving_by_the_rent_bill_it_scales() -> None:
    tornado = one_at_a_time(_half_busy_flat_scenario(), paths=["workload.utilisation"])
    (row,) = tornado.rows
    assert (row.low_value, row.high_value) == (0.45, 0.55)
    # buy is flat in utilisation (idle = max); rent is 36 x 2,296,755.20 x u, discount 0:
    # swing = 36 x 2,296,755.20 x 0.1 = 8,268,318.72
    assert_allclose(row.swing_usd, 36 * RENT_USD_PER_MONTH * 0.1)
    assert_allclose(row.saving_at_high_usd - row.saving_at_low_usd, 36 * RENT_USD_PER_MONTH * 0.1)


def test_rows_are_ranked_by_continuous_effect_largest_first() -> None:
    # Issue 23: rows were ranked by raw swing; an input that moves a whole count (here the
    # racks) is now ranked by its effect with the counts held, and says where the step is.
    tornado = one_at_a_time(rich_scenario())
    effects = [row.effect_usd for row in tornado.rows]
    assert effects == sorted(effects, reverse=True)
    assert len(tornado.rows) == len(sensitivity_paths(rich_scenario()))
    assert tornado.against == "spot"  # the cheapest other option by NPV is the default comparison
    for row in tornado.rows:
        assert (row.steps == ()) == (row.effect_usd == row.swing_usd)


def test_every_row_matches_moving_that_input_alone() -> None:
    scenario = rich_scenario()
    tornado = one_at_a_time(scenario, rent_option="on-demand")
    for row in tornado.rows[:5]:
        moved = evaluate(with_overrides(scenario, {row.path: row.high_value}), recommend=False)
        assert_allclose(moved.rent_option("on-demand").npv_saving_usd, row.saving_at_high_usd, rtol=1e-9)


def test_moves_are_clipped_to_the_valid_range() -> None:
    (row,) = one_at_a_time(flat_scenario(), paths=["workload.utilisation"]).rows
    # utilisation 1.0 cannot move up to 1.1
    assert (row.low_value, row.high_value) == (0.9, 1.0)


def test_whole_counts_and_definitions_are_not_moved_by_default() -> None:
    paths = sensitivity_paths(rich_scenario())
    assert "buy.system_price_usd" in paths
    assert "workload.utilisation" in paths
    left_out = (
        "buy.accelerators_per_system",
        "finance.horizon_months",
        "workload.hours_per_month",
        "cooling.0.max_kw_per_rack",
        "rent.1.commitment_months",
        "rent.0.commitment_months",  # zero: a share of it is no move
    )
    assert not set(left_out) & set(paths)


def test_sensitivity_needs_a_single_scenario() -> None:
    batch = with_overrides(rich_scenario(), {"workload.utilisation": np.array([0.5, 0.6])})
    with pytest.raises(ValueError, match="single scenario"):
        one_at_a_time(batch)


def test_the_recommendation_names_the_verdict_breakeven_and_top_movers() -> None:
    scenario = rich_scenario()
    result = evaluate(scenario, recommend=False)
    tornado = one_at_a_time(scenario, base=result)
    sentence = recommendation(evaluate(scenario, recommend=False).verdict, tornado,
                              rent_names=tuple(option.name for option in result.rent))
    assert sentence.count(".") >= 1 and sentence.endswith("change.")
    words = sentence_labels([row.path for row in tornado.rows[:3]],
                            rent_names=[option.name for option in result.rent])
    for row in tornado.rows[:3]:
        assert row.path not in sentence
        assert words[row.path] in sentence
    # Issue 23: the sentence opens with the verdict over every option; its breakeven is the
    # discounted one (the NPV's discounting), no longer the nominal month.
    verdict = evaluate(scenario).verdict
    option = result.rent_option(tornado.against)
    opening = "Buy is the cheapest" if option.npv_saving_usd > 0 else f"Rent {option.name} is the cheapest"
    assert sentence.startswith(opening)
    assert f"breaks even in month {int(verdict.breakeven_month)} (discounted)" in sentence


def test_idle_power_equal_to_max_is_moved_without_crossing_it():
    # A system costed at full draw (idle = max): +10 % idle would exceed max and be invalid.
    base = flat_scenario()
    inputs = with_overrides(base, {"buy.system_power_idle_kw": base.buy.system_power_max_kw})

    tornado = one_at_a_time(inputs, paths=["buy.system_power_idle_kw", "buy.system_power_max_kw"])

    rows = {row.path: row for row in tornado.rows}
    max_kw = float(base.buy.system_power_max_kw)
    assert rows["buy.system_power_idle_kw"].high_value == max_kw
    assert rows["buy.system_power_max_kw"].low_value == max_kw


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scalar_scenarios())
def test_every_move_is_a_valid_input_so_the_batch_skips_its_range_checks(scenario) -> None:
    # The sensitivity batch is evaluated without checking each input's range again
    # (ranges_checked=True); that holds only if every clipped move is itself valid.
    tornado = one_at_a_time(scenario)
    for row in tornado.rows:
        for value in (row.low_value, row.high_value):
            validate(with_overrides(scenario, {row.path: value}))


def test_the_savings_alone_equal_those_of_the_whole_result() -> None:
    scenario = rich_scenario()
    batch = with_overrides(scenario, {"workload.utilisation": np.array([0.3, 0.7, 0.95])})
    whole = compute_result(batch, detail=False)
    for index, option in enumerate(whole.rent):
        assert_array_equal(npv_saving_usd(batch, index), option.npv_saving_usd)


def test_the_batched_bisection_ends_where_one_halving_at_a_time_does() -> None:
    # Steps at 0.3 (rising from 0.1) and at 0.96875 (falling from 1.0): the batches probe whole
    # trees of midpoints, yet end on the very floats a plain bisection reaches.
    steps = np.array([0.3, 0.96875])
    near, far = np.array([0.1, 1.0]), np.array([0.5, 0.9])

    def keeps(probes: np.ndarray) -> np.ndarray:
        below = probes < steps[:, None]
        return np.where(near[:, None] < far[:, None], below, ~below)

    plain_near, plain_far = near.copy(), far.copy()
    for _ in range(sensitivity._BISECTIONS):
        middle = (plain_near + plain_far) / 2.0
        kept = keeps(middle[:, None])[:, 0]
        plain_near, plain_far = np.where(kept, middle, plain_near), np.where(kept, plain_far, middle)

    batched_near, batched_far = sensitivity._bisect(near, far, keeps)

    assert_array_equal(batched_near, plain_near)
    assert_array_equal(batched_far, plain_far)
    assert_allclose(batched_near, steps, atol=1e-9)
