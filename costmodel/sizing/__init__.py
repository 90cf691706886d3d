"""Workload sizing: from "train a 70B model on 2T tokens" or "serve 5,000 tokens/s of an 8B
model" to the accelerators, time and throughput a scenario uses, with every assumption shown.

Pure NumPy; every numeric input may be a scalar or an array, and results broadcast.
Print the summary table with ``python -m costmodel.sizing.table``.
"""

from __future__ import annotations

from costmodel.sizing.errors import SizingInputError
from costmodel.sizing.fit import fit_inference
from costmodel.sizing.fit import fit_training
from costmodel.sizing.inference import Calibrated
from costmodel.sizing.inference import size_inference
from costmodel.sizing.inputs import AcceleratorSpec
from costmodel.sizing.inputs import ActivationRecomputation
from costmodel.sizing.inputs import FitPolicy
from costmodel.sizing.inputs import ModelShape
from costmodel.sizing.inputs import Precision
from costmodel.sizing.inputs import ShardingStrategy
from costmodel.sizing.memory import accelerators_to_hold
from costmodel.sizing.memory import bytes_per_value
from costmodel.sizing.memory import inference_memory
from costmodel.sizing.memory import kv_cache_memory_gb
from costmodel.sizing.memory import training_memory
from costmodel.sizing.memory import training_memory_per_device_gb
from costmodel.sizing.memory import weights_memory_gb
from costmodel.sizing.results import Assumption
from costmodel.sizing.results import FitResult
from costmodel.sizing.results import InferenceSizing
from costmodel.sizing.results import MemoryBreakdown
from costmodel.sizing.results import TrainingSizing
from costmodel.sizing.training import accelerators_for_deadline
from costmodel.sizing.training import scaling_efficiency
from costmodel.sizing.training import size_training
from costmodel.sizing.training import training_flops
from costmodel.sizing.training import training_time_s
from costmodel.sizing.workloads import InferenceTarget
from costmodel.sizing.workloads import ScalingEfficiencyTable
from costmodel.sizing.workloads import TrainingJob
from costmodel.sizing.workloads import TrainingStateBytesPerParameter

__all__ = [
    "AcceleratorSpec",
    "Calibrated",
    "ActivationRecomputation",
    "Assumption",
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
