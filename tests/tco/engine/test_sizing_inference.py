"""Decode roofline, replicas for a token rate, and cost per million tokens."""

from __future__ import annotations

import json

import numpy as np
import pytest
from numpy.testing import assert_allclose
from numpy.testing import assert_array_equal

from tco.engine.metrics import cost_per_million_tokens_usd
from tco.engine.model_presets import custom_model
from tco.engine.model_presets import model_preset
from tco.engine.sizing import AcceleratorSpec
from tco.engine.sizing import InferenceTarget
from tco.engine.sizing import Precision
from tco.engine.sizing import SizingInputError
from tco.engine.sizing import decode_roofline
from tco.engine.sizing import size_inference
from tco.engine.sizing.table import H100_SXM_80GB
from tests.tco.engine.devices import A100_80GB

# 7e9 parameters; KV cache per token: 32 layers x 2 x 8 KV heads x 128 = 65,536 values.
SEVEN_B = custom_model("7B", 7e9, layers=32, hidden_size=4_096, attention_heads=32, kv_heads=8,
                       head_dim=128, max_context_length=8_192, vocab_size=32_000)
BATCH_10 = InferenceTarget(batch_size=10, context_length=1_000, precision=Precision.FP16)


def test_cost_per_million_tokens_of_an_a100_at_1_07_per_hour_and_520_tokens_s_is_0_57():
    # 1.07 / (520 x 3,600) x 1e6 = 0.5716 USD (seed 003: "$0.57"; design doc).
    assert_allclose(cost_per_million_tokens_usd(1.07, 520.0), 0.571581, rtol=1e-5)


def test_cost_per_million_tokens_broadcasts_over_prices_and_rates():
    # B200 at 3.39 and 2.12 USD/h with 4,000 tokens/s: 0.2354 and 0.1472 USD. Seed 003 prints
    # $0.42 and $0.15 for these rows; only the spot row follows its own formula.
    assert_allclose(cost_per_million_tokens_usd(np.array([3.39, 2.12]), 4_000.0),
                    [0.235417, 0.147222], rtol=1e-5)


def test_decode_roofline_matches_hand_computation_when_memory_bound():
    # Memory: (14 GB weights + 32 x 65,536 x 1,000 x 10 x 2 bytes = 1.31072 GB) / 2,000 GB/s
    # = 7.65536 ms. Compute: 2 x 7e9 x 10 / (312e12 x 0.6) = 0.74786 ms. Memory-bound:
    # 10 tokens / 7.65536 ms = 1,306.27 tokens/s.
    roofline = decode_roofline(SEVEN_B, A100_80GB, BATCH_10, 1)
    assert_allclose(roofline.memory_time_s_per_step, 15.31072 / 2_000)
    assert_allclose(roofline.compute_time_s_per_step, 1.4e11 / 1.872e14)
    assert roofline.bound == "memory"
    assert_allclose(roofline.tokens_per_s_per_replica, 10 / (15.31072 / 2_000))


def test_decode_turns_compute_bound_at_a_large_batch():
    # Batch 256 at 100 tokens: memory (14 + 3.355) / 2,000 = 8.68 ms; compute
    # 2 x 7e9 x 256 / 1.872e14 = 19.15 ms. Compute-bound: 1.872e14 / 1.4e10 = 13,371 tokens/s.
    target = InferenceTarget(batch_size=256, context_length=100, precision=Precision.FP16)
    roofline = decode_roofline(SEVEN_B, A100_80GB, target, 1)
    assert roofline.bound == "compute"
    assert_allclose(roofline.tokens_per_s_per_replica, 1.872e14 / 1.4e10)


def test_a_replica_spread_over_two_devices_halves_the_step_but_not_the_rate_per_device():
    one, two = (decode_roofline(SEVEN_B, A100_80GB, BATCH_10, n) for n in (1, 2))
    assert_allclose(two.memory_time_s_per_step, one.memory_time_s_per_step / 2)
    assert_allclose(two.tokens_per_s_per_replica, 2 * one.tokens_per_s_per_replica)
    assert_allclose(two.tokens_per_s_per_accelerator, one.tokens_per_s_per_accelerator)


def test_efficiencies_and_power_cap_scale_the_roofline():
    # Bandwidth at 80 %: 1,306.27 x 0.8 = 1,045.0 tokens/s; a 10 % power-cap loss: x 0.9.
    target = InferenceTarget(batch_size=10, context_length=1_000, precision=Precision.FP16,
                             memory_bandwidth_efficiency=0.8, power_cap_throughput_loss=0.1)
    roofline = decode_roofline(SEVEN_B, A100_80GB, target, 1)
    assert_allclose(roofline.tokens_per_s_per_replica, 10 / (15.31072 / 2_000) * 0.8 * 0.9)


def test_seed_001s_13b_on_900_gb_s_takes_29_ms_a_token_not_15():
    # 13e9 x 2 bytes = 26 GB / 900 GB/s = 28.9 ms (seed 001 says "~15ms"); the one-token
    # cache adds 40 x 2 x 40 x 128 x 2 bytes = 0.8 MB.
    device = AcceleratorSpec(name="900 GB/s", memory_gb=48.0, memory_bandwidth_gb_per_s=900.0,
                             dense_tflops={Precision.FP16: 70.0})
    model = custom_model("13B", 13e9, layers=40, hidden_size=5_120, attention_heads=40,
                         max_context_length=4_096, vocab_size=32_000)
    target = InferenceTarget(context_length=1, precision=Precision.FP16)
    roofline = decode_roofline(model, device, target, 1)
    assert_allclose(roofline.memory_time_s_per_step, (26.0 + 0.0008192) / 900)


def test_llama_3_8b_at_batch_1_on_an_h100_decodes_about_200_tokens_s():
    # (16.0605 GB weights + 0.5369 GB cache at 4,096 tokens) / 3,350 GB/s = 4.954 ms: 201.8
    # tokens/s. Seed 003's "~800 tokens/s" at batch 1 would need 4x the H100's bandwidth.
    roofline = decode_roofline(model_preset("llama-3.1-8b"), H100_SXM_80GB, InferenceTarget(), 1)
    assert_allclose(roofline.tokens_per_s_per_replica, 3_350 / (16.060522496 + 0.536870912))


def test_a_mixture_of_experts_reads_its_active_weights_at_batch_1_and_all_of_them_at_batch_64():
    # DeepSeek-R1 in FP8 on 8 devices of 4,800 GB/s (H200): batch 1 reads 37 GB of experts
    # (+ 61 x 576 x 4,096 bytes = 0.144 GB cache); batch 64 reads all 671 GB (64 x 37 > 671)
    # + 9.211 GB of cache: (671 + 9.211) / (8 x 4,800) = 17.71 ms -> 3,613 tokens/s.
    h200 = AcceleratorSpec(name="H200", memory_gb=141.0, memory_bandwidth_gb_per_s=4_800.0,
                           dense_tflops={Precision.FP8: 1_979.0})
    model = model_preset("deepseek-r1")
    target = InferenceTarget(batch_size=np.array([1, 64]), precision=Precision.FP8)
    roofline = decode_roofline(model, h200, target, 8)
    cache_gb = 61 * 576 * 4_096 * np.array([1, 64]) / 1e9
    assert_allclose(roofline.memory_time_s_per_step,
                    (np.array([37.0, 671.0]) + cache_gb) / (8 * 4_800))
    assert_allclose(roofline.tokens_per_s_per_replica[1], 64 / ((671 + cache_gb[1]) / 38_400))


def test_size_inference_adds_replicas_until_the_target_rate_is_met():
    # One device holds 14 + 1.311 + 0.139 GB; it makes 1,306.27 tokens/s, so 5,000 tokens/s
    # needs ceil(3.83) = 4 replicas; at $2/h a million tokens cost 2 / (1,306.27 x 3,600) x 1e6.
    target = InferenceTarget(tokens_per_s=5_000.0, batch_size=10, context_length=1_000,
                             precision=Precision.FP16)
    sizing = size_inference(SEVEN_B, A100_80GB, target, price_usd_per_accelerator_hour=2.0)
    rate = 10 / (15.31072 / 2_000)
    assert (sizing.accelerators_per_replica, sizing.replicas, sizing.accelerators) == (1, 4, 4)
    assert_allclose(sizing.capacity_tokens_per_s, 4 * rate)
    assert_allclose(sizing.tokens_per_s_per_accelerator, rate)
    assert_allclose(sizing.cost_usd_per_million_tokens, 2.0 / (rate * 3_600) * 1e6)


def test_size_inference_without_a_rate_sizes_one_replica_and_without_a_price_no_cost():
    sizing = size_inference(model_preset("llama-3.1-70b"), H100_SXM_80GB, InferenceTarget())
    assert (sizing.replicas, sizing.accelerators) == (1, 2)
    assert sizing.cost_usd_per_million_tokens is None


def test_a_replica_that_does_not_fit_gives_nan_rather_than_an_error():
    too_big = InferenceTarget(tokens_per_s=np.array([1_000.0, 1_000.0]),
                              activation_memory_gb=np.array([0.0, 1_000.0]))
    sizing = size_inference(SEVEN_B, A100_80GB, too_big, price_usd_per_accelerator_hour=2.0)
    assert_array_equal(sizing.fits, [True, False])
    assert np.isnan(sizing.accelerators[1]) and np.isnan(sizing.cost_usd_per_million_tokens[1])
    assert_array_equal(sizing.roofline.bound, ["memory", ""])
    data = json.loads(json.dumps(sizing.to_dict(), allow_nan=False))
    assert data["accelerators"][1] is None


def test_a_vector_of_batch_sizes_gives_the_scalar_answers():
    batches = np.array([1.0, 10.0, 64.0, 256.0])

    def target(batch):
        return InferenceTarget(tokens_per_s=20_000.0, batch_size=batch, context_length=2_048)

    vector = size_inference(SEVEN_B, A100_80GB, target(batches))
    scalars = [size_inference(SEVEN_B, A100_80GB, target(b)) for b in batches]
    for name in ("accelerators_per_replica", "replicas", "accelerators",
                 "tokens_per_s_per_accelerator"):
        assert_allclose(getattr(vector, name), [getattr(s, name) for s in scalars])
    assert_array_equal(vector.roofline.bound, [s.roofline.bound for s in scalars])


def test_weight_only_int4_needs_a_16_bit_compute_precision_on_an_h100():
    # The H100 spec has no INT4 tensor-core figure: INT4 arithmetic is refused, naming the field.
    with pytest.raises(SizingInputError, match=r"InferenceTarget\.precision.*int4"):
        size_inference(model_preset("llama-3.1-70b"), H100_SXM_80GB,
                       InferenceTarget(precision=Precision.INT4))
    # INT4 weights with FP16 arithmetic: 70.554e9 x 0.5 = 35.28 GB + 1.342 GB FP16 cache
    # + 1.141 GB activations = 37.76 GB, one H100.
    target = InferenceTarget(precision=Precision.INT4, compute_precision=Precision.FP16)
    sizing = size_inference(model_preset("llama-3.1-70b"), H100_SXM_80GB, target)
    assert sizing.accelerators == 1
    assert_allclose(sizing.fit.memory.total_gb, 35.276853248 + 1.342177280 + 1.140850688)


@pytest.mark.parametrize(
    ("field", "value"),
    [("batch_size", 0.0), ("context_length", 0.0), ("compute_efficiency", 1.5),
     ("tokens_per_s", -5.0), ("batch_size", np.array([4.0, 0.0]))],
)
def test_it_rejects_zero_batch_zero_context_and_out_of_range_figures(field, value):
    with pytest.raises(SizingInputError, match=field):
        InferenceTarget(**{field: value})


def test_it_rejects_a_negative_price():
    with pytest.raises(SizingInputError, match="price_usd_per_accelerator_hour"):
        size_inference(SEVEN_B, A100_80GB, BATCH_10, price_usd_per_accelerator_hour=-1.0)
