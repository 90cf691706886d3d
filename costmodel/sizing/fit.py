"""The fewest accelerators that hold one copy of a model, and the parallel layout that implies.

A copy that does not fit a single device is split: for serving, by tensor
parallelism inside one node and then by pipeline stages across nodes; for
training, by the job's tensor/pipeline layout and then by sharding the
training state over data-parallel ranks (ZeRO/FSDP). Where no layout within
the `FitPolicy` holds the model, the answer is ``fits`` False with a reason
and ``accelerators`` NaN, element by element, never an exception.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from costmodel.counting import ceil_count
from costmodel.inputs import Numeric
from costmodel.sizing.errors import SizingInputError
from costmodel.sizing.inputs import AcceleratorSpec
from costmodel.sizing.inputs import FitPolicy
from costmodel.sizing.inputs import ModelShape
from costmodel.sizing.inputs import ShardingStrategy
from costmodel.sizing.memory import inference_memory
from costmodel.sizing.memory import split_training_state_gb
from costmodel.sizing.memory import training_memory
from costmodel.sizing.memory import training_memory_per_device_gb
from costmodel.sizing.memory import usable_memory_gb
from costmodel.sizing.results import FitResult
from costmodel.sizing.results import as_output
from costmodel.sizing.workloads import InferenceTarget
from costmodel.sizing.workloads import TrainingJob

WORKING_SET_TOO_LARGE = (
    "what every device must hold whole (activations, unsharded state) exceeds its usable memory"
)
LAYOUT_BEYOND_LIMITS = "the layout it needs exceeds max_tensor_parallel or max_pipeline_parallel"
TOO_MANY_ACCELERATORS = "it needs more accelerators than max_accelerators allows"

SHARDING_LABELS = {
    ShardingStrategy.NONE: "DDP, state replicated",
    ShardingStrategy.ZERO_1: "ZeRO-1",
    ShardingStrategy.ZERO_2: "ZeRO-2",
    ShardingStrategy.ZERO_3: "ZeRO-3/FSDP",
}


def _layout_text(tensor: Numeric, pipeline: Numeric, data: Numeric, fits: Any, suffix: str) -> Any:
    """Describe each layout, e.g. "TP 8 x PP 2 x DP 1", or say that none holds the model."""

    def describe(t: float, p: float, d: float, fit: bool) -> str:
        if not np.isfinite(t * p * d):
            return "no layout holds it"
        text = f"TP {t:g} x PP {p:g} x DP {d:g}{suffix}"
        return text if fit else f"needs {text}, beyond the fit policy"

    return as_output(np.vectorize(describe, otypes=[object])(tensor, pipeline, data, fits))


def _reason(fits: Any, required: Numeric, within_layout_limits: Any) -> Any:
    """Say why each element does not fit ("" where it does)."""
    return as_output(
        np.select(
            [fits, ~np.isfinite(required), ~within_layout_limits],
            ["", WORKING_SET_TOO_LARGE, LAYOUT_BEYOND_LIMITS],
            default=TOO_MANY_ACCELERATORS,
        )
    )


def _tensor_parallel_sizes(
    model: ModelShape, policy: FitPolicy, memory_minimum: Numeric
) -> tuple[Numeric, Any, Numeric]:
    """Tensor-parallel sizes that give each device whole attention heads, within the policy.

    Returns the smallest such size at or above ``memory_minimum``, whether one
    exists, and the largest such size (the group each pipeline stage uses).
    """
    max_tensor = np.asarray(policy.max_tensor_parallel, dtype=np.float64)
    sizes = np.arange(1.0, float(np.max(max_tensor)) + 1.0)
    allowed = (np.mod(np.asarray(model.attention_heads)[..., None], sizes) == 0) & (
        sizes <= max_tensor[..., None]
    )
    enough = allowed & (sizes >= np.asarray(memory_minimum)[..., None])
    # argmax finds the first True: the smallest size that is enough, and, over
    # allowed sizes weighted by size, the largest allowed one (1 always is).
    return sizes[enough.argmax(-1)], enough.any(-1), sizes[(allowed * sizes).argmax(-1)]


def fit_inference(
    model: ModelShape,
    accelerator: AcceleratorSpec,
    target: InferenceTarget,
    policy: FitPolicy | None = None,
) -> FitResult:
    """Fewest accelerators in one serving replica: weights, KV cache for the batch, activations.

    Weights and KV cache split evenly over the replica's devices; the
    activation working set splits over the tensor-parallel group only. One
    tensor-parallel group of up to ``max_tensor_parallel`` devices is tried
    first, its size the memory minimum rounded up to a divisor of the
    attention heads (each device must get whole heads: GPT-2 XL's 25 heads
    allow TP 1 or 5). Beyond one group, TP is the largest such divisor within
    the limit and pipeline stages are added, so a multi-node replica is a
    whole number of nodes. The KV cache is taken to split like the heads;
    multi-head latent attention (DeepSeek) in practice keeps its small shared
    latent on every tensor-parallel rank, which this understates.

    Returns
    -------
    FitResult
        ``accelerators`` per replica [count] (NaN where nothing fits),
        ``per_device_memory_gb`` [GB] and the TP x PP layout.

    Examples
    --------
    Llama 3 70B in FP16 (143.6 GB with a 4K-token cache and activations) on
    80 GB devices with 10 % headroom: 143.6 / 72 = 1.99, so TP 2 x PP 1.
    """
    policy = policy or FitPolicy()
    model.check_context("InferenceTarget.input_tokens", target.context_length)
    memory = inference_memory(model, target)
    usable = usable_memory_gb(accelerator.memory_gb, policy.headroom_fraction)
    splittable = memory.weights_gb + memory.kv_cache_gb
    within_node = np.maximum(ceil_count(memory.total_gb / usable), 1.0)
    group_size, in_one_group, node_size = _tensor_parallel_sizes(model, policy, within_node)
    # Past one group each pipeline stage is a full tensor group, holding its
    # share of weights and cache beside the group's share of activations.
    room_per_stage_gb = node_size * usable - memory.activations_gb
    stages = np.where(
        room_per_stage_gb > 0,
        np.maximum(ceil_count(splittable / np.where(room_per_stage_gb > 0, room_per_stage_gb, 1)),
                   1.0),
        np.nan,
    )
    tensor = np.where(in_one_group, group_size, node_size)
    pipeline = np.where(in_one_group, 1.0, stages)
    required = tensor * pipeline
    within_layout_limits = in_one_group | (stages <= policy.pipeline_limit(model))
    fits = np.isfinite(required) & within_layout_limits & (required <= policy.max_accelerators)
    data = np.ones_like(required)
    return FitResult(
        fits=as_output(fits),
        reason=_reason(fits, required, within_layout_limits),
        accelerators=as_output(np.where(fits, required, np.nan)),
        accelerators_required=as_output(required),
        tensor_parallel=as_output(tensor),
        pipeline_parallel=as_output(pipeline),
        data_parallel=as_output(data),
        layout=_layout_text(tensor, pipeline, data, fits, ""),
        per_device_memory_gb=as_output(splittable / required + memory.activations_gb / tensor),
        usable_memory_per_device_gb=as_output(usable),
        memory=memory,
        assumptions=[
            *model.assumptions(),
            *accelerator.assumptions(),
            *policy.assumptions(model),
            *target.assumptions(),
        ],
    )


def fit_training(
    model: ModelShape,
    accelerator: AcceleratorSpec,
    job: TrainingJob,
    policy: FitPolicy | None = None,
) -> FitResult:
    """Fewest accelerators that hold a training run in the job's layout and sharding.

    With the job's tensor x pipeline layout fixed, each data-parallel rank
    keeps the unsharded state and its activations whole and holds 1/DP of the
    sharded state; DP is the smallest count that makes that fit. Plain DDP
    shards nothing, so it fits on DP = 1 or not at all.

    Returns
    -------
    FitResult
        ``accelerators`` = TP x PP x DP [count] (NaN where nothing fits) and
        ``per_device_memory_gb`` at that count [GB].

    Examples
    --------
    A 70B model (1,270 GB of 18-byte state, 5.4 GB of activations with full
    recomputation at 4K tokens) under ZeRO-3 on 80 GB devices with 10 %
    headroom: 1,270 / (72 - 5.4) = 19.1, so 20 accelerators.
    """
    policy = policy or FitPolicy()
    model.check_context("TrainingJob.sequence_length", job.sequence_length)
    memory = training_memory(model, job)
    usable = usable_memory_gb(accelerator.memory_gb, policy.headroom_fraction)
    tensor = np.asarray(job.tensor_parallel, dtype=np.float64)
    if np.any(np.mod(model.attention_heads, tensor) != 0):
        raise SizingInputError(
            "TrainingJob.tensor_parallel", f"must divide {model.name}'s attention heads"
        )
    pipeline = np.asarray(job.pipeline_parallel, dtype=np.float64)
    model_parallel = tensor * pipeline
    replicated, sharded = split_training_state_gb(memory, job.sharding)

    room_gb = usable - replicated / model_parallel - memory.activations_gb / tensor
    safe_room = np.where(room_gb > 0, room_gb, 1.0)
    data = np.where(
        room_gb > 0, np.maximum(ceil_count(sharded / model_parallel / safe_room), 1.0), np.nan
    )
    required = model_parallel * data
    within_layout_limits = (tensor <= policy.max_tensor_parallel) & (
        pipeline <= policy.pipeline_limit(model)
    )
    fits = np.isfinite(required) & within_layout_limits & (required <= policy.max_accelerators)
    per_device = training_memory_per_device_gb(memory, job.sharding, tensor, pipeline, data)
    return FitResult(
        fits=as_output(fits),
        reason=_reason(fits, required, within_layout_limits),
        accelerators=as_output(np.where(fits, required, np.nan)),
        accelerators_required=as_output(required),
        tensor_parallel=as_output(np.broadcast_to(tensor, required.shape)),
        pipeline_parallel=as_output(np.broadcast_to(pipeline, required.shape)),
        data_parallel=as_output(data),
        layout=_layout_text(tensor, pipeline, data, fits, f", {SHARDING_LABELS[job.sharding]}"),
        per_device_memory_gb=as_output(per_device),
        usable_memory_per_device_gb=as_output(usable),
        memory=memory,
        assumptions=[
            *model.assumptions(),
            *accelerator.assumptions(),
            *policy.assumptions(model),
            *job.assumptions(),
        ],
    )
