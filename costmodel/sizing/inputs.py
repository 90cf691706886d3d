"""Sizing inputs: number formats, the model, the accelerator, and the fit policy.

Numeric fields are floats or NumPy arrays that broadcast together, as in the
rest of the engine, and carry their valid range in their metadata
(``costmodel.inputs.numeric``). Each dataclass checks itself when built and
raises `SizingInputError` naming the field. Memory is in decimal GB (1e9
bytes), the unit vendors quote HBM in, so "80 GB" is 80e9 bytes; the physical
80 GiB of an H100 is 7 % more, which leaves a little slack on top of the
headroom in `FitPolicy`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from dataclasses import fields
from enum import StrEnum
from types import MappingProxyType
from types import UnionType
from typing import Any
from typing import get_args
from typing import get_type_hints

import numpy as np

from costmodel.inputs import Numeric
from costmodel.inputs import numeric
from costmodel.inputs import share
from costmodel.sizing.errors import SizingInputError
from costmodel.sizing.errors import check_range
from costmodel.sizing.errors import check_whole
from costmodel.sizing.errors import validate_numeric_fields
from costmodel.sizing.results import Assumption


class Precision(StrEnum):
    """Number format of weights, caches or arithmetic."""

    FP32 = "fp32"
    TF32 = "tf32"
    FP16 = "fp16"
    BF16 = "bf16"
    FP8 = "fp8"
    INT8 = "int8"
    FP4 = "fp4"
    INT4 = "int4"


# Storage size of one value in each format, by definition of the format (TF32 is
# stored in a 32-bit word; only the tensor cores read 19 of its bits).
BYTES_PER_VALUE: Mapping[Precision, float] = MappingProxyType(
    {
        Precision.FP32: 4.0,
        Precision.TF32: 4.0,
        Precision.FP16: 2.0,
        Precision.BF16: 2.0,
        Precision.FP8: 1.0,
        Precision.INT8: 1.0,
        Precision.FP4: 0.5,
        Precision.INT4: 0.5,
    }
)


class ShardingStrategy(StrEnum):
    """How a data-parallel group splits the training state (ZeRO stages; FSDP = ZeRO-3)."""

    NONE = "ddp"
    ZERO_1 = "zero1"
    ZERO_2 = "zero2"
    ZERO_3 = "zero3"
    FSDP = "zero3"  # PyTorch FSDP FULL_SHARD shards what ZeRO-3 shards.


# Which training-state components each strategy divides by the data-parallel
# group size (Rajbhandari et al. 2020, "ZeRO", section 5): stage 1 partitions
# the optimizer states, which in mixed precision include the fp32 master
# weights; stage 2 adds the gradients; stage 3 adds the working weights.
SHARDED_COMPONENTS: Mapping[ShardingStrategy, frozenset[str]] = MappingProxyType(
    {
        ShardingStrategy.NONE: frozenset(),
        ShardingStrategy.ZERO_1: frozenset({"master_weights", "optimizer_states"}),
        ShardingStrategy.ZERO_2: frozenset({"master_weights", "optimizer_states", "gradients"}),
        ShardingStrategy.ZERO_3: frozenset(
            {"master_weights", "optimizer_states", "gradients", "weights"}
        ),
    }
)


class ActivationRecomputation(StrEnum):
    """Which activations a training step recomputes in the backward pass instead of storing."""

    NONE = "none"
    SELECTIVE = "selective"
    FULL = "full"


@functools.cache
def _enum_fields(cls: type) -> tuple[tuple[str, type[StrEnum]], ...]:
    """(name, enum) of each dataclass field typed as an enum or an optional one.

    Cached per class: resolving the annotations takes longer than building the dataclass.
    """
    hints = get_type_hints(cls)
    found = []
    for f in fields(cls):
        hint = hints[f.name]
        for candidate in get_args(hint) if isinstance(hint, UnionType) else (hint,):
            if isinstance(candidate, type) and issubclass(candidate, StrEnum):
                found.append((f.name, candidate))
    return tuple(found)


def coerce_enum_fields(obj: Any) -> None:
    """Turn strings in a frozen dataclass's enum-typed fields into their enums, or raise naming the field."""
    cls: type = type(obj)  # mypy takes type(x) for unhashable (python/mypy#11470)
    for name, enum_type in _enum_fields(cls):
        value = getattr(obj, name)
        if value is None or isinstance(value, enum_type):
            continue
        try:
            object.__setattr__(obj, name, enum_type(value))
        except ValueError as exc:
            choices = ", ".join(member.value for member in enum_type)
            raise SizingInputError(
                f"{type(obj).__name__}.{name}", f"must be one of {choices}; got {value!r}"
            ) from exc


@dataclass(frozen=True)
class ModelShape:
    """A transformer's size and shape as published by its authors.

    ``active_parameters`` is the count used per token by a mixture-of-experts
    model (NaN for a dense model: all parameters are active).
    ``kv_cache_values_per_token_per_layer`` overrides the standard
    2 x kv_heads x head_dim for attention variants that cache something else
    (multi-head latent attention caches one compressed latent per token).
    """

    name: str
    parameters: Numeric = numeric(low_open=True)
    layers: Numeric = numeric(low=1.0)
    hidden_size: Numeric = numeric(low=1.0)
    attention_heads: Numeric = numeric(low=1.0)
    kv_heads: Numeric = numeric(low=1.0)
    head_dim: Numeric = numeric(low=1.0)
    vocab_size: Numeric = numeric(low=1.0)
    max_context_length: Numeric = numeric(low=1.0)
    active_parameters: Numeric = numeric(math.nan, low_open=True, nan_allowed=True)
    kv_cache_values_per_token_per_layer: Numeric = numeric(
        math.nan, low_open=True, nan_allowed=True
    )
    source: str = ""

    def __post_init__(self) -> None:
        validate_numeric_fields(self)
        if np.any(np.asarray(self.active_parameters) > np.asarray(self.parameters)):
            raise SizingInputError(
                "ModelShape.active_parameters", "cannot exceed the model's total parameters"
            )
        if np.any(np.asarray(self.kv_heads) > np.asarray(self.attention_heads)):
            raise SizingInputError("ModelShape.kv_heads", "cannot exceed attention_heads")

    @property
    def parameters_per_token(self) -> Numeric:
        """Parameters that take part in each token's forward pass (active ones for MoE) [count]."""
        return np.where(np.isnan(self.active_parameters), self.parameters, self.active_parameters)

    @property
    def kv_values_per_token_per_layer(self) -> Numeric:
        """Values cached per token and layer: 2 (K, V) x kv_heads x head_dim unless overridden."""
        standard = 2.0 * np.asarray(self.kv_heads) * np.asarray(self.head_dim)
        override = np.asarray(self.kv_cache_values_per_token_per_layer)
        return np.where(np.isnan(override), standard, override)

    def check_context(self, path: str, context_length: Numeric) -> None:
        """Refuse a context longer than the model was trained to handle, naming ``path``."""
        if np.any(np.asarray(context_length) > np.asarray(self.max_context_length)):
            raise SizingInputError(
                path, f"exceeds {self.name}'s maximum context of {self.max_context_length} tokens"
            )

    def assumptions(self) -> list[Assumption]:
        """The model figures a result uses, with their source."""
        standard_kv = np.all(np.isnan(self.kv_cache_values_per_token_per_layer))
        return [
            Assumption.given("model", self.name, "", self.source),
            Assumption.given("parameters", self.parameters, "parameters", self.source),
            Assumption.given("parameters_per_token", self.parameters_per_token, "parameters", self.source),
            Assumption.given("kv_cache_values_per_token_per_layer", self.kv_values_per_token_per_layer,
                             "values", "2 x kv_heads x head_dim" if standard_kv else self.source),
        ]


@dataclass(frozen=True)
class AcceleratorSpec:
    """One accelerator: memory, memory bandwidth and dense (not sparse) peak TFLOPS by precision.

    INT8 and INT4 figures are tera-operations per second, filed under the same
    mapping. A precision missing from ``dense_tflops`` is one the accelerator
    cannot run at tensor-core speed, and sizing refuses it.
    ``interconnect_gb_per_s`` is its NVLink/Infinity Fabric bandwidth each way
    (NaN: none, tensor-parallel all-reduces go over PCIe).
    """

    name: str
    memory_gb: Numeric = numeric(low_open=True)
    memory_bandwidth_gb_per_s: Numeric = numeric(low_open=True)
    dense_tflops: Mapping[Precision, Numeric] = field(default_factory=dict)
    source: str = ""
    interconnect_gb_per_s: Numeric = numeric(math.nan, low_open=True, nan_allowed=True)

    def __post_init__(self) -> None:
        validate_numeric_fields(self)
        tflops: dict[Precision, Numeric] = {}
        for key, value in self.dense_tflops.items():
            path = f"AcceleratorSpec.dense_tflops[{key}]"
            try:
                precision = Precision(key)
            except ValueError as exc:
                raise SizingInputError(path, "is not a known precision") from exc
            check_range(path, value, low=0.0, low_open=True)
            tflops[precision] = value
        object.__setattr__(self, "dense_tflops", MappingProxyType(tflops))

    def tflops_at(self, precision: Precision, path: str) -> Numeric:
        """Dense peak TFLOPS at ``precision``; refuse, naming ``path``, if the device has none."""
        if precision not in self.dense_tflops:
            known = ", ".join(p.value for p in self.dense_tflops) or "none"
            raise SizingInputError(
                path,
                f"{self.name} has no dense TFLOPS figure for {precision.value} (it has: {known})",
            )
        return self.dense_tflops[precision]

    def assumptions(self) -> list[Assumption]:
        """The accelerator's memory figures, with their source."""
        return [
            Assumption.given("accelerator", self.name, "", self.source),
            Assumption.given("accelerator_memory", self.memory_gb, "GB", self.source),
            Assumption.given("memory_bandwidth", self.memory_bandwidth_gb_per_s, "GB/s", self.source),
        ]

    def peak_assumption(self, precision: Precision) -> Assumption:
        """The dense peak a throughput figure uses, with its source."""
        return Assumption.given(f"dense_peak_{precision.value}", self.dense_tflops[precision], "TFLOPS",
                                self.source)


@dataclass(frozen=True)
class FitPolicy:
    """How much of each device's memory a plan may fill and how far it may split one model copy.

    The headroom is kept free on every device for the runtime (CUDA context,
    communication buffers, allocator fragmentation, ZeRO-3 prefetch of the
    next layer). With the default 10 %, an 80 GB device offers 72 GB, so the
    140 GB of a 70B model's FP16 weights need two devices (2 x 72 = 144).
    Tensor parallelism stays inside one server's NVLink/NVSwitch domain
    (8 accelerators in a DGX/HGX node, seed 002); more devices become
    pipeline stages, at most one per layer unless ``max_pipeline_parallel``
    says otherwise (NaN: the model's layer count).
    """

    headroom_fraction: Numeric = share(0.10, high_open=True)
    max_tensor_parallel: Numeric = numeric(8.0, low=1.0)
    max_pipeline_parallel: Numeric = numeric(math.nan, low=1.0, nan_allowed=True)
    max_accelerators: Numeric = numeric(math.inf, low=1.0, inf_allowed=True)

    def __post_init__(self) -> None:
        validate_numeric_fields(self)
        check_whole("FitPolicy.max_tensor_parallel", self.max_tensor_parallel)

    def pipeline_limit(self, model: ModelShape) -> Numeric:
        """Most pipeline stages allowed: the policy's limit or one stage per layer."""
        limit = np.asarray(self.max_pipeline_parallel, dtype=np.float64)
        return np.where(np.isnan(limit), model.layers, limit)

    def assumptions(self, model: ModelShape) -> list[Assumption]:
        """The fit conventions a result uses."""
        return [
            Assumption("memory_headroom", self.headroom_fraction, "share of device memory",
                       "convention: kept free for runtime, buffers and fragmentation"),
            Assumption("max_tensor_parallel", self.max_tensor_parallel, "accelerators",
                       "one NVLink/NVSwitch node (8 GPUs in a DGX/HGX, seed 002)"),
            Assumption("max_pipeline_parallel", self.pipeline_limit(model), "stages",
                       "at least one layer per pipeline stage"),
            Assumption.given("max_accelerators", self.max_accelerators, "accelerators"),
        ]
