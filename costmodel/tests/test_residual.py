"""Resale value curves, the next generation's launch, and the book value beside them."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from numpy.testing import assert_allclose

from costmodel import InputError
from costmodel import evaluate
from costmodel import with_overrides
from costmodel.tests.scenarios import flat_scenario

SYSTEMS_USD = 9_600_000.0  # 32 x $300,000


def _buy(**changes):
    return replace(flat_scenario().buy, **changes)


def test_a_flat_curve_equals_the_single_residual_share_to_the_cent() -> None:
    single = evaluate(flat_scenario(buy=_buy(residual_value_share=0.3)), recommend=False)
    curve = evaluate(flat_scenario(buy=_buy(residual_curve=((0, 0.3), (120, 0.3)))), recommend=False)
    assert round(float(curve.buy.total_usd), 2) == round(float(single.buy.total_usd), 2)
    assert round(float(curve.buy.npv_usd), 2) == round(float(single.buy.npv_usd), 2)
    assert float(curve.buy.cash_flows.lines_usd["residual_value"][36]) == -0.3 * SYSTEMS_USD


def test_curve_is_interpolated_at_the_horizon_and_book_value_is_straight_line() -> None:
    # 36 months between (24, 0.5) and (48, 0.2): 0.35; book value 9.6M x (1 - 36/60) = 3.84M.
    result = evaluate(flat_scenario(buy=_buy(residual_curve=((0, 0.8), (24, 0.5), (48, 0.2)))),
                      recommend=False)
    assert_allclose(result.buy.residual.resale_share, 0.35)
    assert_allclose(result.buy.residual.resale_value_usd, 0.35 * SYSTEMS_USD)
    assert_allclose(result.buy.residual.book_value_usd, SYSTEMS_USD * (1 - 36 / 60))


def test_decline_rate_and_next_generation_drop() -> None:
    buy = _buy(residual_decline_per_year=0.25, next_generation_launch_month=30.0,
               next_generation_value_drop=0.2)
    result = evaluate(flat_scenario(buy=buy), recommend=False)
    assert_allclose(result.buy.residual.resale_share, 0.75**3 * 0.8)


def test_a_sweep_over_the_launch_month() -> None:
    buy = _buy(residual_decline_per_year=0.25, next_generation_value_drop=0.2)
    batch = with_overrides(flat_scenario(buy=buy),
                           {"buy.next_generation_launch_month": np.array([12.0, 36.0, 37.0, 60.0])})
    result = evaluate(batch, recommend=False, detail=False)
    assert_allclose(result.buy.residual.resale_share, 0.75**3 * np.array([0.8, 0.8, 1.0, 1.0]))
    # A later launch leaves more resale value: buying costs less.
    assert result.buy.total_usd[0] > result.buy.total_usd[3]


def test_a_rising_curve_is_refused() -> None:
    with pytest.raises(InputError, match="cannot rise") as error:
        evaluate(flat_scenario(buy=_buy(residual_curve=((0, 0.5), (12, 0.6)))), recommend=False)
    assert error.value.path == "buy.residual_curve"


@pytest.mark.parametrize("curve", [((12, 0.5), (6, 0.4)), ((0, 1.2), (12, 0.4)), ((-1, 0.5),)])
def test_a_malformed_curve_is_refused(curve) -> None:
    with pytest.raises(InputError) as error:
        evaluate(flat_scenario(buy=_buy(residual_curve=curve)), recommend=False)
    assert error.value.path == "buy.residual_curve"
