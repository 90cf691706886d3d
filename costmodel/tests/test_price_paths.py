"""The strategies' Monte Carlo over price paths: reproducible by seed, the same whatever the
chunks, centred on the forward curve, and a drift fitted on a history recovered within its band."""

from __future__ import annotations

import datetime
import math
from dataclasses import replace

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from costmodel.price_paths import PriceModel
from costmodel.price_paths import around_forward
from costmodel.price_paths import fit_drift
from costmodel.price_paths import strategy_monte_carlo
from costmodel.strategies import evaluate_strategies
from costmodel.term_structure import TermPrice
from costmodel.term_structure import TermStructure
from costmodel.tests.test_strategies import _inputs

WITH_SPOT = TermStructure((TermPrice("spot", 1.40), TermPrice("on_demand", 2.50), TermPrice("12", 2.00)))


def _run(paths: int, seed: int, chunk_paths: int, model: PriceModel | None = None):
    return strategy_monte_carlo(
        _inputs(terms=WITH_SPOT),
        model or around_forward(0.4),
        paths=paths,
        seed=seed,
        chunk_paths=chunk_paths,
    )


def test_the_same_seed_gives_the_same_costs_whatever_the_chunks() -> None:
    whole = _run(5_000, seed=11, chunk_paths=5_000)
    assert_array_equal(_run(5_000, seed=11, chunk_paths=777).npv_usd, whole.npv_usd)
    # Path by path: the first 200 paths of a run are the same paths, costed one at a time.
    assert_array_equal(_run(200, seed=11, chunk_paths=1).npv_usd, whole.npv_usd[:, :200])
    assert_array_equal(_run(5_000, seed=11, chunk_paths=5_000).npv_usd, whole.npv_usd)
    assert not np.array_equal(_run(5_000, seed=12, chunk_paths=5_000).npv_usd, whole.npv_usd)


def test_without_volatility_every_path_costs_the_verdicts_figures() -> None:
    flat = _run(10, seed=1, chunk_paths=4, model=around_forward(0.0))
    verdict = evaluate_strategies(_inputs(terms=WITH_SPOT))
    for key, row in zip(flat.keys, flat.npv_usd, strict=True):
        assert np.round(row, 2).tolist() == [round(float(verdict.strategy(key).npv_usd), 2)] * 10
    # Spot for the hours used, 11,680 x $1.40 x 24 = $392,448.00, is cheapest on every path.
    assert flat.probability_cheapest["spot"] == 1.0
    assert round(float(flat.npv_usd[flat.keys.index("spot"), 0]), 2) == 392_448.00


def test_paths_around_the_forward_curve_cost_the_forward_on_average() -> None:
    # Each month's on-demand price is lognormal with its mean on the forward curve, so the mean
    # cost over paths is 11,680 x $2.50 x 24 = $700,800.00 within three standard errors.
    run = _run(20_000, seed=3, chunk_paths=4_096)
    on_demand = run.npv_usd[run.keys.index("on_demand")]
    error = on_demand.std() / math.sqrt(on_demand.size)
    assert abs(on_demand.mean() - 700_800.00) < 3 * error
    assert sum(run.probability_cheapest.values()) == pytest.approx(1.0)
    low, middle, high = run.percentiles()["on_demand"]
    assert low < middle < high
    assert run.percentiles()["buy_now"] == [pytest.approx(435_740.80)] * 3


def _history(drift: float, volatility: float, seed: int, months: int = 120):
    """Month-end prices from $8.00 moving by a known drift and volatility (dates 30 or 31 days apart)."""
    rng = np.random.default_rng(seed)
    days = [
        datetime.date(2016, 1, 1) + datetime.timedelta(days=round(m * 365.25 / 12)) for m in range(months + 1)
    ]
    years = np.diff([(day - days[0]).days for day in days]) / 365.25
    steps = drift * years + volatility * np.sqrt(years) * rng.standard_normal(months)
    return list(zip(days, 8.0 * np.exp(np.concatenate([[0.0], np.cumsum(steps)])), strict=True))


def test_a_fitted_drift_recovers_the_known_one_within_its_band() -> None:
    fit = fit_drift(_history(-0.25, 0.35, seed=0))
    low, high = fit.band_per_year
    assert low < -0.25 < high
    assert fit.volatility_per_sqrt_year == pytest.approx(0.35, rel=0.15)
    # The band is Student's t at 95 % on sigma / sqrt(10 years) (about 0.22 on each side).
    assert high - low == pytest.approx(
        2 * 1.98 * fit.volatility_per_sqrt_year / math.sqrt(fit.years), rel=0.01
    )
    # Over 1,000 histories the 95 % band holds the true drift about 95 % of the time.
    covered = [
        low < -0.25 < high
        for low, high in (fit_drift(_history(-0.25, 0.35, seed)).band_per_year for seed in range(1000))
    ]
    assert 0.93 <= np.mean(covered) <= 0.97
    assert fit.model().description.startswith(
        "Geometric Brownian motion fitted on 121 prices from 2016-01-01"
    )


def test_a_drift_needs_three_prices_on_distinct_dates() -> None:
    day = datetime.date(2026, 1, 1)
    with pytest.raises(ValueError, match="at least three prices on distinct dates"):
        fit_drift([(day, 2.0), (day, 2.1), (day + datetime.timedelta(days=30), 2.2)])


def test_a_fitted_model_starts_the_paths_at_todays_price() -> None:
    # Drift ln(1.1) a year and no volatility: on demand at $2.50 x 1.1^(m / 12) in month m + 1.
    model = replace(around_forward(0.0), log_drift_per_year=math.log(1.1), around_forward=False)
    run = _run(2, seed=0, chunk_paths=2, model=model)
    months = np.arange(24)
    expected = (11_680 * 2.50 * 1.1 ** (months / 12)).sum()
    assert run.npv_usd[run.keys.index("on_demand"), 0] == pytest.approx(expected, rel=1e-12)
