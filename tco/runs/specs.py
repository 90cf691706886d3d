"""Run specs: sweep axes, Monte Carlo distributions and sensitivity steps, parsed and checked.

Every parser checks the spec against the scenario's engine inputs, so a bad spec (an input
that does not exist or is not numeric, values outside an input's valid range, a grid too
big, a distribution with low > high) is refused with the field and the reason before anything
is queued. Specs are stored in their compact JSON form (an axis as a range, not its values)
and parsed again by every chunk; parsing is deterministic, so every worker sees the same grid.

JSON forms::

    sweep        {"axes": [{"path": "workload.utilisation", "values": [0.4, 0.7]},
                           {"path": "facility.pue", "start": 1.1, "stop": 1.5, "step": 0.1},
                           {"path": "buy.system_price_usd", "low": 2e5, "high": 4e5, "count": 21}],
                  "heatmap_axes": ["workload.utilisation", "facility.pue"]}
    monte_carlo  {"samples": 100000, "histogram_bins": 40,
                  "distributions": [{"path": "workload.utilisation", "kind": "triangular",
                                     "low": 0.4, "mode": 0.6, "high": 0.9}, ...]}
    sensitivity  {"step_share": 0.1, "paths": [...], "rent_option": "aws on-demand"}

A path is an engine input path (``rent.0.price_usd_per_instance_hour``) or, when only one
input has that name, the name alone (``utilisation``).
"""
from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

import costmodel as engine
from tco.runs.distributions import KINDS
from tco.runs.distributions import Distribution
from tco.runs.distributions import distribution_from_json
from tco.runs.distributions import distribution_to_json
from tco.runs.distributions import monte_carlo_draws
from tco.runs.errors import RunSpecError
from tco.runs.errors import number
from tco.runs.errors import whole_number
from tco.runs.limits import MAX_DISTRIBUTIONS
from tco.runs.limits import MAX_RUN_POINTS
from tco.runs.limits import MAX_SWEEP_AXES

HEATMAP_AXES = 2
DEFAULT_HISTOGRAM_BINS = 40
MAX_HISTOGRAM_BINS = 200
DEFAULT_STEP_SHARE = 0.1
# A range's stop is included when it lies within this share of a step of the last value.
RANGE_STOP_TOLERANCE = 1e-9
# An unbounded lognormal is checked at median x exp(this x sigma): a standard normal draw
# this far out has a chance of ~5e-17, so no run of at most 10^6 samples reaches it.
LOGNORMAL_PRACTICAL_MAX_SIGMAS = 8.3

AXIS_FORMS = {
    "values": ("values",),
    "range": ("start", "stop", "step"),
    "count": ("low", "high", "count"),
}


@dataclass(frozen=True)
class Axis:
    """One input of a sweep and the values it takes, with the compact form it came from."""

    path: str
    values: NDArray[np.float64]
    form: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """The compact JSON form (``values`` only for an explicit list)."""
        return {"path": self.path, **self.form}


@dataclass(frozen=True)
class SweepSpec:
    """A grid over one or more inputs; point i is the i-th grid point in C order."""

    axes: tuple[Axis, ...]
    heatmap_axes: tuple[str, ...]

    @property
    def shape(self) -> tuple[int, ...]:
        """Number of values of each axis."""
        return tuple(len(axis.values) for axis in self.axes)

    @property
    def points_total(self) -> int:
        """Number of grid points."""
        return math.prod(self.shape)

    def overrides(self, start: int, stop: int) -> dict[str, NDArray[np.float64]]:
        """Input values of points ``start`` to ``stop - 1``, from their flat indices.

        Only this slice of the grid is built, never the whole grid.
        """
        coordinates = np.unravel_index(np.arange(start, stop), self.shape)
        return {axis.path: axis.values[index] for axis, index in zip(self.axes, coordinates, strict=True)}

    def to_json(self) -> dict[str, Any]:
        """The JSON form ``parse_sweep_spec`` reads."""
        return {"axes": [axis.to_json() for axis in self.axes], "heatmap_axes": list(self.heatmap_axes)}


@dataclass(frozen=True)
class MonteCarloSpec:
    """Samples drawn from a distribution on each uncertain input."""

    samples: int
    distributions: dict[str, Distribution]
    histogram_bins: int

    @property
    def points_total(self) -> int:
        """Number of samples."""
        return self.samples

    def overrides(self, seed: int, start: int, stop: int) -> dict[str, NDArray[np.float64]]:
        """Input values of samples ``start`` to ``stop - 1`` (see ``monte_carlo_draws``)."""
        return monte_carlo_draws(self.distributions, seed, start, stop)

    def to_json(self) -> dict[str, Any]:
        """The JSON form ``parse_monte_carlo_spec`` reads."""
        return {
            "samples": self.samples,
            "histogram_bins": self.histogram_bins,
            "distributions": [
                {"path": path, **distribution_to_json(d)} for path, d in self.distributions.items()
            ],
        }


@dataclass(frozen=True)
class SensitivitySpec:
    """Each input moved down and up by a share of its value, one at a time."""

    step_share: float
    paths: tuple[str, ...] | None
    rent_option: str | None

    @property
    def points_total(self) -> int:
        """Scenarios evaluated: a run of one chunk whatever the number of inputs."""
        return 1

    def to_json(self) -> dict[str, Any]:
        """The JSON form ``parse_sensitivity_spec`` reads."""
        return {
            "step_share": self.step_share,
            "paths": list(self.paths) if self.paths is not None else None,
            "rent_option": self.rent_option,
        }


def resolve_path(inputs: engine.Scenario, name: Any, field: str) -> str:
    """The engine input path ``name`` means: a dotted path, or a field name only one input has."""
    if not isinstance(name, str) or not name:
        raise RunSpecError(field, f"must name a numeric input, got {name!r}")
    if "." in name:
        try:
            engine.get_input(inputs, name)
        except engine.InputError as exc:
            raise RunSpecError(
                field, f"{name!r} is not a numeric input of this scenario ({exc.message})"
            ) from None
        return name
    matches = [path for path in engine.numeric_input_paths(inputs) if path.rsplit(".", 1)[-1] == name]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise RunSpecError(field, f"{name!r} is ambiguous; say which: {', '.join(matches)}")
    raise RunSpecError(field, f"{name!r} is not a numeric input of this scenario")


def parse_sweep_spec(raw: Any, inputs: engine.Scenario, *, max_points: int = MAX_RUN_POINTS) -> SweepSpec:
    """A checked sweep spec; RunSpecError naming the field when it cannot run."""
    raw = _mapping(raw, "spec")
    _only_keys(raw, {"axes", "heatmap_axes"}, "spec")
    raw_axes = raw.get("axes")
    if not isinstance(raw_axes, list) or not raw_axes:
        raise RunSpecError("axes", "give at least one axis")
    if len(raw_axes) > MAX_SWEEP_AXES:
        raise RunSpecError("axes", f"{len(raw_axes):,} axes; the limit is {MAX_SWEEP_AXES}")
    axes = tuple(_axis(item, f"axes[{i}]", inputs, max_points) for i, item in enumerate(raw_axes))
    _refuse_repeats([axis.path for axis in axes], "axes")
    spec = SweepSpec(axes, _heatmap_axes(raw.get("heatmap_axes"), axes, inputs))
    if spec.points_total > max_points:
        sizes = " x ".join(f"{n:,}" for n in spec.shape)
        raise RunSpecError(
            "axes", f"the grid has {spec.points_total:,} points ({sizes}); the limit is {max_points:,}"
        )
    _check_together(inputs, {axis.path: axis.values for axis in axes}, "axes")
    return spec


def parse_monte_carlo_spec(
    raw: Any, inputs: engine.Scenario, *, max_points: int = MAX_RUN_POINTS
) -> MonteCarloSpec:
    """A checked Monte Carlo spec; RunSpecError naming the field when it cannot run."""
    raw = _mapping(raw, "spec")
    _only_keys(raw, {"samples", "distributions", "histogram_bins"}, "spec")
    if "samples" not in raw:
        raise RunSpecError("samples", "give the number of samples")
    samples = whole_number(raw["samples"], "samples", low=1, high=max_points)
    bins = whole_number(
        raw.get("histogram_bins", DEFAULT_HISTOGRAM_BINS), "histogram_bins", low=1, high=MAX_HISTOGRAM_BINS
    )
    raw_distributions = raw.get("distributions")
    if not isinstance(raw_distributions, list) or not raw_distributions:
        raise RunSpecError("distributions", "give at least one distribution")
    if len(raw_distributions) > MAX_DISTRIBUTIONS:
        raise RunSpecError(
            "distributions", f"{len(raw_distributions):,} distributions; the limit is {MAX_DISTRIBUTIONS}"
        )
    distributions: dict[str, Distribution] = {}
    for i, item in enumerate(raw_distributions):
        field = f"distributions[{i}]"
        item = _mapping(item, field)
        path = resolve_path(inputs, item.get("path"), f"{field}.path")
        if path in distributions:
            raise RunSpecError(f"{field}.path", f"{path} already has a distribution")
        distribution = distribution_from_json(item, field)
        _check_support(inputs, path, distribution, field)
        _check_together(inputs, {path: _finite_extremes(distribution)}, field)
        distributions[path] = distribution
    extremes = {path: _finite_extremes(d) for path, d in distributions.items()}
    _check_together(inputs, extremes, "distributions")
    _check_finite_results(inputs, extremes, "distributions")
    return MonteCarloSpec(samples, distributions, bins)


def parse_sensitivity_spec(raw: Any, inputs: engine.Scenario) -> SensitivitySpec:
    """A checked sensitivity spec; RunSpecError naming the field when it cannot run."""
    raw = _mapping(raw if raw is not None else {}, "spec")
    _only_keys(raw, {"step_share", "paths", "rent_option"}, "spec")
    step = number(raw.get("step_share", DEFAULT_STEP_SHARE), "step_share")
    if not 0 < step < 1:
        raise RunSpecError("step_share", f"must be between 0 and 1 (0.1 = +/-10 %), got {step:g}")
    paths = raw.get("paths")
    if paths is not None:
        if not isinstance(paths, list) or not paths:
            raise RunSpecError("paths", "give a non-empty list of inputs, or leave it out for all")
        available = len(engine.numeric_input_paths(inputs))
        if len(paths) > available:
            raise RunSpecError("paths", f"{len(paths):,} paths; this scenario has {available} numeric inputs")
        paths = tuple(resolve_path(inputs, p, f"paths[{i}]") for i, p in enumerate(paths))
        _refuse_repeats(list(paths), "paths")
    rent_option = raw.get("rent_option")
    names = [option.name for option in inputs.rent]
    if rent_option is not None and rent_option not in names:
        raise RunSpecError("rent_option", f"no rent option {rent_option!r}; choose one of {', '.join(names)}")
    return SensitivitySpec(step, paths, rent_option)


def axis_from_text(text: str) -> dict[str, Any]:
    """The JSON form of an axis written ``NAME=SPEC`` (command line and admin form).

    SPEC is a list ``0.4,0.55,0.7``, a range with a step ``START:STOP:STEP`` (STOP included
    when it falls on a step), or a count of points between bounds ``LOW:HIGH@COUNT``.
    """
    name, spec = _split_assignment(text)
    if "@" in spec:
        bounds, count = spec.split("@", 1)
        low, high = _fields(bounds, ":", 2, text)
        return {"path": name, "low": low, "high": high, "count": count.strip()}
    if ":" in spec:
        start, stop, step = _fields(spec, ":", 3, text)
        return {"path": name, "start": start, "stop": stop, "step": step}
    return {"path": name, "values": [item.strip() for item in spec.split(",")]}


def distribution_from_text(text: str) -> dict[str, Any]:
    """The JSON form of a distribution written ``NAME=KIND(a,b,...)`` (command line, admin).

    ``uniform(low,high)``, ``triangular(low,mode,high)``, ``normal(mean,sd,low,high)``,
    ``lognormal(median,sigma)`` or ``lognormal(median,sigma,low,high)``.
    """
    name, spec = _split_assignment(text)
    match = re.fullmatch(r"\s*(\w+)\s*\((.*)\)\s*", spec)
    if not match or match.group(1) not in KINDS:
        raise RunSpecError(
            "distributions", f"{text!r}: write NAME=KIND(a,b,...) with KIND one of {', '.join(KINDS)}"
        )
    kind = match.group(1)
    arguments = [item.strip() for item in match.group(2).split(",")]
    parameters = KINDS[kind].parameters
    if len(arguments) not in (len(parameters), 2 if kind == "lognormal" else len(parameters)):
        raise RunSpecError("distributions", f"{text!r}: {kind} takes ({', '.join(parameters)})")
    return {"path": name, "kind": kind, **dict(zip(parameters, arguments, strict=False))}


def _axis(raw: Any, field: str, inputs: engine.Scenario, max_points: int) -> Axis:
    raw = _mapping(raw, field)
    path = resolve_path(inputs, raw.get("path"), f"{field}.path")
    given = [form for form, keys in AXIS_FORMS.items() if any(key in raw for key in keys)]
    if len(given) != 1:
        raise RunSpecError(
            field, "give exactly one of: values [..]; start, stop and step; or low, high and count"
        )
    form = given[0]
    keys = AXIS_FORMS[form]
    _only_keys(raw, {"path", *keys}, field)
    missing = [key for key in keys if key not in raw]
    if missing:
        raise RunSpecError(field, f"a {form} axis needs {', '.join(keys)}; missing {', '.join(missing)}")
    if form == "values":
        values, compact = _listed_values(raw["values"], f"{field}.values", max_points)
    elif form == "range":
        values, compact = _range_values(raw, field, max_points)
    else:
        values, compact = _counted_values(raw, field, max_points)
    _check_together(inputs, {path: values}, field)
    return Axis(path, values, compact)


def _listed_values(raw: Any, field: str, max_points: int) -> tuple[NDArray[np.float64], dict[str, Any]]:
    if not isinstance(raw, list) or not raw:
        raise RunSpecError(field, "give a non-empty list of numbers")
    if len(raw) > max_points:
        raise RunSpecError(field, f"{len(raw):,} values; the limit is {max_points:,}")
    values = [number(item, f"{field}[{i}]") for i, item in enumerate(raw)]
    return np.array(values, dtype=np.float64), {"values": values}


def _range_values(raw: Mapping[str, Any], field: str, max_points: int) -> tuple[NDArray[np.float64], dict]:
    start, stop, step = (number(raw[key], f"{field}.{key}") for key in ("start", "stop", "step"))
    if step <= 0:
        raise RunSpecError(f"{field}.step", f"must be positive, got {step:g}")
    if stop < start:
        raise RunSpecError(f"{field}.stop", f"must not be below start ({start:g}), got {stop:g}")
    steps = (stop - start) / step + RANGE_STOP_TOLERANCE  # inf for a step like 5e-324
    if not steps < max_points:
        raise RunSpecError(field, f"the range has over {max_points:,} values; the limit is {max_points:,}")
    count = math.floor(steps) + 1
    if count > max_points:
        raise RunSpecError(field, f"the range has {count:,} values; the limit is {max_points:,}")
    if count == 1 and stop > start:
        # A step taken for a count of points (0.2:1.0:50) would sweep the start alone.
        raise RunSpecError(f"{field}.step", (
            f"{step:g} is more than the range from {start:g} to {stop:g}, which would hold {start:g} "
            "alone; give a smaller step, or low, high and a count of points (LOW:HIGH@COUNT)"))
    values = start + step * np.arange(count, dtype=np.float64)
    return values, {"start": start, "stop": stop, "step": step}


def _counted_values(raw: Mapping[str, Any], field: str, max_points: int) -> tuple[NDArray[np.float64], dict]:
    low, high = number(raw["low"], f"{field}.low"), number(raw["high"], f"{field}.high")
    count = whole_number(raw["count"], f"{field}.count", low=2, high=max_points)
    if not low < high:
        raise RunSpecError(f"{field}.low", f"low ({low:g}) must be below high ({high:g})")
    return np.linspace(low, high, count), {"low": low, "high": high, "count": count}


def _heatmap_axes(raw: Any, axes: Sequence[Axis], inputs: engine.Scenario) -> tuple[str, ...]:
    if raw is None:
        return tuple(axis.path for axis in axes[:HEATMAP_AXES])
    if not isinstance(raw, list) or not 1 <= len(raw) <= HEATMAP_AXES:
        raise RunSpecError("heatmap_axes", f"name one or {HEATMAP_AXES} of the sweep's axes")
    chosen = tuple(resolve_path(inputs, name, f"heatmap_axes[{i}]") for i, name in enumerate(raw))
    swept = [axis.path for axis in axes]
    for i, path in enumerate(chosen):
        if path not in swept:
            raise RunSpecError(f"heatmap_axes[{i}]", f"{path} is not one of the sweep's axes")
    _refuse_repeats(list(chosen), "heatmap_axes")
    return chosen


def _check_support(inputs: engine.Scenario, path: str, distribution: Distribution, field: str) -> None:
    """Refuse a distribution that can draw values its input does not accept."""
    low, high = distribution.support()
    metadata = engine.input_metadata(inputs, path)
    if math.isinf(high) and math.isfinite(metadata["high"]):
        raise RunSpecError(
            f"{field}.high", f"{distribution.kind} is unbounded above but {path} must stay <= "
            f"{metadata['high']:g}; give high"
        )
    if math.isinf(high) and metadata["whole"]:
        raise RunSpecError(f"{field}.high", f"{path} is a count; give high to bound the {distribution.kind}")
    # A lognormal's default low of 0 is never drawn; any input accepting values just above 0 fits.
    if low == 0 and distribution.kind == "lognormal" and metadata["low"] > 0:
        raise RunSpecError(
            f"{field}.low", f"{path} must be at least {metadata['low']:g}; give low for the lognormal"
        )


def _finite_extremes(distribution: Distribution) -> NDArray[np.float64]:
    """The ends of what a distribution can actually draw (an unbounded one at its practical max)."""
    low, high = distribution.support()
    ends = [value for value in (low, high) if math.isfinite(value)]
    if distribution.kind == "lognormal" and low == 0:
        ends = [value for value in ends if value != 0]
    if math.isinf(high) and distribution.kind == "lognormal":
        # exp() of a large log gives inf (a warning, not an error) for a sigma like 1,000.
        with np.errstate(over="ignore"):
            spread = np.exp(LOGNORMAL_PRACTICAL_MAX_SIGMAS * distribution.sigma)
        ends.append(float(distribution.median * spread))
    return np.array(ends or [distribution.median], dtype=np.float64)


def _check_finite_results(
    inputs: engine.Scenario, values: Mapping[str, NDArray[np.float64]], field: str
) -> None:
    """Refuse values whose costs overflow: evaluate every combination of their extremes."""
    with np.errstate(all="ignore"):
        result = engine.evaluate(engine.with_overrides(inputs, _sparse(values)), detail=False,
                                 recommend=False)
    totals = [result.buy.total_usd, *(option.total_usd for option in result.rent)]
    if not all(np.isfinite(total).all() for total in totals):
        raise RunSpecError(
            field, "these distributions can draw values so large that the costs are not finite numbers; "
                   "give tighter bounds (high) or a smaller sigma"
        )


def _check_together(inputs: engine.Scenario, values: Mapping[str, NDArray[np.float64]], field: str) -> None:
    """Validate the inputs with each path's values on its own batch axis.

    The axes stay sparse (shape 1 x .. x n x .. x 1), so this checks every value and every
    pair the engine compares (idle vs max power, cooling tiers) without building the grid.
    """
    try:
        engine.validate(engine.with_overrides(inputs, _sparse(values)))
    except engine.InputError as exc:
        raise RunSpecError(field, str(exc)) from None


def _mapping(raw: Any, field: str) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise RunSpecError(field, f"must be an object, got {type(raw).__name__}")
    return raw


def _only_keys(raw: Mapping[str, Any], allowed: set[str], field: str) -> None:
    unknown = set(raw) - allowed
    if unknown:
        raise RunSpecError(
            field, f"unknown keys {', '.join(sorted(unknown))}; allowed: {', '.join(sorted(allowed))}"
        )


def _sparse(values: Mapping[str, NDArray[np.float64]]) -> dict[str, NDArray[np.float64]]:
    """Each path's values on its own batch axis: every combination, without building the grid."""
    count = len(values)
    return {
        path: np.reshape(array, tuple(len(array) if i == axis else 1 for i in range(count)))
        for axis, (path, array) in enumerate(values.items())
    }


def _refuse_repeats(paths: list[str], field: str) -> None:
    repeated = sorted(path for path, times in Counter(paths).items() if times > 1)
    if repeated:
        raise RunSpecError(field, f"{', '.join(repeated)} given more than once")


def _split_assignment(text: str) -> tuple[str, str]:
    name, sep, spec = text.partition("=")
    if not sep or not name.strip() or not spec.strip():
        raise RunSpecError("spec", f"{text!r}: write NAME=SPEC")
    return name.strip(), spec.strip()


def _fields(text: str, separator: str, count: int, whole: str) -> list[str]:
    parts = [part.strip() for part in text.split(separator)]
    if len(parts) != count or not all(parts):
        raise RunSpecError("spec", f"{whole!r}: expected {count} values separated by {separator!r}")
    return parts
