"""The compiled kernel against the NumPy path and the month-by-month reference model.

Sweeps and Monte Carlo runs walk the months in the kernel (``costmodel.kernel``);
these tests hold it to the reference paths to 1e-9 relative on every numeric
input the engine declares, so an input added to ``costmodel.inputs`` is covered
without a change here.
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from numpy.testing import assert_array_equal

from costmodel import InputError
from costmodel import Scenario
from costmodel import get_input
from costmodel import input_metadata
from costmodel import numeric_input_paths
from costmodel import validate
from costmodel.compose import compute_result
from costmodel.overrides import with_overrides
from costmodel.reference import reference_evaluate
from costmodel.tests.agreement import assert_totals_agree
from costmodel.tests.scenarios import rich_scenario
from costmodel.tests.scenarios import scalar_scenarios

RTOL = 1e-9
POINTS_PER_INPUT = 64


def _assert_same_figures(compiled: object, expected: object, money_at_stake: np.ndarray) -> None:
    """Every per-scenario figure of two results, to RTOL of the money at stake; breakevens exactly."""

    def close(actual: object, wanted: object) -> None:
        actual, wanted = np.broadcast_arrays(actual, wanted)
        assert_array_equal(np.isnan(actual), np.isnan(wanted))
        error = np.abs(actual - wanted)[~np.isnan(wanted)]
        allowed = (RTOL * (np.abs(wanted) + money_at_stake))[~np.isnan(wanted)]
        assert (error <= allowed).all(), f"off by up to {np.max(error / allowed, initial=0.0):.3g} x allowed"

    for name in ("total_usd", "npv_usd", "cost_per_useful_accelerator_hour_usd"):
        close(getattr(compiled.buy, name), getattr(expected.buy, name))
    for option, wanted in zip(compiled.rent, expected.rent, strict=True):
        for name in ("total_usd", "npv_usd", "saving_usd", "npv_saving_usd", "breakeven_utilisation"):
            close(getattr(option, name), getattr(wanted, name))
        assert_array_equal(option.breakeven_month, wanted.breakeven_month)
        assert option.irr_per_year is None


def _sweep_values(base: Scenario, path: str, rng: np.random.Generator) -> np.ndarray:
    """Values of one input around its base value, inside its range.

    +/-20 % of a finite value, 0 to 1 from zero or "not given" (NaN), and large
    finite limits (1,000 to 10,000) in place of "no limit" (+inf).
    """
    value = float(get_input(base, path))
    metadata = input_metadata(base, path)
    if math.isinf(value):
        low, high = 1e3, 1e4
    elif math.isnan(value) or value == 0.0:
        low, high = 0.0, 1.0
    else:
        low, high = 0.8 * value, 1.2 * value
    values = rng.uniform(min(low, high), max(low, high), POINTS_PER_INPUT)
    if metadata["whole"]:
        values = np.rint(values)
    floor = np.nextafter(metadata["low"], np.inf) if metadata["low_open"] else metadata["low"]
    ceiling = np.nextafter(metadata["high"], -np.inf) if metadata["high_open"] else metadata["high"]
    return np.clip(values, floor, ceiling)


def _sweepable(base: Scenario, path: str, values: np.ndarray) -> bool:
    """Whether the scenario accepts these values (a reserved-only term on an on-demand offer does not)."""
    try:
        validate(with_overrides(base, {path: values}))
    except InputError:
        return False
    return True


def test_every_numeric_input_is_swept_by_the_test() -> None:
    base = rich_scenario()
    rng = np.random.default_rng(7)
    paths = numeric_input_paths(base)
    refused = [path for path in paths if not _sweepable(base, path, _sweep_values(base, path, rng))]
    # Only terms of other pricing models are refused, as validation says they must be, and the
    # token mix's shares, which must still sum to 1 when one of them moves alone.
    other_models_terms = {"commitment_months", "upfront_usd_per_instance", "spot_interruption_overhead",
                          "spot_interruptions_per_hour"}
    token_mix = {"input_share", "cached_input_share", "output_share"}
    assert all(path.split(".")[-1] in other_models_terms | token_mix for path in refused), refused
    assert len(refused) < len(paths) / 5


def _path_values(base: Scenario, path: str) -> np.ndarray:
    return _sweep_values(base, path, np.random.default_rng(zlib.crc32(path.encode())))


# The inputs the scenario accepts swept; the ones it refuses are checked by the test above.
SWEEPABLE_PATHS = [path for path in numeric_input_paths(rich_scenario())
                   if _sweepable(rich_scenario(), path, _path_values(rich_scenario(), path))]


@pytest.mark.parametrize("path", SWEEPABLE_PATHS)
def test_kernel_equals_the_numpy_path_when_one_input_is_swept(path: str) -> None:
    base = rich_scenario()
    values = _path_values(base, path)
    batch = with_overrides(base, {path: values})
    expected = compute_result(batch, detail=False, irr=False, compiled=False)
    compiled = compute_result(batch, detail=False)
    _assert_same_figures(compiled, expected, money_at_stake=np.abs(expected.buy.total_usd) + 1.0)


def test_kernel_equals_the_numpy_path_when_every_input_moves_at_once() -> None:
    base = rich_scenario()
    rng = np.random.default_rng(20240611)
    overrides = {}
    # Tier limits moved independently would cross; each is swept on its own above.
    for path in (path for path in numeric_input_paths(base) if not path.endswith("max_kw_per_rack")):
        values = _sweep_values(base, path, rng)
        if _sweepable(base, path, values):
            overrides[path] = values
    batch = with_overrides(base, overrides)
    expected = compute_result(batch, detail=False, irr=False, compiled=False)
    _assert_same_figures(
        compute_result(batch, detail=False), expected, money_at_stake=np.abs(expected.buy.total_usd) + 1.0
    )


def test_kernel_on_a_grid_keeps_the_grid_shape() -> None:
    utilisation, horizon = np.meshgrid([0.2, 0.9], [12.0, 37.0, 120.0], indexing="ij", sparse=True)
    axes = {"workload.utilisation": utilisation, "finance.horizon_months": horizon}
    grid = with_overrides(rich_scenario(), axes)
    compiled = compute_result(grid, detail=False)
    assert compiled.rent[0].breakeven_month.shape == (2, 3)
    expected = compute_result(grid, detail=False, irr=False, compiled=False)
    _assert_same_figures(compiled, expected, money_at_stake=np.abs(expected.buy.total_usd) + 1.0)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scalar_scenarios())
def test_kernel_matches_the_month_by_month_reference(scenario: Scenario) -> None:
    assert_totals_agree(compute_result(scenario, detail=False), reference_evaluate(scenario), RTOL)


def test_asking_for_monthly_detail_or_irr_from_the_kernel_is_refused() -> None:
    with pytest.raises(ValueError, match="neither detail nor IRR"):
        compute_result(rich_scenario(), detail=False, irr=True, compiled=True)


def test_one_scenario_alone_gives_the_figures_it_has_in_a_batch_to_the_cent() -> None:
    # One scenario takes the kernel's scalar path (its payment table built in one call); in a
    # batch each point's row is filled field by field. Every input moves across the batch.
    base = rich_scenario()
    rng = np.random.default_rng(30)
    overrides = {path: _sweep_values(base, path, rng)[:8] for path in (
        "workload.utilisation", "buy.system_price_usd", "facility.electricity_usd_per_kwh",
        "finance.discount_rate_per_year", "rent.0.price_usd_per_instance_hour")}
    batch = compute_result(with_overrides(base, overrides), detail=False)
    for point in range(8):
        alone = compute_result(with_overrides(base, {path: float(values[point]) for path, values in
                                                     overrides.items()}), detail=False)
        for name in ("total_usd", "npv_usd"):
            assert abs(float(getattr(alone.buy, name)) - float(getattr(batch.buy, name)[point])) < 0.005
        for option, in_batch in zip(alone.rent, batch.rent, strict=True):
            for name in ("total_usd", "npv_usd", "npv_saving_usd"):
                assert abs(float(getattr(option, name)) - float(getattr(in_batch, name)[point])) < 0.005
            assert_array_equal(option.breakeven_month, in_batch.breakeven_month[point])
