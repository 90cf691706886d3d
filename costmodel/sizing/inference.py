"""Replicas and accelerators for a token rate, from the calibrated serving throughput.

A replica is the fewest devices that hold the weights, the KV cache of its
concurrency and the activations (`fit_inference`), or the tensor-parallel
group the caller fixes; its output tokens per second are the estimate of
`costmodel.sizing.throughput` at the efficiencies fitted on published
measurements (`costmodel.sizing.calibration`), carried with the range those
measurements give. A measured figure the caller states, with its source,
replaces the estimate and is its own range.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import replace

import numpy as np

from costmodel.counting import ceil_count
from costmodel.inputs import Numeric
from costmodel.metrics import cost_per_million_tokens_usd
from costmodel.sizing.errors import SizingInputError
from costmodel.sizing.errors import check_range
from costmodel.sizing.fit import fit_inference
from costmodel.sizing.inputs import AcceleratorSpec
from costmodel.sizing.inputs import FitPolicy
from costmodel.sizing.inputs import ModelShape
from costmodel.sizing.layouts import LayoutSearch
from costmodel.sizing.layouts import search_layouts
from costmodel.sizing.results import Assumption
from costmodel.sizing.results import FitResult
from costmodel.sizing.results import InferenceSizing
from costmodel.sizing.results import as_output
from costmodel.sizing.throughput import Efficiency
from costmodel.sizing.throughput import ServingSetup
from costmodel.sizing.throughput import serving_throughput
from costmodel.sizing.workloads import InferenceTarget


@dataclass(frozen=True)
class Calibrated:
    """The efficiencies fitted on measurements and the range they leave: an estimate E is read
    as E x ``range_low`` to E x ``range_high``."""

    efficiency: Efficiency
    range_low: float = 1.0
    range_high: float = 1.0
    source: str = "input"


def _replica(model: ModelShape, accelerator: AcceleratorSpec, target: InferenceTarget,
             policy: FitPolicy | None) -> FitResult:
    """The memory fit of one replica, in the layout the target fixes if it does (tensor x
    pipeline parallel, pipeline 1 unless given)."""
    if np.all(np.isnan(np.asarray(target.tensor_parallel))):
        return fit_inference(model, accelerator, target, policy)
    policy = policy or FitPolicy()
    fit = fit_inference(model, accelerator, target, policy)
    tensor = np.asarray(target.tensor_parallel, dtype=np.float64)
    pipeline = np.asarray(target.pipeline_parallel, dtype=np.float64)
    pipeline = np.where(np.isnan(pipeline), 1.0, pipeline)
    memory = fit.memory
    per_device = ((np.asarray(memory.weights_gb) + np.asarray(memory.kv_cache_gb))
                  / (tensor * pipeline) + np.asarray(memory.activations_gb) / tensor)
    fits = per_device <= np.asarray(fit.usable_memory_per_device_gb)
    devices = tensor * pipeline
    shape = np.shape(fits)
    return replace(fit, fits=as_output(fits),
                   reason=as_output(np.where(fits, "", "the layout given does not hold the "
                                                       "weights, KV cache and activations")),
                   accelerators=as_output(np.where(fits, devices, np.nan)),
                   accelerators_required=as_output(np.broadcast_to(devices, shape)),
                   per_device_memory_gb=as_output(per_device),
                   tensor_parallel=as_output(np.broadcast_to(tensor, shape)),
                   pipeline_parallel=as_output(np.broadcast_to(pipeline, shape)),
                   layout=as_output(np.where(fits, f"TP {float(np.max(tensor)):g} x PP "
                                                   f"{float(np.max(pipeline)):g} x DP 1",
                                             "the layout given does not hold the model")))


def _searched(model: ModelShape, accelerator: AcceleratorSpec, target: InferenceTarget,
              calibrated: Calibrated, policy: FitPolicy | None
              ) -> tuple[InferenceTarget, LayoutSearch | None]:
    """The target with the layout and concurrency the search chooses (scalar inputs without a
    stated measurement; arrays and measurements keep the fewest devices that hold the model)."""
    scalar = all(np.ndim(value) == 0 for value in (
        target.tokens_per_s, target.input_tokens, target.output_tokens, target.concurrency,
        target.accelerators, target.tensor_parallel, model.parameters))
    if not scalar or not np.isnan(float(target.measured_tokens_per_s_per_accelerator)):
        return target, None
    search = search_layouts(model, accelerator, target, calibrated.efficiency, policy)
    if search is None:
        return target, None
    chosen = search.chosen
    return replace(target, tensor_parallel=float(chosen.tensor_parallel),
                   pipeline_parallel=float(chosen.pipeline_parallel),
                   concurrency=chosen.concurrency_per_replica), search


def size_inference(
    model: ModelShape, accelerator: AcceleratorSpec, target: InferenceTarget, calibrated: Calibrated,
    *,
    policy: FitPolicy | None = None,
    price_usd_per_accelerator_hour: Numeric | None = None,
) -> InferenceSizing:
    """Accelerators to serve ``target.tokens_per_s`` (or the fleet the target fixes), with the
    throughput, its range and, given a price, the cost per million output tokens.

    replicas = ceil(target tokens/s / tokens/s per replica) at the estimate (one without a
    rate; accelerators / devices per replica when the target fixes the fleet, which must be
    whole replicas).

    Examples
    --------
    5,000 tokens/s of a model whose one-device replica makes 1,306 tokens/s:
    ceil(5,000 / 1,306) = 4 replicas, 4 accelerators, capacity 5,225 tokens/s.
    """
    target, search = _searched(model, accelerator, target, calibrated, policy)
    fit = _replica(model, accelerator, target, policy)
    devices = np.asarray(fit.accelerators, dtype=np.float64)
    fits = np.asarray(fit.fits)
    pipeline = np.asarray(fit.pipeline_parallel, dtype=np.float64)
    tensor = np.asarray(fit.tensor_parallel, dtype=np.float64)
    one_replica = ServingSetup(
        model=model, accelerator=accelerator,
        accelerators=np.where(fits, devices, 1.0), tensor_parallel=np.where(fits, tensor, 1.0),
        pipeline_parallel=np.where(fits, pipeline, 1.0), precision=target.precision,
        cached_input_share=target.cached_input_share,
        input_tokens=target.input_tokens, output_tokens=target.output_tokens,
        concurrency=target.concurrency, compute_precision=target.compute_precision,
        kv_cache_precision=target.kv_cache_precision)
    estimate = serving_throughput(one_replica, calibrated.efficiency,
                                  headroom_fraction=(policy or FitPolicy()).headroom_fraction)
    measured = np.asarray(target.measured_tokens_per_s_per_accelerator, dtype=np.float64)
    stated = ~np.isnan(measured)
    fits = fits & (np.asarray(estimate.fits) | stated)
    per_accelerator = np.where(stated, measured, np.asarray(estimate.tokens_per_s_per_accelerator))
    per_accelerator = per_accelerator * (1.0 - np.asarray(target.power_cap_throughput_loss))
    per_accelerator = np.where(fits, per_accelerator, np.nan)
    low = np.where(stated, per_accelerator, per_accelerator * calibrated.range_low)
    high = np.where(stated, per_accelerator, per_accelerator * calibrated.range_high)
    per_replica = per_accelerator * devices

    fleet = np.asarray(target.accelerators, dtype=np.float64)
    rate = np.asarray(target.tokens_per_s, dtype=np.float64)
    if np.any(np.mod(fleet, np.where(fits, devices, 1.0)) > 0):
        raise SizingInputError("InferenceTarget.accelerators",
                               "must be whole replicas of "
                               f"{float(np.nanmax(devices)):g} accelerators each")
    replicas = np.where(~np.isnan(fleet), fleet / devices,
                        np.where(np.isnan(rate), 1.0, ceil_count(rate / per_replica)))
    replicas = np.where(fits, replicas, np.nan)

    basis = np.where(stated, "stated measurement: " + target.measured_source,
                     f"estimate calibrated on {calibrated.source}")
    assumptions = [
        *fit.assumptions,
        accelerator.peak_assumption(target.arithmetic_precision),
        Assumption("efficiency", {"memory_bandwidth": calibrated.efficiency.memory_bandwidth,
                                  "decode_compute": calibrated.efficiency.decode_compute,
                                  "prefill_compute": calibrated.efficiency.prefill_compute,
                                  "all_reduce_latency_s": calibrated.efficiency.all_reduce_latency_s},
                   "shares of peak; s", f"fitted on {calibrated.source}"),
        Assumption("throughput_range", [calibrated.range_low, calibrated.range_high],
                   "x the estimate", "5th-95th percentile of the leave-one-out ratios"),
    ]
    if np.any(stated):
        assumptions.append(Assumption.given("measured_tokens_per_s_per_accelerator", measured,
                                            "tokens/s", target.measured_source))
    costs = None
    if price_usd_per_accelerator_hour is not None:
        check_range("price_usd_per_accelerator_hour", price_usd_per_accelerator_hour, low=0.0)
        costs = [as_output(cost_per_million_tokens_usd(price_usd_per_accelerator_hour, figure))
                 for figure in (per_accelerator, high, low)]
        assumptions.append(
            Assumption.given("price", price_usd_per_accelerator_hour, "USD per accelerator-hour")
        )
    return InferenceSizing(
        fits=as_output(fits),
        reason=as_output(np.where(fits | ~np.asarray(fit.fits), fit.reason, estimate.reason)),
        basis=as_output(basis),
        accelerators_per_replica=as_output(np.where(fits, devices, np.nan)),
        replicas=as_output(replicas),
        accelerators=as_output(replicas * devices),
        capacity_tokens_per_s=as_output(replicas * per_replica),
        tokens_per_s_per_accelerator=as_output(per_accelerator),
        tokens_per_s_per_accelerator_low=as_output(low),
        tokens_per_s_per_accelerator_high=as_output(high),
        cost_usd_per_million_tokens=None if costs is None else costs[0],
        cost_usd_per_million_tokens_low=None if costs is None else costs[1],
        cost_usd_per_million_tokens_high=None if costs is None else costs[2],
        estimate=estimate,
        fit=fit,
        assumptions=assumptions,
        layout_search=search,
    )
