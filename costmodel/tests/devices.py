"""The accelerator the sizing tests check figures on by hand: an A100 SXM 80 GB."""

from __future__ import annotations

from costmodel.sizing import AcceleratorSpec
from costmodel.sizing import Precision

A100_80GB = AcceleratorSpec(
    name="A100 SXM 80GB", memory_gb=80.0, memory_bandwidth_gb_per_s=2_000.0,
    dense_tflops={Precision.FP16: 312.0, Precision.BF16: 312.0, Precision.TF32: 156.0},
    source="seed 004 (dense FP16/BF16 312, TF32 156 TFLOPS)",
)
