"""How much accelerator memory a model copy needs, by component, and how it splits.

All figures are decimal GB (1e9 bytes). Inputs broadcast: a vector of
parameter counts gives a vector of answers.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from costmodel.counting import ceil_count
from costmodel.inputs import Numeric
from costmodel.sizing.inputs import BYTES_PER_VALUE
from costmodel.sizing.inputs import SHARDED_COMPONENTS
from costmodel.sizing.inputs import ActivationRecomputation
from costmodel.sizing.inputs import ModelShape
from costmodel.sizing.inputs import Precision
from costmodel.sizing.inputs import ShardingStrategy
from costmodel.sizing.results import MemoryBreakdown
from costmodel.sizing.units import BYTES_PER_GB
from costmodel.sizing.workloads import InferenceTarget
from costmodel.sizing.workloads import TrainingJob

# Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
# Transformer Models", eq. 1-2 and section 5: bytes of 16-bit activations a
# layer keeps for the backward pass, per token and per unit of hidden size.
# Selective recomputation (and FlashAttention, which never stores the
# attention matrix) keeps 34; full recomputation keeps only the layer input (2).
ACTIVATION_BYTES_PER_TOKEN_PER_HIDDEN = {
    ActivationRecomputation.SELECTIVE: 34.0,
    ActivationRecomputation.FULL: 2.0,
}
# Without recomputation the attention scores add 5 x heads x sequence / hidden.
ATTENTION_SCORE_BYTES_FACTOR = 5.0


def bytes_per_value(precision: Precision) -> float:
    """Bytes one value takes in ``precision`` (FP32 4, FP16/BF16 2, FP8/INT8 1, INT4 0.5)."""
    return BYTES_PER_VALUE[Precision(precision)]


def weights_memory_gb(parameters: Numeric, precision: Precision) -> Numeric:
    """Memory of a model's weights.

    Parameters
    ----------
    parameters : numeric
        All parameters, including every expert of a mixture-of-experts model [count].
    precision : Precision
        Storage format of the weights.

    Returns
    -------
    numeric
        Weights memory [GB].

    Examples
    --------
    A 7B model in FP16: 7e9 x 2 bytes = 14 GB (seed 002).

    >>> float(weights_memory_gb(7e9, Precision.FP16))
    14.0
    """
    return np.asarray(parameters, dtype=np.float64) * bytes_per_value(precision) / BYTES_PER_GB


def kv_cache_memory_gb(
    model: ModelShape, context_length: Numeric, batch_size: Numeric, precision: Precision
) -> Numeric:
    """Memory of the attention key/value cache.

    2 (K and V) x layers x kv_heads x head_dim x context x batch x bytes, so
    grouped-query attention (few KV heads) is counted with its real,
    smaller cache; models with another cache layout set
    ``ModelShape.kv_cache_values_per_token_per_layer``.

    Parameters
    ----------
    model : ModelShape
    context_length : numeric
        Tokens held per sequence [tokens].
    batch_size : numeric
        Sequences held at once [sequences].
    precision : Precision
        Storage format of the cache.

    Returns
    -------
    numeric
        KV cache memory [GB].

    Examples
    --------
    Llama 3 70B (80 layers, 8 KV heads of 128) at 4,096 tokens, batch 1, FP16:
    2 x 80 x 8 x 128 x 4,096 x 2 bytes = 1.342 GB.

    >>> from costmodel.model_presets import model_preset
    >>> round(float(kv_cache_memory_gb(model_preset("llama-3.1-70b"), 4096, 1, "fp16")), 3)
    1.342
    """
    values = (
        np.asarray(model.layers)
        * model.kv_values_per_token_per_layer
        * np.asarray(context_length)
        * np.asarray(batch_size)
    )
    return cast(Numeric, values * bytes_per_value(precision) / BYTES_PER_GB)


def training_activation_memory_gb(model: ModelShape, job: TrainingJob) -> Numeric:
    """Activations one model copy keeps for the backward pass of one micro-batch.

    Per layer, s x b x h x 34 bytes with selective recomputation, 2 with full
    recomputation, and 34 + 5 x heads x s / h without recomputation
    (Korthikanti et al. 2022), times the layer count; s is the sequence
    length, b the micro-batch and h the hidden size. A value in
    ``job.activation_memory_gb`` replaces the estimate.

    Returns
    -------
    numeric
        Activation memory of the whole model copy [GB].

    Examples
    --------
    Llama 3 8B (32 layers, hidden 4,096), 4,096 tokens, micro-batch 1, full
    recomputation: 32 x 4,096 x 4,096 x 2 bytes = 1.074 GB.
    """
    tokens_by_hidden = (
        np.asarray(job.sequence_length) * np.asarray(job.micro_batch_size) * model.hidden_size
    )
    if job.recomputation is ActivationRecomputation.NONE:
        bytes_factor = 34.0 + ATTENTION_SCORE_BYTES_FACTOR * np.asarray(
            model.attention_heads
        ) * np.asarray(job.sequence_length) / np.asarray(model.hidden_size)
    else:
        bytes_factor = ACTIVATION_BYTES_PER_TOKEN_PER_HIDDEN[job.recomputation]
    estimate = np.asarray(model.layers) * tokens_by_hidden * bytes_factor / BYTES_PER_GB
    override = np.asarray(job.activation_memory_gb, dtype=np.float64)
    return np.where(np.isnan(override), estimate, override)


def inference_activation_memory_gb(model: ModelShape, target: InferenceTarget) -> Numeric:
    """Peak working memory of a forward pass while serving.

    Inference frees each layer's activations once the next layer has them,
    so the peak is about one layer's worth for the largest prefill step: we
    take the training figure for one layer, 34 bytes x tokens x hidden
    (Korthikanti et al. 2022), for min(context, prefill chunk) tokens, since
    serving engines prefill long prompts in chunks. An upper bound; a value in
    ``target.activation_memory_gb`` replaces it.

    Returns
    -------
    numeric
        Activation memory of one serving replica [GB].

    Examples
    --------
    Llama 3 70B (hidden 8,192) with a 4,096-token prompt: 34 x 4,096 x 8,192
    bytes = 1.141 GB.
    """
    tokens = np.minimum(target.context_length, target.prefill_chunk_tokens)
    estimate = ACTIVATION_BYTES_PER_TOKEN_PER_HIDDEN[ActivationRecomputation.SELECTIVE] * (
        tokens * np.asarray(model.hidden_size)
    ) / BYTES_PER_GB
    override = np.asarray(target.activation_memory_gb, dtype=np.float64)
    return np.where(np.isnan(override), estimate, override)


def training_memory(model: ModelShape, job: TrainingJob) -> MemoryBreakdown:
    """Memory of one full training copy of the model, by component, before any splitting.

    Examples
    --------
    A 7B model with the default mixed-precision Adam state (2 + 4 + 4 + 8 = 18
    bytes per parameter) holds 7e9 x 18 = 126 GB before activations (seed 002).
    """
    parameters = np.asarray(model.parameters, dtype=np.float64)
    state = {
        name: parameters * np.asarray(bytes_each) / BYTES_PER_GB
        for name, bytes_each in job.state_bytes.by_component().items()
    }
    activations = training_activation_memory_gb(model, job)
    return MemoryBreakdown(
        weights_gb=state["weights"],
        master_weights_gb=state["master_weights"],
        gradients_gb=state["gradients"],
        optimizer_states_gb=state["optimizer_states"],
        activations_gb=activations,
        kv_cache_gb=np.zeros_like(activations),
        total_gb=sum(state.values()) + activations,
    )


def inference_memory(model: ModelShape, target: InferenceTarget) -> MemoryBreakdown:
    """Memory of one serving replica: weights, KV cache for the batch, and activations.

    Examples
    --------
    Llama 3 70B in FP16 at 4,096 tokens, batch 1: 141.1 GB of weights + 1.34 GB
    of KV cache + 1.14 GB of activations = 143.6 GB.
    """
    weights = weights_memory_gb(model.parameters, target.precision)
    kv_cache = kv_cache_memory_gb(
        model, target.context_length, target.memory_batch, target.kv_precision
    )
    activations = inference_activation_memory_gb(model, target)
    zeros = np.zeros_like(weights * kv_cache)
    return MemoryBreakdown(
        weights_gb=weights,
        master_weights_gb=zeros,
        gradients_gb=zeros,
        optimizer_states_gb=zeros,
        activations_gb=activations,
        kv_cache_gb=kv_cache,
        total_gb=weights + kv_cache + activations,
    )


def split_training_state_gb(
    memory: MemoryBreakdown, sharding: ShardingStrategy
) -> tuple[Numeric, Numeric]:
    """Split the training state into (kept whole on each data-parallel rank, sharded) [GB]."""
    sharded_names = SHARDED_COMPONENTS[sharding]
    components = {
        "weights": memory.weights_gb,
        "master_weights": memory.master_weights_gb,
        "gradients": memory.gradients_gb,
        "optimizer_states": memory.optimizer_states_gb,
    }
    replicated = sum(v for name, v in components.items() if name not in sharded_names)
    sharded = sum(v for name, v in components.items() if name in sharded_names)
    return np.asarray(replicated, dtype=np.float64), np.asarray(sharded, dtype=np.float64)


def training_memory_per_device_gb(
    memory: MemoryBreakdown,
    sharding: ShardingStrategy,
    tensor_parallel: Numeric,
    pipeline_parallel: Numeric,
    data_parallel: Numeric,
) -> Numeric:
    """Memory on each accelerator of a training layout.

    Tensor and pipeline parallelism divide every state component by
    TP x PP; the sharding strategy further divides its components by the
    data-parallel size. Activations divide by TP only: Megatron's sequence
    parallelism splits them across the tensor group, while under the 1F1B
    pipeline schedule the first stage holds PP micro-batches of its 1/PP of
    the layers, i.e. one whole model's worth (Korthikanti et al. 2022, §4.2.3).

    Examples
    --------
    70B, 18 bytes/parameter (1,260 GB), ZeRO-3 over 20 devices, 5.4 GB of
    activations: 1,260 / 20 + 5.4 = 68.4 GB per device.
    """
    replicated, sharded = split_training_state_gb(memory, sharding)
    model_parallel = np.asarray(tensor_parallel) * np.asarray(pipeline_parallel)
    return cast(
        Numeric,
        (replicated + sharded / np.asarray(data_parallel)) / model_parallel
        + memory.activations_gb / np.asarray(tensor_parallel),
    )


def usable_memory_gb(memory_gb: Numeric, headroom_fraction: Numeric) -> Numeric:
    """Memory a plan may fill on one device: capacity less the runtime headroom [GB]."""
    return np.asarray(memory_gb) * (1.0 - np.asarray(headroom_fraction))


def accelerators_to_hold(
    memory_needed_gb: Numeric, memory_gb: Numeric, headroom_fraction: Numeric
) -> Numeric:
    """Fewest devices whose usable memory adds up to ``memory_needed_gb``.

    Parameters
    ----------
    memory_needed_gb : numeric
        Memory that can be split evenly across devices [GB].
    memory_gb : numeric
        Capacity of one device [GB].
    headroom_fraction : numeric
        Share of each device kept free [0-1).

    Returns
    -------
    numeric
        Devices [count], at least 1.

    Examples
    --------
    140 GB of FP16 weights on 80 GB devices with 10 % headroom: 140 / 72 = 1.94,
    so two (seed 002: "needs 2x A100 80GB").

    >>> float(accelerators_to_hold(140.0, 80.0, 0.10))
    2.0
    """
    usable = usable_memory_gb(memory_gb, headroom_fraction)
    return np.maximum(ceil_count(np.asarray(memory_needed_gb) / usable), 1.0)
