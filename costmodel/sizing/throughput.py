"""Serving throughput of a fleet, prefill and decode apart, with efficiencies fitted on measurements.

A replica is ``tensor_parallel`` x ``pipeline_parallel`` devices holding a
whole copy of the weights; the fleet is ``accelerators`` / that many replicas.
Pipeline stages add their bandwidth and compute in the steady state (every
stage busy with another micro-batch) and no all-reduce. Each replica serves
``concurrency / replicas`` requests at once (or, with no concurrency given, as
many as its KV cache holds, at most
``max_concurrency_per_replica``), each reading ``input_tokens`` and writing
``output_tokens``.

- **Decode step** (one token for every request in the batch) takes the longer
  of its memory time, bytes read / (devices x bandwidth x eta_memory), and its
  compute time, FLOPs / (devices x dense peak x eta_decode), plus the
  tensor-parallel all-reduces (two per layer). Bytes read are the weights the
  batch touches and its KV cache at the mean context (input + output / 2); a
  mixture-of-experts batch of B touches 1 - (1 - active / total)^B of its
  weights (each sequence routing independently), a dense model all of them.
- **Prefill** of one request is compute-bound: its FLOPs / (devices x dense
  peak x eta_prefill).
- **Steady state**: every request costs its prefill alone plus ``output_tokens``
  decode steps shared with the batch, so a replica writes
  B / (B x prefill_s / output_tokens + step_s) output tokens per second.

The efficiencies (eta for bandwidth, decode compute and prefill compute, and
the fixed latency of one all-reduce) are the regime factors
`costmodel.sizing.calibration` fits on published measurements. At batch 1 the
estimate never exceeds devices x bandwidth / bytes of the active weights: every
term only adds time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from costmodel.inputs import Numeric
from costmodel.sizing.errors import SizingInputError
from costmodel.sizing.errors import check_range
from costmodel.sizing.inputs import AcceleratorSpec
from costmodel.sizing.inputs import ModelShape
from costmodel.sizing.inputs import Precision
from costmodel.sizing.memory import bytes_per_value
from costmodel.sizing.memory import kv_cache_memory_gb
from costmodel.sizing.memory import weights_memory_gb
from costmodel.sizing.results import SizingResult
from costmodel.sizing.results import as_figure
from costmodel.sizing.results import as_output
from costmodel.sizing.units import BYTES_PER_GB
from costmodel.sizing.units import FLOPS_PER_TFLOPS

# Serving engines cap the requests one replica batches (vLLM's max_num_seqs, TensorRT-LLM's
# max_batch_size); a saturating load is taken to fill the KV cache up to this many.
DEFAULT_MAX_CONCURRENCY_PER_REPLICA = 1024.0
# Kept free on each device for the runtime, as the memory fit does (FitPolicy's default).
DEFAULT_HEADROOM_FRACTION = 0.10
# PCIe 4.0 x16 moves about 32 GB/s each way (16 GT/s x 16 lanes, 128b/130b): the link an
# all-reduce uses when the accelerator names no NVLink/Infinity Fabric bandwidth.
PCIE4_X16_GB_PER_S = 32.0
ACTIVATION_BYTES = 2.0  # all-reduced activations are 16-bit
ALL_REDUCES_PER_LAYER = 2.0  # after attention and after the MLP (Megatron tensor parallelism)


@dataclass(frozen=True)
class Efficiency:
    """Share of the peak each regime reaches, and the fixed cost of one tensor-parallel all-reduce.

    Fields broadcast, so a Monte Carlo can pass arrays. The defaults are the
    uncalibrated roofline (seed 001: full bandwidth, 0.6 of peak compute, free
    communication); `calibration.fit_efficiency` replaces them.
    """

    memory_bandwidth: Numeric = 1.0
    decode_compute: Numeric = 0.6
    prefill_compute: Numeric = 0.6
    all_reduce_latency_s: Numeric = 0.0
    # A mixture-of-experts layer splits each batch among its experts, so every expert's matrix
    # multiply is small and reaches a lower share of peak than a dense one: this multiplies
    # both compute shares for such a model (1: no penalty).
    expert_compute: Numeric = 1.0
    # 4-bit arithmetic (FP4, INT4) doubles the 8-bit peak on paper; kernels reach less of it
    # (scaling factors, dequantised attention): this multiplies both compute shares there.
    four_bit_compute: Numeric = 1.0

    def __post_init__(self) -> None:
        for name in ("memory_bandwidth", "decode_compute", "prefill_compute", "expert_compute",
                     "four_bit_compute"):
            check_range(f"Efficiency.{name}", getattr(self, name), low=0.0, high=1.0,
                        low_open=True)
        check_range("Efficiency.all_reduce_latency_s", self.all_reduce_latency_s, low=0.0)

    def scaled(self, factor: Numeric) -> Efficiency:
        """The same regimes with every efficiency times ``factor`` (at most 1), latency divided."""
        factor = np.asarray(factor, dtype=np.float64)
        return Efficiency(np.minimum(np.asarray(self.memory_bandwidth) * factor, 1.0),
                          np.minimum(np.asarray(self.decode_compute) * factor, 1.0),
                          np.minimum(np.asarray(self.prefill_compute) * factor, 1.0),
                          np.asarray(self.all_reduce_latency_s) / factor,
                          self.expert_compute, self.four_bit_compute)


@dataclass(frozen=True)
class ServingSetup:
    """What is served on what: the model, the accelerators and their layout, the request shape.

    ``concurrency`` counts requests in flight over the whole fleet (NaN: a
    saturating load). ``compute_precision`` defaults to the weights' format
    (set FP16 for weight-only INT4) and ``kv_cache_precision`` to FP8 when the
    weights are 8-bit or narrower, else the compute format.
    """

    model: ModelShape
    accelerator: AcceleratorSpec
    accelerators: Numeric
    tensor_parallel: Numeric
    precision: Precision
    input_tokens: Numeric
    output_tokens: Numeric
    concurrency: Numeric = math.nan
    compute_precision: Precision | None = None
    kv_cache_precision: Precision | None = None
    pipeline_parallel: Numeric = 1.0
    cached_input_share: Numeric = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "precision", Precision(self.precision))
        check_range("ServingSetup.cached_input_share", self.cached_input_share, low=0.0,
                    high=1.0)
        check_range("ServingSetup.accelerators", self.accelerators, low=1.0)
        check_range("ServingSetup.tensor_parallel", self.tensor_parallel, low=1.0)
        check_range("ServingSetup.input_tokens", self.input_tokens, low=1.0)
        check_range("ServingSetup.output_tokens", self.output_tokens, low=1.0)
        check_range("ServingSetup.concurrency", self.concurrency, low=1.0, nan_allowed=True)
        check_range("ServingSetup.pipeline_parallel", self.pipeline_parallel, low=1.0)
        replicas = np.asarray(self.replicas)
        if np.any(replicas != np.round(replicas)):
            raise SizingInputError("ServingSetup.tensor_parallel",
                                   "must divide the accelerator count (whole replicas)")
        if np.any(np.mod(np.asarray(self.model.attention_heads),
                         np.asarray(self.tensor_parallel)) != 0):
            raise SizingInputError("ServingSetup.tensor_parallel",
                                   f"must divide {self.model.name}'s attention heads")

    @property
    def arithmetic_precision(self) -> Precision:
        """The format the matrix multiplies run in."""
        return Precision(self.compute_precision or self.precision)

    @property
    def kv_precision(self) -> Precision:
        """The format the KV cache is stored in."""
        if self.kv_cache_precision is not None:
            return Precision(self.kv_cache_precision)
        if bytes_per_value(self.precision) <= 1.0 and Precision.FP8 in \
                self.accelerator.dense_tflops:
            return Precision.FP8
        return self.arithmetic_precision

    @property
    def devices_per_replica(self) -> Numeric:
        """Accelerators holding one copy of the weights: tensor x pipeline parallel [count]."""
        return as_figure(np.asarray(self.tensor_parallel) * np.asarray(self.pipeline_parallel))

    @property
    def replicas(self) -> Numeric:
        """Whole copies of the weights in the fleet [count]."""
        return np.asarray(self.accelerators) / self.devices_per_replica


@dataclass(frozen=True)
class ThroughputEstimate(SizingResult):
    """Output tokens per second of a fleet, and the figures behind them (NaN where it does not fit)."""

    fits: Any
    reason: Any
    tokens_per_s: Numeric
    tokens_per_s_per_accelerator: Numeric
    concurrency_per_replica: Numeric
    max_concurrency_per_replica_by_kv_cache: Numeric
    kv_cache_limited: Any
    decode_step_s: Numeric
    decode_memory_s: Numeric
    decode_compute_s: Numeric
    decode_communication_s: Numeric
    decode_bound: Any
    prefill_s_per_request: Numeric
    decode_tokens_per_s_per_replica: Numeric
    prefill_tokens_per_s_per_replica: Numeric
    weights_gb: Numeric
    kv_cache_room_gb: Numeric


def _attention_flops_per_token(model: ModelShape, context: Numeric) -> Numeric:
    """Score and value products of one token against ``context`` cached tokens: 4 x layers x
    context x heads x head_dim (a multiply and an add each for QK^T and for AV)."""
    return as_figure(4.0 * np.asarray(model.layers) * np.asarray(context)
                     * np.asarray(model.attention_heads) * np.asarray(model.head_dim))


def weights_touched_share(model: ModelShape, batch: Numeric) -> Numeric:
    """Share of the weights a decode step of ``batch`` sequences reads.

    Dense: all of them. Mixture of experts: 1 - (1 - active / total)^batch, the
    expected share touched when each sequence picks its active weights
    independently (shared layers make the true figure a little higher at batch 1
    and the same at large batch).

    >>> from costmodel.model_presets import model_preset
    >>> round(float(weights_touched_share(model_preset("deepseek-r1"), 1)), 4)
    0.0551
    """
    active_share = np.asarray(model.parameters_per_token) / np.asarray(model.parameters)
    return as_figure(1.0 - (1.0 - active_share) ** np.asarray(batch, dtype=np.float64))


def batch1_ceiling_tokens_per_s(model: ModelShape, accelerator: AcceleratorSpec,
                                accelerators: Numeric, precision: Precision) -> Numeric:
    """Most output tokens per second one request can get: every token reads the active weights
    once, so no faster than accelerators x bandwidth / their bytes (KV cache left out, which only
    lowers it).

    >>> from costmodel.model_presets import model_preset
    >>> h100 = AcceleratorSpec("H100", 80.0, 3350.0, {"fp16": 989.0})
    >>> round(float(batch1_ceiling_tokens_per_s(model_preset("llama-3.1-8b"), h100, 1, "fp16")), 1)
    208.6
    """
    bytes_per_token_gb = weights_memory_gb(model.parameters_per_token, Precision(precision))
    return as_figure(np.asarray(accelerators, dtype=np.float64)
                     * np.asarray(accelerator.memory_bandwidth_gb_per_s) / bytes_per_token_gb)


@dataclass(frozen=True)
class ServingWork:
    """What a configuration asks of its hardware, before any efficiency: bytes and FLOPs per
    decode step and per prefill, and what the hardware offers. Fields broadcast, so the work of
    many configurations can be stacked (`stack`) and timed at once."""

    batch: Numeric
    replicas: Numeric
    output_tokens: Numeric
    read_bytes: Numeric
    bandwidth_bytes_per_s: Numeric
    decode_flops: Numeric
    prefill_flops: Numeric
    peak_flops: Numeric
    all_reduces: Numeric
    all_reduce_transfer_s: Numeric
    mixture_of_experts: Numeric = 0.0
    four_bit: Numeric = 0.0

    @classmethod
    def stack(cls, works: list[ServingWork]) -> ServingWork:
        """Many configurations' work as arrays, one element each."""
        return cls(**{name: np.array([float(getattr(w, name)) for w in works])
                      for name in cls.__dataclass_fields__})


@dataclass(frozen=True)
class ServingTimes:
    """Seconds per decode step (and its parts) and per prefill at a given efficiency."""

    memory_s: Numeric
    compute_s: Numeric
    communication_s: Numeric
    step_s: Numeric
    prefill_s: Numeric
    tokens_per_s: Numeric


def serving_times(work: ServingWork, efficiency: Efficiency) -> ServingTimes:
    """Time the work at ``efficiency``; output tokens/s of the whole fleet."""
    memory_s = np.asarray(work.read_bytes) / (np.asarray(work.bandwidth_bytes_per_s)
                                              * np.asarray(efficiency.memory_bandwidth))
    experts = (np.asarray(efficiency.expert_compute) ** np.asarray(work.mixture_of_experts)
               * np.asarray(efficiency.four_bit_compute) ** np.asarray(work.four_bit))
    compute_s = np.asarray(work.decode_flops) / (np.asarray(work.peak_flops)
                                                 * np.asarray(efficiency.decode_compute) * experts)
    communication_s = np.asarray(work.all_reduces) * (
        np.asarray(efficiency.all_reduce_latency_s) + np.asarray(work.all_reduce_transfer_s))
    step_s = np.maximum(memory_s, compute_s) + communication_s
    prefill_s = np.asarray(work.prefill_flops) / (np.asarray(work.peak_flops)
                                                  * np.asarray(efficiency.prefill_compute)
                                                  * experts)
    batch = np.asarray(work.batch)
    per_replica = batch / (batch * prefill_s / np.asarray(work.output_tokens) + step_s)
    return ServingTimes(memory_s, compute_s, communication_s, step_s, prefill_s,
                        per_replica * np.asarray(work.replicas))


def serving_work(
    setup: ServingSetup,
    *,
    headroom_fraction: Numeric = DEFAULT_HEADROOM_FRACTION,
    max_concurrency_per_replica: Numeric = DEFAULT_MAX_CONCURRENCY_PER_REPLICA,
) -> tuple[ServingWork, dict[str, Any]]:
    """The work of ``setup`` and its memory figures (weights, KV room, concurrency limits)."""
    model, accelerator = setup.model, setup.accelerator
    devices = np.asarray(setup.devices_per_replica, dtype=np.float64)
    tensor = np.asarray(setup.tensor_parallel, dtype=np.float64)
    inputs = np.asarray(setup.input_tokens, dtype=np.float64)
    outputs = np.asarray(setup.output_tokens, dtype=np.float64)
    peak_flops = (np.asarray(accelerator.tflops_at(setup.arithmetic_precision,
                                                   "ServingSetup.precision"))
                  * FLOPS_PER_TFLOPS * devices)

    weights_gb = weights_memory_gb(model.parameters, setup.precision)
    usable_gb = devices * np.asarray(accelerator.memory_gb) * (1.0 - np.asarray(headroom_fraction))
    room_gb = usable_gb - weights_gb
    per_request_gb = kv_cache_memory_gb(model, inputs + outputs, 1.0, setup.kv_precision)
    by_kv = np.where(room_gb > 0, np.floor(np.maximum(room_gb, 0.0) / per_request_gb), 0.0)
    asked = np.asarray(setup.concurrency, dtype=np.float64) / np.asarray(setup.replicas)
    wanted = np.where(np.isnan(asked), max_concurrency_per_replica, asked)
    fits = np.minimum(wanted, by_kv) >= 1.0
    batch = np.where(fits, np.maximum(np.minimum(wanted, by_kv), 1.0), np.nan)

    context = inputs + outputs / 2.0
    read_gb = (weights_gb * weights_touched_share(model, batch)
               + batch * kv_cache_memory_gb(model, context, 1.0, setup.kv_precision))
    link = np.asarray(accelerator.interconnect_gb_per_s, dtype=np.float64)
    link = np.where(np.isnan(link), PCIE4_X16_GB_PER_S, link) * BYTES_PER_GB
    # Ring all-reduce: each device sends and receives 2 (t - 1) / t of the activations.
    reduce_bytes = batch * np.asarray(model.hidden_size) * ACTIVATION_BYTES
    work = ServingWork(
        batch=batch,
        replicas=np.asarray(setup.replicas, dtype=np.float64),
        output_tokens=outputs,
        read_bytes=read_gb * BYTES_PER_GB,
        bandwidth_bytes_per_s=np.asarray(accelerator.memory_bandwidth_gb_per_s) * BYTES_PER_GB
        * devices,
        decode_flops=batch * (2.0 * np.asarray(model.parameters_per_token)
                              + _attention_flops_per_token(model, context)),
        # A prefix-cache hit skips its tokens' prefill: only the uncached share is computed.
        prefill_flops=(1.0 - np.asarray(setup.cached_input_share)) * inputs
        * (2.0 * np.asarray(model.parameters_per_token)
           + _attention_flops_per_token(model, inputs / 2.0)),
        peak_flops=peak_flops,
        all_reduces=np.where(tensor > 1.0, ALL_REDUCES_PER_LAYER * np.asarray(model.layers), 0.0),
        all_reduce_transfer_s=2.0 * (tensor - 1.0) / tensor * reduce_bytes / link,
        mixture_of_experts=np.where(np.asarray(model.parameters_per_token)
                                    < np.asarray(model.parameters), 1.0, 0.0),
        four_bit=1.0 if bytes_per_value(setup.arithmetic_precision) < 1.0 else 0.0,
    )
    memory = {"fits": fits, "by_kv": by_kv, "wanted": wanted, "weights_gb": weights_gb,
              "room_gb": room_gb}
    return work, memory


def serving_throughput(
    setup: ServingSetup,
    efficiency: Efficiency | None = None,
    *,
    headroom_fraction: Numeric = DEFAULT_HEADROOM_FRACTION,
    max_concurrency_per_replica: Numeric = DEFAULT_MAX_CONCURRENCY_PER_REPLICA,
) -> ThroughputEstimate:
    """Output tokens per second of the fleet in ``setup`` at the regime ``efficiency``.

    Examples
    --------
    Llama 3.1 8B in FP16 on one 3,350 GB/s H100, one request of 1,000 in and
    1,000 out, full bandwidth and no other cost: a step reads 16.06 GB of
    weights and 0.20 GB of cache (1,500 tokens), 4.85 ms, about 206 tokens/s
    before the prefill's share.
    """
    work, memory = serving_work(setup, headroom_fraction=headroom_fraction,
                                max_concurrency_per_replica=max_concurrency_per_replica)
    times = serving_times(work, efficiency or Efficiency())
    fits, room_gb = memory["fits"], memory["room_gb"]
    batch = np.asarray(work.batch)
    reason = np.where(fits, "", np.where(room_gb <= 0, "the weights fill the replica's memory",
                                         "no room for one request's KV cache"))
    return ThroughputEstimate(
        fits=as_output(fits),
        reason=as_output(reason),
        tokens_per_s=as_output(times.tokens_per_s),
        tokens_per_s_per_accelerator=as_output(times.tokens_per_s
                                               / np.asarray(setup.accelerators)),
        concurrency_per_replica=as_output(batch),
        max_concurrency_per_replica_by_kv_cache=as_output(memory["by_kv"]),
        kv_cache_limited=as_output(fits & (memory["by_kv"] < memory["wanted"])),
        decode_step_s=as_output(times.step_s),
        decode_memory_s=as_output(times.memory_s),
        decode_compute_s=as_output(times.compute_s),
        decode_communication_s=as_output(times.communication_s),
        decode_bound=as_output(np.select([~fits, times.memory_s >= times.compute_s],
                                         ["", "memory"], default="compute")),
        prefill_s_per_request=as_output(times.prefill_s),
        decode_tokens_per_s_per_replica=as_output(batch / times.step_s),
        prefill_tokens_per_s_per_replica=as_output(np.asarray(setup.input_tokens)
                                                   / times.prefill_s),
        weights_gb=as_output(memory["weights_gb"]),
        kv_cache_room_gb=as_output(room_gb),
    )
