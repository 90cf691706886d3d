"""Distributions of uncertain inputs for Monte Carlo runs, and their reproducible draws.

Every distribution draws from a ``numpy.random.Generator`` it is given, so the caller
controls seeding: ``monte_carlo_draws`` seeds one generator per block of
``RNG_BLOCK_POINTS`` points from (seed, block index), which makes point i's values the
same whatever the chunking and however many workers share the run.

Bounded distributions (normal, optionally lognormal) are truncated by redrawing the values
that fall outside the bounds, so every draw lies in [low, high].
"""
from __future__ import annotations

import math
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import MISSING
from dataclasses import dataclass
from dataclasses import fields
from statistics import NormalDist
from typing import Any
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from tco.runs.errors import RunSpecError
from tco.runs.errors import number
from tco.runs.limits import RNG_BLOCK_POINTS

# Truncation redraws until every value is inside the bounds; bounds that keep less than this
# share of the distribution would take too many rounds and are refused instead.
MIN_TRUNCATED_MASS = 0.01


@dataclass(frozen=True)
class Uniform:
    """Every value in [low, high] equally likely."""

    kind: ClassVar[str] = "uniform"
    parameters: ClassVar[tuple[str, ...]] = ("low", "high")
    low: float
    high: float

    def check(self, field: str) -> None:
        """Refuse parameters that do not make a distribution."""
        _check_ordered(self.low, self.high, field)

    def support(self) -> tuple[float, float]:
        """Smallest and largest value a draw can take."""
        return self.low, self.high

    def sample(self, rng: np.random.Generator, size: int) -> NDArray[np.float64]:
        """``size`` draws."""
        return rng.uniform(self.low, self.high, size)


@dataclass(frozen=True)
class Triangular:
    """Values in [low, high], most likely at ``mode``."""

    kind: ClassVar[str] = "triangular"
    parameters: ClassVar[tuple[str, ...]] = ("low", "mode", "high")
    low: float
    mode: float
    high: float

    def check(self, field: str) -> None:
        """Refuse parameters that do not make a distribution."""
        _check_ordered(self.low, self.high, field)
        if not self.low <= self.mode <= self.high:
            raise RunSpecError(
                f"{field}.mode", f"must lie between low ({self.low:g}) and high ({self.high:g})"
            )

    def support(self) -> tuple[float, float]:
        """Smallest and largest value a draw can take."""
        return self.low, self.high

    def sample(self, rng: np.random.Generator, size: int) -> NDArray[np.float64]:
        """``size`` draws."""
        return rng.triangular(self.low, self.mode, self.high, size)


@dataclass(frozen=True)
class Normal:
    """A normal distribution with mean and standard deviation, truncated to [low, high]."""

    kind: ClassVar[str] = "normal"
    parameters: ClassVar[tuple[str, ...]] = ("mean", "sd", "low", "high")
    mean: float
    sd: float
    low: float
    high: float

    def check(self, field: str) -> None:
        """Refuse parameters that do not make a distribution, or bounds in its far tails."""
        if self.sd <= 0:
            raise RunSpecError(f"{field}.sd", f"the standard deviation must be positive, got {self.sd:g}")
        _check_ordered(self.low, self.high, field)
        _check_mass(NormalDist(self.mean, self.sd), self.low, self.high, field)

    def support(self) -> tuple[float, float]:
        """Smallest and largest value a draw can take."""
        return self.low, self.high

    def sample(self, rng: np.random.Generator, size: int) -> NDArray[np.float64]:
        """``size`` draws, each inside [low, high]."""
        return _truncated(lambda n: rng.normal(self.mean, self.sd, n), self.low, self.high, size)


@dataclass(frozen=True)
class LogNormal:
    """A lognormal distribution: log(value) is normal with mean log(median) and sd ``sigma``.

    Unbounded above unless ``high`` is given; ``low`` defaults to 0 (values are positive).
    """

    kind: ClassVar[str] = "lognormal"
    parameters: ClassVar[tuple[str, ...]] = ("median", "sigma", "low", "high")
    median: float
    sigma: float
    low: float = 0.0
    high: float = math.inf

    def check(self, field: str) -> None:
        """Refuse parameters that do not make a distribution, or bounds in its far tails."""
        if self.median <= 0:
            raise RunSpecError(f"{field}.median", f"must be positive, got {self.median:g}")
        if self.sigma <= 0:
            raise RunSpecError(f"{field}.sigma", f"must be positive, got {self.sigma:g}")
        if self.low < 0:
            raise RunSpecError(
                f"{field}.low", f"a lognormal value is positive; low must be >= 0, got {self.low:g}"
            )
        _check_ordered(self.low, self.high, field)
        log_low = math.log(self.low) if self.low > 0 else -math.inf
        _check_mass(NormalDist(math.log(self.median), self.sigma), log_low, math.log(self.high), field)

    def support(self) -> tuple[float, float]:
        """Smallest and largest value a draw can take (low itself is never drawn when 0)."""
        return self.low, self.high

    def sample(self, rng: np.random.Generator, size: int) -> NDArray[np.float64]:
        """``size`` draws, each inside [low, high]."""
        mean_log = math.log(self.median)
        return _truncated(lambda n: rng.lognormal(mean_log, self.sigma, n), self.low, self.high, size)


Distribution = Uniform | Triangular | Normal | LogNormal
KINDS: dict[str, type[Distribution]] = {cls.kind: cls for cls in (Uniform, Triangular, Normal, LogNormal)}


def distribution_from_json(raw: Mapping[str, Any], field: str) -> Distribution:
    """A checked distribution from ``{"kind": "triangular", "low": .., "mode": .., "high": ..}``."""
    kind = raw.get("kind")
    if kind not in KINDS:
        raise RunSpecError(f"{field}.kind", f"must be one of {', '.join(KINDS)}, got {kind!r}")
    cls = KINDS[kind]
    unknown = set(raw) - {"kind", "path", *cls.parameters}
    if unknown:
        raise RunSpecError(field, f"unknown parameters for {kind}: {', '.join(sorted(unknown))}")
    missing = [f.name for f in fields(cls) if f.default is MISSING and f.name not in raw]
    if missing:
        raise RunSpecError(field, f"{kind} needs {', '.join(cls.parameters)}; missing {', '.join(missing)}")
    values = {name: number(raw[name], f"{field}.{name}") for name in cls.parameters if name in raw}
    distribution = cls(**values)
    distribution.check(field)
    return distribution


def distribution_to_json(distribution: Distribution) -> dict[str, Any]:
    """The JSON form ``distribution_from_json`` reads (infinite defaults left out)."""
    values = {name: getattr(distribution, name) for name in distribution.parameters}
    return {"kind": distribution.kind, **{k: v for k, v in values.items() if math.isfinite(v)}}


def monte_carlo_draws(
    distributions: Mapping[str, Distribution], seed: int, start: int, stop: int
) -> dict[str, NDArray[np.float64]]:
    """Values of each uncertain input for points ``start`` to ``stop - 1``.

    Parameters
    ----------
    distributions : mapping of str to Distribution
        Input path -> distribution; the order fixes the order of draws within a block.
    seed : int
        The run's seed.
    start, stop : int
        Point range; ``start`` must be the first point of an RNG block.

    Returns
    -------
    dict of str to ndarray
        Input path -> ``stop - start`` values. Block b always draws ``RNG_BLOCK_POINTS``
        values per input from ``default_rng([seed, b])``, so point i's values depend only on
        (seed, i) and the distributions.
    """
    if start % RNG_BLOCK_POINTS:
        raise ValueError(f"a chunk must start on an RNG block boundary, got point {start}")
    blocks = range(start // RNG_BLOCK_POINTS, -(-stop // RNG_BLOCK_POINTS))
    drawn: dict[str, list[NDArray[np.float64]]] = {path: [] for path in distributions}
    for block in blocks:
        rng = np.random.default_rng([seed, block])
        for path, distribution in distributions.items():
            drawn[path].append(distribution.sample(rng, RNG_BLOCK_POINTS))
    return {path: np.concatenate(parts)[: stop - start] for path, parts in drawn.items()}


def _check_ordered(low: float, high: float, field: str) -> None:
    if not low < high:
        raise RunSpecError(f"{field}.low", f"low ({low:g}) must be below high ({high:g})")


def _check_mass(normal: NormalDist, low: float, high: float, field: str) -> None:
    mass = normal.cdf(high) - normal.cdf(low)
    if mass < MIN_TRUNCATED_MASS:
        raise RunSpecError(
            field,
            f"the bounds keep only {mass:.2%} of the distribution (at least "
            f"{MIN_TRUNCATED_MASS:.0%} needed); widen them or move the centre",
        )


def _truncated(
    draw: Callable[[int], NDArray[np.float64]], low: float, high: float, size: int
) -> NDArray[np.float64]:
    """``size`` draws inside [low, high], redrawing the ones outside (deterministic per rng)."""
    values = draw(size)
    outside = (values < low) | (values > high)
    while outside.any():
        values[outside] = draw(int(outside.sum()))
        outside = (values < low) | (values > high)
    return values
