"""Fit the throughput estimate's regime efficiencies on published measurements, and judge claims.

The fit chooses the six factors of `Efficiency` (bandwidth, decode compute and
prefill compute shares of peak, the latency of one all-reduce, and the shares a
mixture-of-experts model's and 4-bit arithmetic's kernels reach) that minimise
the sum of squared log ratios estimate / measured over the measurements it is
given: a measurement 2x too high weighs as much as one 2x too low. The range an
estimate carries is the spread of the leave-one-out ratios, each measurement
predicted by a fit that did not see it, in the layout the sizing's search would
pick for its fleet (not the measurement's own: that is what a sizing states):
from their 5th to their 95th percentile. Nothing here knows where measurements
come from; `tco.services.sizing_throughput` feeds the catalog's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import least_squares

from costmodel.inputs import Numeric
from costmodel.sizing.inputs import AcceleratorSpec
from costmodel.sizing.inputs import ModelShape
from costmodel.sizing.inputs import Precision
from costmodel.sizing.layouts import search_layouts
from costmodel.sizing.memory import weights_memory_gb
from costmodel.sizing.results import SizingResult
from costmodel.sizing.throughput import DEFAULT_MAX_CONCURRENCY_PER_REPLICA
from costmodel.sizing.throughput import Efficiency
from costmodel.sizing.throughput import ServingSetup
from costmodel.sizing.throughput import ServingWork
from costmodel.sizing.throughput import batch1_ceiling_tokens_per_s
from costmodel.sizing.throughput import serving_throughput
from costmodel.sizing.throughput import serving_times
from costmodel.sizing.throughput import serving_work
from costmodel.sizing.workloads import InferenceTarget

# Targets no benchmark configuration misses: a benchmark's load is its own.
UNCONSTRAINED_TOKENS_PER_S_PER_USER = 1e-9
UNCONSTRAINED_TIME_TO_FIRST_TOKEN_S = 1e9
# Bounds of the fit: no regime below 2 % of peak, none above it; an all-reduce costs at most 200 us.
LOWEST_EFFICIENCY = 0.02
MOST_ALL_REDUCE_LATENCY_S = 200e-6
RANGE_PERCENTILES = (5.0, 95.0)


@dataclass(frozen=True)
class Measurement:
    """One published throughput figure and the configuration it was measured on."""

    key: str
    setup: ServingSetup
    tokens_per_s: float
    label: str = ""


@dataclass(frozen=True)
class Calibration(SizingResult):
    """Fitted efficiencies, each measurement's ratio estimate / measured, and the range they give.

    ``range_low`` and ``range_high`` multiply an estimate to give its range:
    measured / estimate at the 5th and 95th percentiles of the leave-one-out
    ratios.
    """

    efficiency: Efficiency
    keys: tuple[str, ...]
    ratios: tuple[float, ...]
    leave_one_out_ratios: tuple[float, ...]
    range_low: float
    range_high: float
    leave_one_out_layouts: tuple[str, ...] = ()

    @property
    def median_ratio(self) -> float:
        """Median of estimate / measured over the measurements fitted on."""
        return float(np.median(self.ratios))

    @property
    def leave_one_out_median_abs_log_error(self) -> float:
        """Typical miss of an estimate made without the measurement: median |ln ratio|."""
        return float(np.median(np.abs(np.log(self.leave_one_out_ratios))))


def estimate_tokens_per_s(measurement: Measurement, efficiency: Efficiency) -> float:
    """The estimate for a measurement's configuration at ``efficiency`` [tokens/s]."""
    return float(serving_throughput(measurement.setup, efficiency).tokens_per_s)


def ratios(measurements: Sequence[Measurement], efficiency: Efficiency) -> np.ndarray:
    """Estimate / measured for each measurement."""
    return _Stacked(measurements).ratios(efficiency)


class _Stacked:
    """The measurements' work computed once and timed together: one NumPy pass per fit step."""

    def __init__(self, measurements: Sequence[Measurement]):
        self.work = ServingWork.stack([serving_work(m.setup)[0] for m in measurements])
        self.measured = np.array([m.tokens_per_s for m in measurements])

    def ratios(self, efficiency: Efficiency) -> np.ndarray:
        return serving_times(self.work, efficiency).tokens_per_s / self.measured

    def without(self, index: int) -> _Stacked:
        other = object.__new__(_Stacked)
        keep = np.arange(self.measured.size) != index
        other.work = ServingWork(**{name: np.asarray(getattr(self.work, name))[keep]
                                    for name in ServingWork.__dataclass_fields__})
        other.measured = self.measured[keep]
        return other


def _efficiency(x: np.ndarray) -> Efficiency:
    return Efficiency(math.exp(x[0]), math.exp(x[1]), math.exp(x[2]), x[3] * 1e-6,
                      math.exp(x[4]), math.exp(x[5]))


def _fit_vector(stacked: _Stacked, start: NDArray[np.float64]) -> NDArray[np.float64]:
    def residuals(x: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.log(np.asarray(stacked.ratios(_efficiency(x)), dtype=np.float64))

    low = math.log(LOWEST_EFFICIENCY)
    fitted = least_squares(residuals, start,
                           bounds=([low, low, low, 0.0, low, low],
                                   [0.0, 0.0, 0.0, MOST_ALL_REDUCE_LATENCY_S * 1e6, 0.0, 0.0]),
                           x_scale=[1.0, 1.0, 1.0, 10.0, 1.0, 1.0], xtol=1e-6)
    return np.asarray(fitted.x, dtype=np.float64)


START = np.array([math.log(0.7), math.log(0.5), math.log(0.5), 5.0, math.log(0.9),
                  math.log(0.9)])


def fit_efficiency(measurements: Sequence[Measurement]) -> Efficiency:
    """The efficiencies that make the estimate closest to ``measurements`` (in log ratio)."""
    if not measurements:
        raise ValueError("fit_efficiency needs at least one measurement")
    return _efficiency(_fit_vector(_Stacked(measurements), START))


def calibrate(measurements: Sequence[Measurement]) -> Calibration:
    """Fit on all ``measurements``, then predict each one from a fit on the others.

    Examples
    --------
    With 25 measurements the range is the 5th-95th percentile of 25
    leave-one-out ratios, e.g. 0.7x-1.4x: an estimate of 1,000 tokens/s then
    reads "1,000 (700-1,400)".
    """
    stacked = _Stacked(measurements)
    full = _fit_vector(stacked, START)
    efficiency = _efficiency(full)
    leave_one_out = []
    layouts = []
    for index, measurement in enumerate(measurements):
        without = _efficiency(_fit_vector(stacked.without(index), full))
        estimate, layout = searched_estimate(measurement, without)
        leave_one_out.append(estimate / measurement.tokens_per_s)
        layouts.append(layout)
    spread = 1.0 / np.percentile(np.asarray(leave_one_out), RANGE_PERCENTILES[::-1])
    return Calibration(
        efficiency=efficiency,
        keys=tuple(m.key for m in measurements),
        ratios=tuple(float(r) for r in ratios(measurements, efficiency)),
        leave_one_out_ratios=tuple(float(r) for r in leave_one_out),
        leave_one_out_layouts=tuple(layouts),
        range_low=float(spread[0]),
        range_high=float(spread[1]),
    )


def searched_estimate(measurement: Measurement, efficiency: Efficiency) -> tuple[float, str]:
    """The estimate of a measurement's fleet in the layout the sizing would choose for it (not
    the measurement's own), at its request shape and load, without service-level targets (a
    benchmark has none): tokens/s of the fleet and the layout's label. The measurement's own
    layout when the search finds none that holds it."""
    setup = measurement.setup
    target = InferenceTarget(
        accelerators=float(np.asarray(setup.accelerators)), input_tokens=setup.input_tokens,
        output_tokens=setup.output_tokens, concurrency=setup.concurrency,
        precision=setup.precision, compute_precision=setup.compute_precision,
        kv_cache_precision=setup.kv_cache_precision,
        tokens_per_s_per_user=UNCONSTRAINED_TOKENS_PER_S_PER_USER,
        time_to_first_token_s=UNCONSTRAINED_TIME_TO_FIRST_TOKEN_S)
    search = search_layouts(setup.model, setup.accelerator, target, efficiency,
                            concurrency_over_fleet=True)
    if search is None:
        return estimate_tokens_per_s(measurement, efficiency), "its own"
    return search.chosen.capacity_tokens_per_s, search.chosen.label


def _concurrency(setup: ServingSetup) -> float:
    value = float(np.asarray(setup.concurrency) / np.asarray(setup.replicas))
    return DEFAULT_MAX_CONCURRENCY_PER_REPLICA if math.isnan(value) else value


def distance(a: ServingSetup, b: ServingSetup) -> float:
    """How unlike two configurations are: log distances of active and total parameters, input,
    output and concurrency per replica, plus one for another accelerator and a half for another
    weight format."""
    def log_gap(x: Numeric, y: Numeric) -> float:
        return abs(math.log(float(x) / float(y)))

    return (log_gap(a.model.parameters_per_token, b.model.parameters_per_token)
            + 0.5 * log_gap(a.model.parameters, b.model.parameters)
            + 0.5 * log_gap(a.input_tokens, b.input_tokens)
            + 0.5 * log_gap(a.output_tokens, b.output_tokens)
            + 0.5 * log_gap(_concurrency(a), _concurrency(b))
            + (0.0 if a.accelerator.name == b.accelerator.name else 1.0)
            + (0.0 if a.precision == b.precision else 0.5))


def nearest(measurements: Sequence[Measurement], setup: ServingSetup,
            count: int = 3) -> list[tuple[Measurement, float]]:
    """The ``count`` measurements whose configuration is closest to ``setup``, nearest first,
    and the nearest on the same accelerator after them when none of those is."""
    scored = sorted(((m, distance(setup, m.setup)) for m in measurements), key=lambda pair: pair[1])
    found = scored[:count]
    name = setup.accelerator.name
    if not any(m.setup.accelerator.name == name for m, _ in found):
        found += [pair for pair in scored if pair[0].setup.accelerator.name == name][:1]
    return found


@dataclass(frozen=True)
class Judgement:
    """Whether a published figure is physically possible, with the arithmetic that says so."""

    possible: bool
    arithmetic: str


def judge_claim(model: ModelShape, accelerator: AcceleratorSpec, accelerators: float,
                precision: Precision, batch_size: float, tokens_per_s: float) -> Judgement:
    """Check a claimed tokens/s against what the hardware can do at all.

    The weights must fit in the accelerators' memory, and at batch 1 no token
    comes faster than accelerators x bandwidth / bytes of the active weights.

    >>> from costmodel.model_presets import model_preset
    >>> h100 = AcceleratorSpec("H100", 80.0, 3350.0, {"fp16": 989.0})
    >>> judge_claim(model_preset("llama-3.1-8b"), h100, 1, "fp16", 1, 800).possible
    False
    """
    precision = Precision(precision)
    weights_gb = float(weights_memory_gb(model.parameters, precision))
    memory_gb = float(accelerators) * float(accelerator.memory_gb)
    if weights_gb > memory_gb:
        return Judgement(False, (
            f"{model.name} in {precision.value.upper()} is {weights_gb:,.1f} GB of weights; "
            f"{accelerators:g} x {accelerator.name} hold {memory_gb:,.0f} GB: it does not fit"))
    if batch_size > 1:
        return Judgement(True, f"batch {batch_size:g}: no bandwidth ceiling applies to one "
                               "request's speed")
    active_gb = float(weights_memory_gb(model.parameters_per_token, precision))
    ceiling = float(batch1_ceiling_tokens_per_s(model, accelerator, accelerators, precision))
    text = (f"batch 1 reads {active_gb:,.1f} GB of weights per token; {accelerators:g} x "
            f"{float(accelerator.memory_bandwidth_gb_per_s):,.0f} GB/s / {active_gb:,.1f} GB = "
            f"{ceiling:,.0f} tokens/s at most, against {tokens_per_s:,.0f} claimed")
    if tokens_per_s > ceiling:
        return Judgement(False, f"{text} ({tokens_per_s / ceiling:.1f}x the ceiling)")
    return Judgement(True, text)
