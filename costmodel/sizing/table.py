"""A summary table of every model preset on an H100 and an MI300X, to paste into notes.

Run ``python -m costmodel.sizing.table``. The two accelerators below are the
table's stated inputs, taken from the seeds; the catalog, not this module,
is where the service reads accelerator figures from.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from costmodel.model_presets import MODEL_PRESETS
from costmodel.sizing.fit import fit_inference
from costmodel.sizing.fit import fit_training
from costmodel.sizing.inputs import AcceleratorSpec
from costmodel.sizing.inputs import ModelShape
from costmodel.sizing.inputs import Precision
from costmodel.sizing.memory import weights_memory_gb
from costmodel.sizing.training import training_time_s
from costmodel.sizing.units import SECONDS_PER_DAY
from costmodel.sizing.workloads import InferenceTarget
from costmodel.sizing.workloads import TrainingJob

H100_SXM_80GB = AcceleratorSpec(
    name="NVIDIA H100 SXM 80GB", memory_gb=80.0, memory_bandwidth_gb_per_s=3_350.0,
    dense_tflops={Precision.FP16: 989.0, Precision.BF16: 989.0, Precision.FP8: 1_979.0},
    source="seed 004_d02abd69ba5c9305, H100 SXM5: 80 GB HBM3, 3,350 GB/s, dense FP16/BF16 989 "
    "and FP8 1,979 TFLOPS (the 1,979 FP16 of seeds 002/003 is the sparse figure)",
)
MI300X_192GB = AcceleratorSpec(
    name="AMD Instinct MI300X 192GB", memory_gb=192.0, memory_bandwidth_gb_per_s=5_300.0,
    dense_tflops={Precision.FP16: 1_307.0, Precision.BF16: 1_307.0, Precision.FP8: 2_614.0},
    source="seed 004_d02abd69ba5c9305, MI300X: 192 GB HBM3, 5,300 GB/s, FP16/BF16 1,307 and "
    "FP8 2,614 TFLOPS (dense; seed 003 agrees)",
)

TABLE_TOKENS = 1e12
TABLE_ACCELERATORS = 1_024
TABLE_MFU = 0.40
# Context for the serving and training columns, shortened to the model's own maximum.
TABLE_CONTEXT_TOKENS = 4_096


def _table_workloads(model: ModelShape) -> tuple[InferenceTarget, TrainingJob]:
    """The serving target and training job every row is sized for."""
    context = min(TABLE_CONTEXT_TOKENS, int(model.max_context_length))
    serve = InferenceTarget(input_tokens=context / 2, output_tokens=context / 2, concurrency=1,
                            precision=Precision.BF16)
    train = TrainingJob(tokens=TABLE_TOKENS, mfu=TABLE_MFU, sequence_length=context)
    return serve, train


def sizing_table_rows() -> list[dict[str, Any]]:
    """One row of figures per model preset (see `sizing_table` for the conventions)."""
    rows = []
    for key, model in MODEL_PRESETS.items():
        serve, train = _table_workloads(model)
        rows.append(
            {
                "preset": key,
                "parameters_billion": float(model.parameters) / 1e9,
                "active_parameters_billion": float(model.parameters_per_token) / 1e9,
                "weights_bf16_gb": float(weights_memory_gb(model.parameters, Precision.BF16)),
                "serve_h100": float(fit_inference(model, H100_SXM_80GB, serve).accelerators),
                "serve_mi300x": float(fit_inference(model, MI300X_192GB, serve).accelerators),
                "train_h100": float(fit_training(model, H100_SXM_80GB, train).accelerators),
                "train_mi300x": float(fit_training(model, MI300X_192GB, train).accelerators),
                "train_days_1t_tokens_1024_h100": float(
                    training_time_s(model, H100_SXM_80GB, train, TABLE_ACCELERATORS)
                )
                / SECONDS_PER_DAY,
            }
        )
    return rows


def _cell(value: float, decimals: int) -> str:
    """Format one figure, or "does not fit" for NaN."""
    return "does not fit" if np.isnan(value) else f"{value:,.{decimals}f}"


def sizing_table() -> str:
    """Markdown table: weights, fewest accelerators to serve and to train, days for 1T tokens."""
    header = (
        "| Preset | Params (B) | Active (B) | Weights BF16 (GB) | Serve: H100 80GB "
        "| Serve: MI300X 192GB | Train: H100 80GB | Train: MI300X 192GB "
        "| Days, 1T tokens, 1,024 H100, 40% MFU |"
    )
    lines = [header, "|" + "---|" * header.count(" | ") + "---|"]
    for row in sizing_table_rows():
        cells = [
            row["preset"],
            _cell(row["parameters_billion"], 3),
            _cell(row["active_parameters_billion"], 3),
            _cell(row["weights_bf16_gb"], 1),
            _cell(row["serve_h100"], 0),
            _cell(row["serve_mi300x"], 0),
            _cell(row["train_h100"], 0),
            _cell(row["train_mi300x"], 0),
            _cell(row["train_days_1t_tokens_1024_h100"], 2),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "Conventions: GB = 1e9 bytes; 10 % of each device's memory kept free. Serve = fewest "
        "devices in one replica for BF16 weights + KV cache (batch 1) + activations, at "
        f"min({TABLE_CONTEXT_TOKENS:,}, model max) tokens of context, tensor parallelism up to "
        "8 dividing the attention heads, then pipeline stages of 8. Train = fewest devices "
        "with ZeRO-3/FSDP for 18 bytes/parameter of mixed-precision Adam state plus activations "
        "(full recomputation, micro-batch 1, same sequence length). Days = 6 x active "
        "parameters x 1e12 tokens / (1,024 x 989e12 x 0.40 x 0.70), 0.70 being seed 003's "
        "scaling efficiency interpolated in log2 between 512 (0.75) and 4,096 (0.60) devices.",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(sizing_table())
