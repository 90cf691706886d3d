"""Inference sizing: replicas for a token rate from the calibrated serving estimate, a fixed fleet
or layout, a stated measurement, and cost per million tokens with the estimate's range."""

from __future__ import annotations

import json

import numpy as np
import pytest
from numpy.testing import assert_allclose

from costmodel.metrics import cost_per_million_tokens_usd
from costmodel.model_presets import custom_model
from costmodel.model_presets import model_preset
from costmodel.sizing import Calibrated
from costmodel.sizing import InferenceTarget
from costmodel.sizing import Precision
from costmodel.sizing import SizingInputError
from costmodel.sizing import size_inference
from costmodel.sizing.table import H100_SXM_80GB
from costmodel.sizing.throughput import Efficiency
from costmodel.tests.devices import A100_80GB

# 7e9 parameters; KV cache per token: 32 layers x 2 x 8 KV heads x 128 = 65,536 values.
SEVEN_B = custom_model("7B", 7e9, layers=32, hidden_size=4_096, attention_heads=32, kv_heads=8,
                       head_dim=128, max_context_length=8_192, vocab_size=32_000)
# Full bandwidth and compute, free all-reduces: the hardware's own limits, figures by hand.
PEAK = Calibrated(Efficiency(1.0, 1.0, 1.0, 0.0), range_low=0.8, range_high=1.25,
                  source="test")
# One-token prompts, 1,000 out, 10 at once: a step reads 14 GB of weights and the cache of 10
# requests at a mean context of 1 + 1,000 / 2 = 501 tokens, 10 x 501 x 65,536 x 2 bytes
# = 0.65669 GB, in (14 + 0.65669) / 2,000 GB/s = 7.3283 ms; its compute, 10 x (1.4e10 +
# 4 x 32 x 501 x 4,096) FLOPs / 312e12 = 0.457 ms, is shorter. Prefill of one token adds 45 us a
# request, shared over 1,000 output tokens.
TEN_AT_ONCE = InferenceTarget(input_tokens=1, output_tokens=1_000, concurrency=10,
                              precision=Precision.FP16)
STEP_S = (14.0 + 10 * 501 * 65_536 * 2 / 1e9) / 2_000


def test_cost_per_million_tokens_of_an_a100_at_1_07_per_hour_and_520_tokens_s_is_0_57():
    # 1.07 / (520 x 3,600) x 1e6 = 0.5716 USD (seed 003: "$0.57"; design doc).
    assert_allclose(cost_per_million_tokens_usd(1.07, 520.0), 0.571581, rtol=1e-5)


def test_a_memory_bound_replica_makes_its_batch_per_step():
    sizing = size_inference(SEVEN_B, A100_80GB, TEN_AT_ONCE, PEAK)
    assert sizing.estimate.decode_bound == "memory"
    assert_allclose(sizing.estimate.decode_step_s, STEP_S, rtol=1e-9)
    assert_allclose(sizing.tokens_per_s_per_accelerator, 10 / STEP_S, rtol=1e-3)


def test_replicas_for_a_rate_and_cost_per_million_tokens_with_the_range():
    # 1,364.6 tokens/s a replica: 5,000 tokens/s takes ceil(3.66) = 4; at $2/h a million tokens
    # cost 2 / (1,364.6 x 3,600) x 1e6 = $0.407, $0.326 to $0.509 over the range x0.8 to x1.25.
    target = InferenceTarget(tokens_per_s=5_000.0, input_tokens=1, output_tokens=1_000,
                             concurrency=10, precision=Precision.FP16)
    sizing = size_inference(SEVEN_B, A100_80GB, target, PEAK, price_usd_per_accelerator_hour=2.0)
    rate = float(sizing.tokens_per_s_per_accelerator)
    assert (sizing.accelerators_per_replica, sizing.replicas, sizing.accelerators) == (1, 4, 4)
    assert_allclose(sizing.capacity_tokens_per_s, 4 * rate)
    assert_allclose([sizing.tokens_per_s_per_accelerator_low,
                     sizing.tokens_per_s_per_accelerator_high], [0.8 * rate, 1.25 * rate])
    cost = 2.0 / (rate * 3_600) * 1e6
    assert_allclose([sizing.cost_usd_per_million_tokens, sizing.cost_usd_per_million_tokens_low,
                     sizing.cost_usd_per_million_tokens_high], [cost, cost / 1.25, cost / 0.8])
    assert str(sizing.basis) == "estimate calibrated on test"


def test_a_stated_measurement_replaces_the_estimate_and_is_its_own_range():
    target = InferenceTarget(input_tokens=1, output_tokens=1_000, concurrency=10,
                             precision=Precision.FP16, measured_tokens_per_s_per_accelerator=900.0,
                             measured_source="our load test")
    sizing = size_inference(SEVEN_B, A100_80GB, target, PEAK)
    assert (sizing.tokens_per_s_per_accelerator, sizing.tokens_per_s_per_accelerator_low,
            sizing.tokens_per_s_per_accelerator_high) == (900.0, 900.0, 900.0)
    assert str(sizing.basis) == "stated measurement: our load test"
    assert float(sizing.estimate.tokens_per_s) > 900  # the estimate stays in sight


def test_a_measurement_needs_its_source():
    with pytest.raises(SizingInputError, match="measured_source"):
        InferenceTarget(measured_tokens_per_s_per_accelerator=900.0)


def test_the_user_fixes_the_fleet_and_the_tensor_parallel_group():
    target = InferenceTarget(accelerators=8, tensor_parallel=2, precision=Precision.FP8)
    sizing = size_inference(model_preset("llama-3.1-70b"), H100_SXM_80GB, target, PEAK)
    assert (sizing.accelerators_per_replica, sizing.replicas, sizing.accelerators) == (2, 4, 8)
    assert_allclose(sizing.capacity_tokens_per_s, 8 * sizing.tokens_per_s_per_accelerator)
    # FP8 weights, 70.55 GB, fit one device, but the group asked for is two: each holds half.
    assert_allclose(sizing.fit.per_device_memory_gb, sizing.fit.memory.total_gb / 2)
    with pytest.raises(SizingInputError, match="accelerators"):
        size_inference(model_preset("llama-3.1-70b"), H100_SXM_80GB,
                       InferenceTarget(accelerators=7, tensor_parallel=2,
                                       precision=Precision.FP8), PEAK)
    with pytest.raises(SizingInputError, match="accelerators"):
        InferenceTarget(accelerators=8, tokens_per_s=1_000.0)


def test_a_fixed_group_too_small_for_the_weights_does_not_fit():
    target = InferenceTarget(tensor_parallel=1, precision=Precision.FP16)
    sizing = size_inference(model_preset("llama-3.1-70b"), H100_SXM_80GB, target, PEAK)
    assert not sizing.fits and np.isnan(sizing.accelerators)
    data = json.loads(json.dumps(sizing.to_dict(), allow_nan=False))
    assert data["accelerators"] is None


def test_without_a_rate_one_replica_of_the_fewest_devices_and_without_a_price_no_cost():
    sizing = size_inference(model_preset("llama-3.1-70b"), H100_SXM_80GB, InferenceTarget(), PEAK)
    assert (sizing.replicas, sizing.accelerators) == (1, 2)
    assert sizing.cost_usd_per_million_tokens is None


def test_batch_1_never_beats_bandwidth_over_the_active_weights():
    # Llama 3.1 8B in FP16 on an H100, one request: 3,350 GB/s / 16.06 GB = 208.6 tokens/s at
    # most, even at full efficiency.
    target = InferenceTarget(concurrency=1, precision=Precision.FP16)
    sizing = size_inference(model_preset("llama-3.1-8b"), H100_SXM_80GB, target, PEAK)
    assert float(sizing.tokens_per_s_per_accelerator) <= 3_350 / 16.060522496


def test_weight_only_int4_needs_a_16_bit_compute_precision_on_an_h100():
    with pytest.raises(SizingInputError, match=r"precision.*int4"):
        size_inference(model_preset("llama-3.1-70b"), H100_SXM_80GB,
                       InferenceTarget(precision=Precision.INT4), PEAK)
    target = InferenceTarget(precision=Precision.INT4, compute_precision=Precision.FP16)
    sizing = size_inference(model_preset("llama-3.1-70b"), H100_SXM_80GB, target, PEAK)
    assert sizing.accelerators == 1


@pytest.mark.parametrize(
    ("field", "value"),
    [("concurrency", 0.0), ("input_tokens", 0.0), ("output_tokens", 0.0),
     ("tokens_per_s", -5.0), ("tensor_parallel", 1.5)],
)
def test_it_rejects_out_of_range_figures(field, value):
    with pytest.raises(SizingInputError, match=field):
        InferenceTarget(**{field: value})


def test_it_rejects_a_negative_price():
    with pytest.raises(SizingInputError, match="price_usd_per_accelerator_hour"):
        size_inference(SEVEN_B, A100_80GB, TEN_AT_ONCE, PEAK, price_usd_per_accelerator_hour=-1.0)
