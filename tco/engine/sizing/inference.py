"""Serving throughput from the decode roofline, replicas for a token rate, and cost per token.

Each decode step of a replica produces one token for each sequence in the
batch and takes the longer of two times (seed 001's roofline):

- memory: bytes read per step (weights + the batch's KV cache)
  / (devices x bandwidth x bandwidth efficiency);
- compute: 2 x parameters per token x batch FLOPs
  / (devices x dense peak x compute efficiency).

Attention-score FLOPs (about 4 x layers x context x heads x head_dim per
token) are left out of the compute time: for grouped-query attention their
arithmetic intensity is a few FLOPs per byte of KV cache read, far below any
accelerator's compute-to-bandwidth ratio, so the KV read in the memory time
already bounds them. Prefill (prompt processing) is not modelled; the
figures are output tokens.
"""

from __future__ import annotations

import numpy as np

from tco.engine.counting import ceil_count
from tco.engine.inputs import Numeric
from tco.engine.metrics import cost_per_million_tokens_usd
from tco.engine.sizing.errors import check_range
from tco.engine.sizing.fit import fit_inference
from tco.engine.sizing.inputs import AcceleratorSpec
from tco.engine.sizing.inputs import FitPolicy
from tco.engine.sizing.inputs import ModelShape
from tco.engine.sizing.memory import kv_cache_memory_gb
from tco.engine.sizing.memory import weights_memory_gb
from tco.engine.sizing.results import Assumption
from tco.engine.sizing.results import DecodeRoofline
from tco.engine.sizing.results import InferenceSizing
from tco.engine.sizing.results import as_output
from tco.engine.sizing.units import FLOPS_PER_TFLOPS
from tco.engine.sizing.workloads import InferenceTarget

# Forward pass: one multiply and one add per parameter per token.
DECODE_FLOPS_PER_PARAMETER_PER_TOKEN = 2.0


def decode_roofline(
    model: ModelShape,
    accelerator: AcceleratorSpec,
    target: InferenceTarget,
    accelerators_per_replica: Numeric,
) -> DecodeRoofline:
    """Decode speed of one replica at ``target.batch_size`` from its memory and compute bounds.

    A dense model reads all its weights every step. A mixture-of-experts
    model reads at most its active parameters for each sequence and never
    more than all its weights: min(parameters, batch x active parameters),
    an upper bound, since sequences that share an expert read it once.

    Parameters
    ----------
    model, accelerator, target
        The accelerator needs a dense TFLOPS figure at the target's compute precision.
    accelerators_per_replica : numeric
        Devices the replica's weights and cache are spread over [count]; NaN gives NaN.

    Returns
    -------
    DecodeRoofline
        Step times [s], the binding bound, tokens/s per replica and per accelerator.

    Examples
    --------
    A 7B FP16 model, batch 10, 1,000-token context, 32 layers x 8 KV heads x 128
    (1.311 GB of cache), on one device with 2,000 GB/s and 312 TFLOPS at 0.6:
    memory (14 + 1.311) / 2,000 = 7.655 ms, compute 2 x 7e9 x 10 / (312e12 x 0.6)
    = 0.748 ms, so 10 / 7.655 ms = 1,306 tokens/s.
    """
    precision_path = (
        "InferenceTarget.compute_precision"
        if target.compute_precision is not None
        else "InferenceTarget.precision"
    )
    peak_tflops = accelerator.tflops_at(target.arithmetic_precision, precision_path)
    devices = np.asarray(accelerators_per_replica, dtype=np.float64)
    batch = np.asarray(target.batch_size)
    weights_read_gb = weights_memory_gb(
        np.minimum(model.parameters, batch * model.parameters_per_token), target.precision
    )
    kv_read_gb = kv_cache_memory_gb(model, target.context_length, batch, target.kv_precision)
    memory_time_s = (weights_read_gb + kv_read_gb) / (
        devices * np.asarray(accelerator.memory_bandwidth_gb_per_s)
        * np.asarray(target.memory_bandwidth_efficiency)
    )
    compute_time_s = (DECODE_FLOPS_PER_PARAMETER_PER_TOKEN * model.parameters_per_token * batch) / (
        devices * np.asarray(peak_tflops) * FLOPS_PER_TFLOPS * np.asarray(target.compute_efficiency)
    )
    step_s = np.maximum(memory_time_s, compute_time_s)
    tokens_per_s = batch / step_s * (1.0 - np.asarray(target.power_cap_throughput_loss))
    bound = np.select(
        [np.isnan(step_s), memory_time_s >= compute_time_s], ["", "memory"], default="compute"
    )
    return DecodeRoofline(
        memory_time_s_per_step=as_output(memory_time_s),
        compute_time_s_per_step=as_output(compute_time_s),
        bound=as_output(bound),
        tokens_per_s_per_replica=as_output(tokens_per_s),
        tokens_per_s_per_accelerator=as_output(tokens_per_s / devices),
    )


def size_inference(
    model: ModelShape, accelerator: AcceleratorSpec, target: InferenceTarget,
    *,
    policy: FitPolicy | None = None,
    price_usd_per_accelerator_hour: Numeric | None = None,
) -> InferenceSizing:
    """Accelerators to serve ``target.tokens_per_s``: replicas x the fewest devices per replica.

    Each replica is the memory fit of weights, the batch's KV cache and
    activations; its speed is the decode roofline at the target's batch;
    replicas = ceil(target tokens/s / tokens/s per replica) (one if the
    target has no rate). With a price, cost per million tokens follows.

    Returns
    -------
    InferenceSizing
        Replicas, ``accelerators`` [count], capacity [tokens/s], tokens/s per
        accelerator and [USD per million tokens]; NaN where the replica does not fit.

    Examples
    --------
    5,000 tokens/s of a model whose one-device replica makes 1,306 tokens/s:
    ceil(5,000 / 1,306) = 4 replicas, 4 accelerators, capacity 5,225 tokens/s.
    """
    fit = fit_inference(model, accelerator, target, policy)
    per_replica = np.asarray(fit.accelerators, dtype=np.float64)
    roofline = decode_roofline(model, accelerator, target, per_replica)
    replica_tokens_per_s = np.asarray(roofline.tokens_per_s_per_replica)
    target_rate = np.asarray(target.tokens_per_s, dtype=np.float64)
    replicas = np.where(
        np.isnan(target_rate) & np.isfinite(replica_tokens_per_s),
        1.0,
        ceil_count(target_rate / replica_tokens_per_s),
    )
    tokens_per_s_per_accelerator = roofline.tokens_per_s_per_accelerator
    assumptions = [
        *fit.assumptions,
        accelerator.peak_assumption(target.arithmetic_precision),
        Assumption("decode_flops_per_token", "2 x parameters per token", "FLOP", "seed 001"),
        Assumption("weights_read_per_step", "min(parameters, batch x parameters per token)",
                   "parameters", "dense: all weights every step; MoE: upper bound"),
    ]
    cost = None
    if price_usd_per_accelerator_hour is not None:
        check_range("price_usd_per_accelerator_hour", price_usd_per_accelerator_hour, low=0.0)
        cost = as_output(
            cost_per_million_tokens_usd(price_usd_per_accelerator_hour,
                                        tokens_per_s_per_accelerator)
        )
        assumptions.append(
            Assumption.given("price", price_usd_per_accelerator_hour, "USD per accelerator-hour")
        )
    return InferenceSizing(
        fits=fit.fits,
        reason=fit.reason,
        accelerators_per_replica=fit.accelerators,
        replicas=as_output(replicas),
        accelerators=as_output(replicas * per_replica),
        capacity_tokens_per_s=as_output(replicas * replica_tokens_per_s),
        tokens_per_s_per_accelerator=tokens_per_s_per_accelerator,
        cost_usd_per_million_tokens=cost,
        roofline=roofline,
        fit=fit,
        assumptions=assumptions,
    )
