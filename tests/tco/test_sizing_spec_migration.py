"""Sizing specs stored before the request shape (issue 28's migration) read as the engine's
request shape today."""
from __future__ import annotations

import importlib

from costmodel.sizing import InferenceTarget


def test_stored_roofline_specs_move_to_the_request_shape():
    migration = importlib.import_module("tco.migrations.0028_i28_inference_sizing_request_shape")
    old = {"mode": "inference", "model": "llama-3.1-8b", "batch_size": 8, "context_length": 4097,
           "compute_efficiency": 0.6, "memory_bandwidth_efficiency": 1.0, "tokens_per_s": 50}
    new = migration.request_shape(old)
    assert new == {"mode": "inference", "model": "llama-3.1-8b", "tokens_per_s": 50,
                   "concurrency": 8, "input_tokens": 2048, "output_tokens": 2049}
    InferenceTarget(**{k: v for k, v in new.items() if k not in ("mode", "model")})
