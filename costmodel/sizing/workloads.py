"""What is to be run: a training job or a serving target, with the conventions each one uses.

Numeric fields are floats or NumPy arrays that broadcast together and carry
their valid range in their metadata; each dataclass checks itself when built
and raises `SizingInputError` naming the field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from dataclasses import field
from typing import cast

import numpy as np

from costmodel.inputs import Numeric
from costmodel.inputs import numeric
from costmodel.inputs import share
from costmodel.sizing.errors import SizingInputError
from costmodel.sizing.errors import check_range
from costmodel.sizing.errors import check_whole
from costmodel.sizing.errors import validate_numeric_fields
from costmodel.sizing.inputs import ActivationRecomputation
from costmodel.sizing.inputs import Precision
from costmodel.sizing.inputs import ShardingStrategy
from costmodel.sizing.inputs import coerce_enum_fields
from costmodel.sizing.results import Assumption


@dataclass(frozen=True)
class TrainingStateBytesPerParameter:
    """Training state kept per parameter, by component [bytes/parameter].

    The defaults are mixed-precision Adam as the Hugging Face "model training
    anatomy" guide counts it: a 16-bit working copy of the weights (2) and an
    fp32 master copy (4), fp32 gradients (4) and Adam's two fp32 moments (8),
    18 bytes in all, the figure seed 002 quotes. ZeRO (Rajbhandari et al. 2020)
    keeps 16-bit gradients and counts 16: set ``gradients_bytes=2``.
    """

    weights_bytes: Numeric = numeric(2.0, low_open=True)
    master_weights_bytes: Numeric = numeric(4.0)
    gradients_bytes: Numeric = numeric(4.0)
    optimizer_states_bytes: Numeric = numeric(8.0)

    def __post_init__(self) -> None:
        validate_numeric_fields(self)

    def by_component(self) -> dict[str, Numeric]:
        """Bytes per parameter keyed by the component names of `SHARDED_COMPONENTS`."""
        return {
            "weights": self.weights_bytes,
            "master_weights": self.master_weights_bytes,
            "gradients": self.gradients_bytes,
            "optimizer_states": self.optimizer_states_bytes,
        }


SEED_003_SCALING_SOURCE = (
    "seed 003_9fa7707fdd6b8eab, 'Scaling efficiency' table (8: 95 %, 64: 85 %, 512: 75 %, "
    "4,096: 60 %, 16,384: 45 %); 1 device: 100 % by definition"
)


@dataclass(frozen=True)
class ScalingEfficiencyTable:
    """Share of linear speed-up kept at each accelerator count, interpolated in log2(count).

    Between two rows the efficiency is linear in log2(count), as seed 003 says
    it "decreases logarithmically with GPU count"; below the first row it is
    the first row's value and above the last row the last row's value (held,
    not extrapolated, so clusters larger than the table are treated as well as
    its last row).
    """

    accelerator_counts: tuple[float, ...] = (1.0, 8.0, 64.0, 512.0, 4096.0, 16384.0)
    efficiencies: tuple[float, ...] = (1.0, 0.95, 0.85, 0.75, 0.60, 0.45)
    source: str = SEED_003_SCALING_SOURCE

    def __post_init__(self) -> None:
        counts = np.asarray(self.accelerator_counts, dtype=np.float64)
        efficiencies = np.asarray(self.efficiencies, dtype=np.float64)
        name = "ScalingEfficiencyTable"
        if counts.ndim != 1 or counts.shape != efficiencies.shape or counts.size == 0:
            raise SizingInputError(f"{name}.efficiencies", "needs one efficiency per count")
        check_range(f"{name}.accelerator_counts", counts, low=1.0)
        check_range(f"{name}.efficiencies", efficiencies, low=0.0, high=1.0, low_open=True)
        if np.any(np.diff(counts) <= 0):
            raise SizingInputError(f"{name}.accelerator_counts", "must increase strictly")
        if np.any(np.diff(efficiencies) > 0):
            raise SizingInputError(f"{name}.efficiencies", "must not rise with the count")
        # d(n e(n))/dn = e(n) + slope / ln 2 on each segment (slope per log2 step),
        # smallest at the segment's end. Keeping it positive means more
        # accelerators never finish later, which the deadline search relies on.
        slopes = np.diff(efficiencies) / np.diff(np.log2(counts))
        if np.any(efficiencies[1:] + slopes / math.log(2.0) <= 0):
            raise SizingInputError(
                f"{name}.efficiencies", "falls so fast that more accelerators would finish later"
            )

    def assumptions(self) -> list[Assumption]:
        """The table as one assumption."""
        rows = [[count, eff] for count, eff in zip(self.accelerator_counts, self.efficiencies,
                                                    strict=True)]
        return [Assumption("scaling_efficiency_table", rows, "[accelerators, share]",
                           self.source)]


@dataclass(frozen=True)
class TrainingJob:
    """A training or fine-tuning run: tokens to process, arithmetic precision and layout.

    ``mfu`` is the model-FLOPs utilisation of each accelerator on its own;
    losses from scaling out come from ``scaling`` on top. An MFU measured at
    the target scale already includes them (Meta's 38-43 % for Llama 3 on
    8K-16K H100s does): then pass ``ScalingEfficiencyTable((1.0,), (1.0,))``.
    ``activation_memory_gb`` (NaN: estimate) overrides the activation
    estimate for the whole model copy at one micro-batch. ``sequence_length``
    is the training sequence length (at most the model's context; 2,048 for
    GPT-3) and ``micro_batch_size`` the sequences per data-parallel rank per step.
    """

    tokens: Numeric = numeric(low_open=True)
    precision: Precision = Precision.BF16
    mfu: Numeric = numeric(0.40, low_open=True, high=1.0)
    sharding: ShardingStrategy = ShardingStrategy.ZERO_3
    tensor_parallel: Numeric = numeric(1.0, low=1.0)
    pipeline_parallel: Numeric = numeric(1.0, low=1.0)
    sequence_length: Numeric = numeric(4096.0, low=1.0)
    micro_batch_size: Numeric = numeric(1.0, low=1.0)
    recomputation: ActivationRecomputation = ActivationRecomputation.FULL
    activation_memory_gb: Numeric = numeric(math.nan, nan_allowed=True)
    state_bytes: TrainingStateBytesPerParameter = field(
        default_factory=TrainingStateBytesPerParameter
    )
    scaling: ScalingEfficiencyTable = field(default_factory=ScalingEfficiencyTable)
    power_cap_throughput_loss: Numeric = share(0.0, high_open=True)

    def __post_init__(self) -> None:
        coerce_enum_fields(self)
        validate_numeric_fields(self)
        check_whole("TrainingJob.tensor_parallel", self.tensor_parallel)
        check_whole("TrainingJob.pipeline_parallel", self.pipeline_parallel)

    @property
    def model_parallel(self) -> Numeric:
        """Accelerators holding one copy of the model: tensor x pipeline parallel [count]."""
        return cast(Numeric, np.asarray(self.tensor_parallel) * np.asarray(self.pipeline_parallel))

    def assumptions(self) -> list[Assumption]:
        """The job's figures and conventions."""
        bytes_source = "default: mixed-precision Adam, 18 bytes/parameter (seed 002; HF guide)"
        return [
            Assumption.given("training_tokens", self.tokens, "tokens"),
            Assumption("training_flops", "6 x parameters per token x tokens", "FLOP",
                       "Kaplan et al. 2020; seed 001 (7e9 x 6 x tokens)"),
            Assumption.given("precision", self.precision, ""),
            Assumption("mfu", self.mfu, "share of dense peak",
                       "input (default 0.40; Llama 3 paper, Table 4: 38-43 % at scale)"),
            Assumption.given("sharding", self.sharding, ""),
            Assumption.given("tensor_parallel", self.tensor_parallel, "accelerators"),
            Assumption.given("pipeline_parallel", self.pipeline_parallel, "stages"),
            Assumption.given("sequence_length", self.sequence_length, "tokens"),
            Assumption.given("micro_batch_size", self.micro_batch_size, "sequences"),
            Assumption("activation_recomputation", self.recomputation, "",
                       "Korthikanti et al. 2022 activation estimate"),
            *(Assumption(f"{name}_bytes_per_parameter", value, "bytes/parameter", bytes_source)
              for name, value in self.state_bytes.by_component().items()),
            *self.scaling.assumptions(),
            Assumption("power_cap_throughput_loss", self.power_cap_throughput_loss, "share",
                       "input (seed 003 gives H100 figures)"),
        ]


# Service-level targets a sizing meets unless told otherwise. MLPerf Inference's Llama 2 70B
# "Server" scenario allows 2 s to the first token; 10 output tokens/s per user is about twice
# reading speed (people read 4-5 tokens/s; MLPerf's 200 ms per output token, 5 tokens/s, is its
# floor).
DEFAULT_TIME_TO_FIRST_TOKEN_S = 2.0
DEFAULT_TOKENS_PER_S_PER_USER = 10.0


@dataclass(frozen=True)
class InferenceTarget:
    """A serving requirement: output tokens per second for requests of a given shape.

    Each request reads ``input_tokens`` and writes ``output_tokens``; a replica
    serves ``concurrency`` of them at once (NaN: a saturating load, as many as
    its KV cache holds). ``precision`` is the weights' format; arithmetic runs
    at ``compute_precision`` (default: the weights' format; set FP16 for
    weight-only INT4) and the KV cache is stored at ``kv_cache_precision``
    (default: FP8 for 8-bit or narrower weights on a device with FP8, else the
    compute format). ``tokens_per_s`` NaN sizes one replica. ``accelerators``
    fixes the fleet and ``tensor_parallel`` the devices of one replica instead
    of the fewest that hold the model. A ``measured_tokens_per_s_per_accelerator``
    with its ``measured_source`` replaces the estimate.
    """

    tokens_per_s: Numeric = numeric(math.nan, low_open=True, nan_allowed=True)
    input_tokens: Numeric = numeric(1000.0, low=1.0)
    output_tokens: Numeric = numeric(1000.0, low=1.0)
    concurrency: Numeric = numeric(math.nan, low=1.0, nan_allowed=True)
    precision: Precision = Precision.BF16
    compute_precision: Precision | None = None
    kv_cache_precision: Precision | None = None
    accelerators: Numeric = numeric(math.nan, low=1.0, nan_allowed=True)
    tensor_parallel: Numeric = numeric(math.nan, low=1.0, nan_allowed=True)
    measured_tokens_per_s_per_accelerator: Numeric = numeric(math.nan, low_open=True,
                                                             nan_allowed=True)
    measured_source: str = ""
    prefill_chunk_tokens: Numeric = numeric(8192.0, low=1.0)
    activation_memory_gb: Numeric = numeric(math.nan, nan_allowed=True)
    power_cap_throughput_loss: Numeric = share(0.0, high_open=True)
    pipeline_parallel: Numeric = numeric(math.nan, low=1.0, nan_allowed=True)
    time_to_first_token_s: Numeric = numeric(DEFAULT_TIME_TO_FIRST_TOKEN_S, low_open=True)
    tokens_per_s_per_user: Numeric = numeric(DEFAULT_TOKENS_PER_S_PER_USER, low_open=True)
    # Below 1: a request computes at least its last prompt token.
    cached_input_share: Numeric = share(0.0, high_open=True)

    def __post_init__(self) -> None:
        coerce_enum_fields(self)
        validate_numeric_fields(self)
        check_whole("InferenceTarget.tensor_parallel", self.tensor_parallel)
        check_whole("InferenceTarget.pipeline_parallel", self.pipeline_parallel)
        if np.any(~np.isnan(np.asarray(self.pipeline_parallel))
                  & np.isnan(np.asarray(self.tensor_parallel))):
            raise SizingInputError("InferenceTarget.pipeline_parallel",
                                   "give tensor_parallel with it (a layout is both)")
        check_whole("InferenceTarget.accelerators", self.accelerators)
        measured = np.asarray(self.measured_tokens_per_s_per_accelerator)
        if np.any(~np.isnan(measured)) and not self.measured_source.strip():
            raise SizingInputError("InferenceTarget.measured_source",
                                   "say where the measured tokens/s comes from")
        if self.measured_source.strip() and np.all(np.isnan(measured)):
            raise SizingInputError("InferenceTarget.measured_tokens_per_s_per_accelerator",
                                   "give the measured figure with its source")
        if np.any(~np.isnan(np.asarray(self.accelerators))
                  & ~np.isnan(np.asarray(self.tokens_per_s))):
            raise SizingInputError("InferenceTarget.accelerators",
                                   "give a token rate to size for or a fleet, not both")

    @property
    def context_length(self) -> Numeric:
        """Tokens a request holds in the KV cache at its end: input + output."""
        return cast(Numeric, np.asarray(self.input_tokens) + np.asarray(self.output_tokens))

    @property
    def memory_batch(self) -> Numeric:
        """Requests whose KV cache a replica must hold: the concurrency, at least one."""
        concurrency = np.asarray(self.concurrency, dtype=np.float64)
        return np.where(np.isnan(concurrency), 1.0, concurrency)

    @property
    def arithmetic_precision(self) -> Precision:
        """The format the matrix multiplies run in."""
        return self.compute_precision or self.precision

    @property
    def kv_precision(self) -> Precision:
        """The format the KV cache is stored in (the compute format unless set)."""
        return self.kv_cache_precision or self.arithmetic_precision

    def assumptions(self) -> list[Assumption]:
        """The target's figures and conventions."""
        return [
            Assumption.given("target_tokens_per_s", self.tokens_per_s, "tokens/s"),
            Assumption.given("input_tokens", self.input_tokens, "tokens per request"),
            Assumption.given("output_tokens", self.output_tokens, "tokens per request"),
            Assumption("concurrency", self.concurrency, "requests per replica",
                       "input; none given: a saturating load, as many as the KV cache holds "
                       "(at most 1,024)"),
            *(Assumption.given(f"{part}_precision", precision, "") for part, precision in (
                ("weights", self.precision), ("compute", self.arithmetic_precision))),
            Assumption("prefill_chunk_tokens", self.prefill_chunk_tokens, "tokens",
                       "assumption: chunked prefill budget of the serving engine"),
            Assumption("time_to_first_token_s", self.time_to_first_token_s, "s, at most",
                       "service-level target (default 2 s: MLPerf Inference's server scenario)"),
            Assumption("tokens_per_s_per_user", self.tokens_per_s_per_user,
                       "output tokens/s per user, at least",
                       "service-level target (default 10: about twice reading speed)"),
            Assumption.given("cached_input_share", self.cached_input_share,
                             "share of input tokens served from the prefix cache"),
            Assumption("power_cap_throughput_loss", self.power_cap_throughput_loss, "share",
                       "input (seed 003 gives H100 figures)"),
        ]
