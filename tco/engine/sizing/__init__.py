"""Workload sizing: from "train a 70B model on 2T tokens" or "serve 5,000 tokens/s of an 8B
model" to the accelerators, time and throughput a scenario uses, with every assumption shown.

Pure NumPy; every numeric input may be a scalar or an array, and results broadcast.
Print the summary table with ``python -m tco.engine.sizing.table``.
"""

from __future__ import annotations

from tco.engine.sizing.errors import SizingInputError
from tco.engine.sizing.fit import fit_inference, fit_training
from tco.engine.sizing.inference import decode_roofline, size_inference
from tco.engine.sizing.inputs import (
    AcceleratorSpec,
    ActivationRecomputation,
    FitPolicy,
    ModelShape,
    Precision,
    ShardingStrategy,
)
from tco.engine.sizing.memory import (
    accelerators_to_hold,
    bytes_per_value,
    inference_memory,
    kv_cache_memory_gb,
    training_memory,
    training_memory_per_device_gb,
    weights_memory_gb,
)
from tco.engine.sizing.results import (
    Assumption,
    DecodeRoofline,
    FitResult,
    InferenceSizing,
    MemoryBreakdown,
    TrainingSizing,
)
from tco.engine.sizing.training import (
    accelerators_for_deadline,
    scaling_efficiency,
    size_training,
    training_flops,
    training_time_s,
)
from tco.engine.sizing.workloads import (
    InferenceTarget,
    ScalingEfficiencyTable,
    TrainingJob,
    TrainingStateBytesPerParameter,
)

__all__ = [
    "AcceleratorSpec",
    "ActivationRecomputation",
    "Assumption",
    "DecodeRoofline",
    "FitPolicy",
    "FitResult",
    "InferenceSizing",
    "InferenceTarget",
    "MemoryBreakdown",
    "ModelShape",
    "Precision",
    "ScalingEfficiencyTable",
    "ShardingStrategy",
    "SizingInputError",
    "TrainingJob",
    "TrainingSizing",
    "TrainingStateBytesPerParameter",
    "accelerators_for_deadline",
    "accelerators_to_hold",
    "bytes_per_value",
    "decode_roofline",
    "fit_inference",
    "fit_training",
    "inference_memory",
    "kv_cache_memory_gb",
    "scaling_efficiency",
    "size_inference",
    "size_training",
    "training_flops",
    "training_memory",
    "training_memory_per_device_gb",
    "training_time_s",
    "weights_memory_gb",
]
