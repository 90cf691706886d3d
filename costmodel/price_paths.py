"""Rental price paths for the strategies' Monte Carlo: geometric Brownian motion, fitted or forward.

The model: the logarithm of a rental price moves as a Brownian motion with drift, so over dt years
ln(p(t + dt) / p(t)) ~ Normal(mu dt, sigma^2 dt). Every term moves by the same draw (one market:
on-demand and term prices of an accelerator rise and fall together); a contract starting at
month m is priced at its term's base price of that month times the path's factor at m.

Two ways to set mu and sigma:

* ``fit_drift`` on a price history (the catalog's own, or an imported curve's): by maximum
  likelihood, which for unevenly spaced dates is mu = (total log change) / (total years), and
  sigma^2 = sum of (r_i - mu dt_i)^2 / dt_i over n - 1 (the unbiased estimate); mu's standard
  error is sigma / sqrt(years), its band Student's t at 95 % with n - 1 degrees of freedom. The
  paths start at today's price of each term.
* ``around_forward``: the imported forward curve is the base of each month and the paths spread
  around it by a volatility, with mu = -sigma^2 / 2 so that each month's expected price is the
  forward price.

Draws are made in fixed blocks of ``PATH_BLOCK`` paths, block b from the seed sequence (seed, b):
path p is the same number whatever chunks the paths are costed in, and the same run again.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from costmodel.strategies import StrategyBook
from costmodel.strategies import StrategyInputs
from costmodel.strategies import StrategyPrices
from costmodel.strategies import summed
from costmodel.timeline import MONTHS_PER_YEAR

PATH_BLOCK = 1024
DAYS_PER_YEAR = 365.25
CONFIDENCE = 0.95


@dataclass(frozen=True)
class PriceModel:
    """Geometric Brownian motion of rental prices: log drift [1/year] and volatility [1/sqrt(year)];
    ``around_forward``: the paths' base is the forward curve, else today's prices."""

    log_drift_per_year: float
    volatility_per_sqrt_year: float
    around_forward: bool
    description: str


@dataclass(frozen=True)
class DriftFit:
    """A geometric Brownian motion fitted on a price history, with the band of its drift."""

    log_drift_per_year: float
    standard_error_per_year: float
    band_per_year: tuple[float, float]
    volatility_per_sqrt_year: float
    returns: int
    years: float
    first: datetime.date
    last: datetime.date

    def model(self) -> PriceModel:
        low, high = self.band_per_year
        words = (
            f"Geometric Brownian motion fitted on {self.returns + 1} prices "
            f"from {self.first} to {self.last}: log drift {self.log_drift_per_year:+.1%} a year "
            f"({CONFIDENCE:.0%} band {low:+.1%} to {high:+.1%}), "
            f"volatility {self.volatility_per_sqrt_year:.1%} a year"
        )
        return PriceModel(self.log_drift_per_year, self.volatility_per_sqrt_year, False, words)

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": "geometric Brownian motion",
            "log_drift_per_year": self.log_drift_per_year,
            "standard_error_per_year": self.standard_error_per_year,
            "band_per_year": list(self.band_per_year),
            "confidence": CONFIDENCE,
            "volatility_per_sqrt_year": self.volatility_per_sqrt_year,
            "prices": self.returns + 1,
            "first": self.first.isoformat(),
            "last": self.last.isoformat(),
        }


def fit_drift(history: Sequence[tuple[datetime.date, float]]) -> DriftFit:
    """Fit mu and sigma on (date, price) observations (at least three, on distinct dates).

    Examples
    --------
    Prices halving every 182 days, exactly: a quarter left after 364 days (0.9966 years), drift
    ln(0.25) / 0.9966 = -139.1 % a year, and no volatility.

    >>> days = [datetime.date(2025, 1, 1), datetime.date(2025, 7, 2), datetime.date(2025, 12, 31)]
    >>> fit = fit_drift([(days[0], 8.0), (days[1], 4.0), (days[2], 2.0)])
    >>> round(fit.log_drift_per_year, 3), round(fit.volatility_per_sqrt_year, 6)
    (-1.391, 0.0)
    """
    points = sorted(history)
    if len(points) < 3 or len({day for day, _ in points}) < len(points):
        raise ValueError("a drift needs at least three prices on distinct dates")
    days = np.array([(day - points[0][0]).days for day, _ in points], dtype=np.float64)
    prices = np.array([price for _, price in points], dtype=np.float64)
    if np.any(prices <= 0):
        raise ValueError("prices must be positive to fit a drift on their logarithm")
    dt = np.diff(days) / DAYS_PER_YEAR
    returns = np.diff(np.log(prices))
    years = float(dt.sum())
    drift = float(returns.sum() / years)
    # n - 1: one degree of freedom went into the drift (the unbiased variance, for the t band).
    volatility = math.sqrt(float(np.sum((returns - drift * dt) ** 2 / dt)) / (returns.size - 1))
    error = volatility / math.sqrt(years)
    half = float(stats.t.ppf(0.5 + CONFIDENCE / 2, returns.size - 1)) * error
    return DriftFit(
        drift,
        error,
        (drift - half, drift + half),
        volatility,
        returns.size,
        years,
        points[0][0],
        points[-1][0],
    )


def around_forward(volatility_per_sqrt_year: float, source: str = "the imported forward curve") -> PriceModel:
    """Paths spread around the forward curve by a volatility, each month's mean on the curve."""
    words = f"{source}, spread by a volatility of {volatility_per_sqrt_year:.1%} a year (lognormal)"
    return PriceModel(-(volatility_per_sqrt_year**2) / 2, volatility_per_sqrt_year, True, words)


def price_factors(
    model: PriceModel, horizon_months: int, first_path: int, paths: int, seed: int
) -> NDArray[np.float64]:
    """Each path's price factor at months 0..H (1 at month 0), for paths first_path .. + paths."""
    dt = 1.0 / MONTHS_PER_YEAR
    first_block, last_block = first_path // PATH_BLOCK, (first_path + paths - 1) // PATH_BLOCK
    draws = np.concatenate(
        [
            np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(block,))).standard_normal(
                (PATH_BLOCK, horizon_months)
            )
            for block in range(first_block, last_block + 1)
        ]
    )
    start = first_path - first_block * PATH_BLOCK
    steps = (
        model.log_drift_per_year * dt
        + model.volatility_per_sqrt_year * math.sqrt(dt) * draws[start : start + paths]
    )
    factors = np.ones((paths, horizon_months + 1))
    factors[:, 1:] = np.exp(np.cumsum(steps, axis=1))
    return factors


def path_prices(book: StrategyBook, model: PriceModel, factors: NDArray[np.float64]) -> StrategyPrices:
    """Each term's price at each contract start on each path: its base times the path's factor."""
    months = np.arange(book.horizon + 1, dtype=np.float64)
    terms = book.inputs.terms

    def prices(term: str) -> NDArray[np.float64]:
        base = (
            terms.forward_usd(term, months)
            if model.around_forward
            else np.full(months.size, terms.price(term).price_usd_per_accelerator_hour)
        )
        return base[np.newaxis, :] * factors

    return prices


@dataclass(frozen=True)
class StrategyDistribution:
    """The strategies' NPVs of costs over price paths [USD], a row per strategy, a column per path."""

    keys: tuple[str, ...]
    labels: tuple[str, ...]
    npv_usd: NDArray[np.float64]
    seed: int
    model: PriceModel

    @property
    def probability_cheapest(self) -> dict[str, float]:
        """Share of paths on which each strategy has the lowest NPV (ties: the first listed)."""
        counts = np.bincount(np.argmin(self.npv_usd, axis=0), minlength=len(self.keys))
        return {
            key: float(count) / self.npv_usd.shape[1] for key, count in zip(self.keys, counts, strict=True)
        }

    def percentiles(self, *levels: float) -> dict[str, list[float]]:
        """Each strategy's NPV at the given percentiles (10, 50, 90 by default) [USD]."""
        levels = levels or (10.0, 50.0, 90.0)
        table = np.percentile(self.npv_usd, levels, axis=1)
        return {key: table[:, index].tolist() for index, key in enumerate(self.keys)}

    def to_dict(self) -> dict[str, Any]:
        cheapest, spread = self.probability_cheapest, self.percentiles()
        return {
            "paths": int(self.npv_usd.shape[1]),
            "seed": self.seed,
            "model": self.model.description,
            "strategies": [
                {
                    "key": key,
                    "label": label,
                    "probability_cheapest": cheapest[key],
                    "npv_p10_usd": spread[key][0],
                    "npv_p50_usd": spread[key][1],
                    "npv_p90_usd": spread[key][2],
                    "npv_mean_usd": float(self.npv_usd[index].mean()),
                }
                for index, (key, label) in enumerate(zip(self.keys, self.labels, strict=True))
            ],
        }


def strategy_npvs(
    book: StrategyBook, model: PriceModel, *, first_path: int, paths: int, seed: int
) -> NDArray[np.float64]:
    """Each available strategy's NPV of costs on paths first_path .. + paths [USD], a row per
    strategy (in the order of ``book.labels``): one chunk of a Monte Carlo, the same numbers
    whatever chunk the paths are in."""
    prices = path_prices(book, model, price_factors(model, book.horizon, first_path, paths, seed))
    npv = np.empty((len(book.labels), paths))
    # One strategy's lines at a time: a chunk holds one strategy's months, not every one's.
    for row, key in enumerate(book.labels):
        total = summed(book.lines(key, prices))
        npv[row] = np.broadcast_to(book.present_value(total), (paths,))
    return npv


def strategy_monte_carlo(
    inputs: StrategyInputs, model: PriceModel, *, paths: int, seed: int, chunk_paths: int = 10_000
) -> StrategyDistribution:
    """Every available strategy costed on ``paths`` drawn price paths, ``chunk_paths`` at a time."""
    if paths < 1 or chunk_paths < 1:
        raise ValueError("paths and chunk_paths must be 1 or more")
    book = StrategyBook(inputs)
    npv = np.concatenate(
        [
            strategy_npvs(book, model, first_path=first, paths=min(chunk_paths, paths - first), seed=seed)
            for first in range(0, paths, chunk_paths)
        ],
        axis=1,
    )
    return StrategyDistribution(tuple(book.labels), tuple(book.labels.values()), npv, seed, model)
