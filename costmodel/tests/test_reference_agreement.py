"""The vectorised engine against the month-by-month reference implementation."""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import numpy_financial as npf
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from numpy.testing import assert_allclose
from numpy.testing import assert_array_equal

from costmodel import Scenario
from costmodel import evaluate
from costmodel import with_overrides
from costmodel.compose import compute_result
from costmodel.overrides import get_input
from costmodel.overrides import input_metadata
from costmodel.overrides import numeric_input_paths
from costmodel.reference import reference_evaluate
from costmodel.tests.agreement import assert_close
from costmodel.tests.agreement import assert_totals_agree
from costmodel.tests.agreement import money_at_stake
from costmodel.tests.scenarios import rich_scenario
from costmodel.tests.scenarios import scalar_scenarios

RTOL = 1e-6


_close = partial(assert_close, rtol=RTOL)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scalar_scenarios())
def test_engine_matches_reference_month_by_month(scenario: Scenario) -> None:
    result = evaluate(scenario, recommend=False)
    expected = reference_evaluate(scenario)
    assert_totals_agree(result, expected, RTOL)
    scale = money_at_stake(expected)

    footprint = expected["footprint"]
    for name in ("systems", "systems_per_rack", "racks", "cooling_tier_index", "needs_new_cooling"):
        assert getattr(result.footprint, name) == footprint[name], name
    for name in ("kw_per_rack", "it_kw_max", "it_kw_average", "facility_kw_average", "mwh_per_year"):
        assert_allclose(getattr(result.footprint, name), footprint[name], rtol=RTOL, err_msg=name)

    horizon = expected["horizon_months"]
    assert result.months.tolist() == list(range(horizon + 1))
    buy = result.buy
    assert buy.cash_flows.lines_usd.keys() == expected["buy"]["lines"].keys()
    for name, line in expected["buy"]["lines"].items():
        _close(buy.cash_flows.lines_usd[name], line, scale)
    for name, amount in expected["buy"]["capex_usd"].items():
        _close(buy.capex_usd[name], amount, scale)
    _close(buy.depreciation_line_usd, expected["buy"]["depreciation"], scale)
    _close(
        buy.cost_per_useful_accelerator_hour_usd, expected["buy"]["cost_per_useful_accelerator_hour_usd"], 0.0
    )
    assert_allclose(buy.goodput.share, expected["buy"]["goodput_share"], rtol=RTOL)
    assert_allclose(buy.carbon.tonnes_per_year, expected["buy"]["tonnes_per_year"], rtol=RTOL)
    assert_allclose(buy.carbon.embodied_tonnes, expected["buy"]["embodied_tonnes"], rtol=RTOL)

    for option, reference in zip(result.rent, expected["rent"], strict=True):
        rent_scale = scale + reference["total_usd"]
        assert option.name == reference["name"]
        for name, line in reference["lines"].items():
            _close(option.cash_flows.lines_usd[name], line, rent_scale)
        assert_allclose(
            option.breakeven_utilisation, reference["breakeven_utilisation"], atol=1e-6, equal_nan=True
        )
        _close(
            option.cost_per_useful_accelerator_hour_usd,
            reference["cost_per_useful_accelerator_hour_usd"],
            0.0,
        )
        assert_allclose(option.goodput.share, reference["goodput_share"], rtol=RTOL)
        assert_allclose(option.carbon.tonnes_per_year, reference["tonnes_per_year"], rtol=RTOL)


@settings(max_examples=60, deadline=None)
@given(scalar_scenarios())
def test_irr_matches_numpy_financial_on_model_cash_flows(scenario: Scenario) -> None:
    result = evaluate(scenario, recommend=False)
    reference = reference_evaluate(scenario, with_breakeven_utilisation=False)
    for option, expected in zip(result.rent, reference["rent"], strict=True):
        saving_flows = np.subtract(expected["flow"], reference["buy"]["flow"])
        expected_irr = npf.irr(saving_flows)
        # The engine brackets monthly rates in about (-0.99, 10]; npf.irr searches all.
        if not math.isnan(expected_irr) and -0.9 < expected_irr < 9.0:
            assert_allclose(option.irr_per_year, (1 + expected_irr) ** 12 - 1, rtol=1e-6, atol=1e-9)


def _random_batch(rng: np.random.Generator, base: Scenario, size: int) -> Scenario:
    """The base scenario with every non-zero continuous input drawn per scenario within +/-40 %."""
    overrides = {}
    for path in numeric_input_paths(base):
        value = float(get_input(base, path))
        metadata = input_metadata(base, path)
        fixed = metadata["whole"] or path.endswith("max_kw_per_rack") or path.startswith("tokens.")
        if fixed or not math.isfinite(value) or value == 0.0:
            continue  # counts, tier limits, the token mix (sums to 1) and zeros: the scalar test above
        low, high = sorted((value * 0.6, value * 1.4))
        low = max(low, metadata["low"])
        high = min(high, metadata["high"] * (0.99 if metadata["high_open"] else 1.0))
        overrides[path] = rng.uniform(low, high, size)
    return with_overrides(base, overrides)


def test_batch_of_1000_equals_scenarios_evaluated_one_at_a_time() -> None:
    rng = np.random.default_rng(20240611)
    base = rich_scenario()
    batch = _random_batch(rng, base, 1000)
    together = compute_result(batch, detail=False)
    for index in range(1000):
        single = with_overrides(
            batch, {path: np.asarray(get_input(batch, path))[index] for path in _array_paths(batch)}
        )
        alone = reference_evaluate(single, with_breakeven_utilisation=False)
        assert_allclose(together.buy.total_usd[index], alone["buy"]["total_usd"], rtol=RTOL)
        assert_allclose(together.buy.npv_usd[index], alone["buy"]["npv_usd"], rtol=RTOL)
        for option, expected in zip(together.rent, alone["rent"], strict=True):
            assert_allclose(option.total_usd[index], expected["total_usd"], rtol=RTOL)
            assert_allclose(option.npv_saving_usd[index], expected["npv_saving_usd"], rtol=RTOL, atol=1e-3)
            assert_array_equal(option.breakeven_month[index], expected["breakeven_month"])


def _array_paths(batch: Scenario) -> list[str]:
    return [path for path in numeric_input_paths(batch) if np.ndim(get_input(batch, path)) == 1]
