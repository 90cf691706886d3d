"""The fewest accelerators that hold a model, the implied layout, and clear "does not fit" answers."""

from __future__ import annotations

import json

import numpy as np
import pytest
from numpy.testing import assert_allclose
from numpy.testing import assert_array_equal

from costmodel.model_presets import custom_model
from costmodel.model_presets import model_preset
from costmodel.sizing import AcceleratorSpec
from costmodel.sizing import FitPolicy
from costmodel.sizing import InferenceTarget
from costmodel.sizing import Precision
from costmodel.sizing import ShardingStrategy
from costmodel.sizing import SizingInputError
from costmodel.sizing import TrainingJob
from costmodel.sizing import accelerators_to_hold
from costmodel.sizing import fit_inference
from costmodel.sizing import fit_training
from costmodel.sizing.fit import LAYOUT_BEYOND_LIMITS
from costmodel.sizing.fit import TOO_MANY_ACCELERATORS
from costmodel.sizing.fit import WORKING_SET_TOO_LARGE
from costmodel.tests.devices import A100_80GB

LLAMA_70B = model_preset("llama-3.1-70b")

# A 4,096-token context: 2,048 in and 2,048 out, as every figure below is worked.
FOUR_K = {"input_tokens": 2_048, "output_tokens": 2_048}


def test_70b_fp16_weights_do_not_fit_one_80gb_device_and_need_two():
    # 10 % headroom leaves 72 GB per device: 140 / 72 = 1.94, so two (2 x 72 = 144 >= 140).
    assert accelerators_to_hold(140.0, 80.0, 0.10) == 2
    assert accelerators_to_hold(140.0, 80.0, 0.0) == 2


@pytest.mark.parametrize(
    ("needed_gb", "expected"),
    [
        (350.0, 5),  # GPT-3 FP16 weights: 350 / 80 = 4.4 -> "needs 5x A100 80GB"
        (3_150.0, 40),  # GPT-3 training state: 3,150 / 80 = 39.4 -> "needs 40x"
        (1_260.0, 16),  # Llama-2-70B training state: 1,260 / 80 = 15.75 -> "needs 16x"
    ],
)
def test_seed_002_device_counts_hold_with_no_headroom(needed_gb, expected):
    # Seed 002 divides by the full 80 GB; with headroom 0 the same rule gives its counts.
    assert accelerators_to_hold(needed_gb, 80.0, 0.0) == expected


def test_exact_multiples_are_not_pushed_up_by_float_noise():
    # 350 / (100 x 0.7) is 5.000000000000001 in floating point; it must stay 5.
    assert accelerators_to_hold(350.0, 100.0, 0.3) == 5


def test_llama_3_70b_fp16_serving_replica_needs_two_80gb_devices():
    # 141.107 + 1.342 + 1.141 = 143.591 GB / 72 = 1.994 -> TP 2 x PP 1;
    # per device 143.591 / 2 = 71.80 GB.
    fit = fit_inference(LLAMA_70B, A100_80GB, InferenceTarget(**FOUR_K, precision=Precision.FP16))
    assert fit.fits
    assert fit.accelerators == 2
    assert (fit.tensor_parallel, fit.pipeline_parallel, fit.data_parallel) == (2, 1, 1)
    assert fit.layout == "TP 2 x PP 1 x DP 1"
    assert_allclose(fit.per_device_memory_gb, 143.590440960 / 2)
    assert_allclose(fit.usable_memory_per_device_gb, 72.0)


def test_a_single_device_requirement_gives_a_reason_instead_of_an_exception():
    single = FitPolicy(max_tensor_parallel=1, max_pipeline_parallel=1)
    fit = fit_inference(LLAMA_70B, A100_80GB, InferenceTarget(**FOUR_K, precision=Precision.FP16), single)
    assert not fit.fits
    assert np.isnan(fit.accelerators)
    # One device per stage: 142.45 GB of weights and cache / (72 - 1.14) = 2.01 -> 3 stages.
    assert fit.accelerators_required == 3
    assert fit.reason == LAYOUT_BEYOND_LIMITS
    assert fit.layout == "needs TP 1 x PP 3 x DP 1, beyond the fit policy"


def test_a_replica_larger_than_one_node_adds_pipeline_stages_of_full_nodes():
    # Llama 3 405B BF16: 811.707 GB weights + 2.114 GB cache (2 x 126 x 8 x 128 x 4,096 x 2)
    # + 2.282 GB activations (34 x 4,096 x 16,384) = 816.1 GB; / 72 = 11.3 > 8 devices.
    # A stage of 8 holds 8 x 72 - 2.28 = 573.7 GB: ceil(813.8 / 573.7) = 2 stages -> 16.
    fit = fit_inference(model_preset("llama-3.1-405b"), A100_80GB, InferenceTarget(**FOUR_K))
    assert fit.accelerators == 16
    assert (fit.tensor_parallel, fit.pipeline_parallel) == (8, 2)
    assert_allclose(fit.per_device_memory_gb, (811.707 + 2.114) / 16 + 2.282 / 8, rtol=1e-4)


def test_tensor_parallel_gives_each_device_whole_attention_heads():
    # GPT-2 XL in FP16: 3.084 GB weights + 0.315 GB cache (2 x 48 x 1,600 x 1,024 x 2 bytes)
    # + 0.056 GB activations = 3.455 GB; on 2.25 GB usable that is 1.54 -> 2 devices, but
    # 25 heads split only into 1, 5 or 25: TP 5.
    small = AcceleratorSpec(name="2.5 GB device", memory_gb=2.5, memory_bandwidth_gb_per_s=500.0,
                            dense_tflops={Precision.FP16: 50.0})
    target = InferenceTarget(input_tokens=512, output_tokens=512, precision=Precision.FP16)
    fit = fit_inference(model_preset("gpt-2-xl"), small, target)
    assert (fit.accelerators, fit.tensor_parallel) == (5, 5)
    # Llama 3 405B on 192 GB MI300X: 816.1 / 172.8 = 4.7 -> 5, but 128 heads: TP 8.
    mi300x_like = AcceleratorSpec(name="192 GB", memory_gb=192.0, memory_bandwidth_gb_per_s=5_300.0,
                                  dense_tflops={Precision.BF16: 1_307.0})
    assert fit_inference(model_preset("llama-3.1-405b"), mi300x_like,
                         InferenceTarget(**FOUR_K)).accelerators == 8


def test_it_rejects_a_training_tensor_parallel_that_splits_heads():
    # GPT-2 XL has 25 heads: TP 2 would split one.
    job = TrainingJob(tokens=1e9, tensor_parallel=2, sequence_length=1_024)
    with pytest.raises(SizingInputError, match="tensor_parallel"):
        fit_training(model_preset("gpt-2-xl"), A100_80GB, job)


def test_activations_too_large_for_a_whole_tensor_group_are_reported_as_such():
    huge = InferenceTarget(**FOUR_K, activation_memory_gb=1_000.0)  # more than 8 x 72 = 576 GB
    fit = fit_inference(LLAMA_70B, A100_80GB, huge)
    assert not fit.fits
    assert np.isnan(fit.accelerators_required)
    assert fit.reason == WORKING_SET_TOO_LARGE
    assert fit.layout == "no layout holds it"


def _training_job(sharding: ShardingStrategy, **overrides) -> TrainingJob:
    return TrainingJob(tokens=2e12, sharding=sharding, **overrides)


def test_zero3_spreads_a_70b_training_state_over_20_devices():
    # 70,553,706,496 x 18 bytes = 1,269.97 GB; full recomputation at 4,096 tokens keeps
    # 80 x 4,096 x 8,192 x 2 bytes = 5.369 GB. DP = ceil(1,269.97 / (72 - 5.369)) = ceil(19.06)
    # = 20; per device 1,269.97 / 20 + 5.369 = 68.87 GB.
    fit = fit_training(LLAMA_70B, A100_80GB, _training_job(ShardingStrategy.ZERO_3))
    assert fit.fits
    assert fit.accelerators == 20
    assert fit.data_parallel == 20
    assert fit.layout == "TP 1 x PP 1 x DP 20, ZeRO-3/FSDP"
    assert_allclose(fit.per_device_memory_gb, 1_269.966716928 / 20 + 5.36870912)


def test_ddp_cannot_hold_what_does_not_fit_one_device():
    fit = fit_training(LLAMA_70B, A100_80GB, _training_job(ShardingStrategy.NONE))
    assert not fit.fits
    assert np.isnan(fit.accelerators)
    assert fit.reason == WORKING_SET_TOO_LARGE


def test_zero1_keeps_weights_and_gradients_whole_on_each_rank():
    # 7e9 parameters: weights 14 + gradients 28 = 42 GB whole per rank; master 28 + moments
    # 56 = 84 GB sharded. Room: 72 - 42 = 30 GB -> DP = ceil(84 / 30) = 3.
    model = custom_model("7B", 7e9, layers=32, hidden_size=4_096, attention_heads=32,
                         max_context_length=4_096, vocab_size=32_000)
    job = _training_job(ShardingStrategy.ZERO_1, activation_memory_gb=0.0)
    fit = fit_training(model, A100_80GB, job)
    assert fit.accelerators == 3
    assert_allclose(fit.per_device_memory_gb, 42.0 + 84.0 / 3)


def test_tensor_and_pipeline_parallel_multiply_into_the_count():
    # Llama 3 8B, TP 8 x PP 2 under ZeRO-1: weights 16.06 + gradients 32.12 GB kept whole, over
    # 16 devices 3.011 GB; master 32.12 + moments 64.24 GB sharded, 6.023 GB on DP 1;
    # activations 32 x 4,096 x 4,096 x 2 bytes = 1.074 GB over TP 8, 0.134 GB. 9.168 GB fits
    # 72 GB on DP 1, so 16 accelerators.
    job = _training_job(ShardingStrategy.ZERO_1, tensor_parallel=8, pipeline_parallel=2)
    fit = fit_training(model_preset("llama-3.1-8b"), A100_80GB, job)
    assert fit.accelerators == 16
    assert fit.layout == "TP 8 x PP 2 x DP 1, ZeRO-1"
    assert_allclose(fit.per_device_memory_gb, 8.030261248 * 18 / 16 + 1.073741824 / 8)


def test_tensor_parallel_beyond_the_policy_does_not_fit():
    job = _training_job(ShardingStrategy.ZERO_3, tensor_parallel=16)
    fit = fit_training(LLAMA_70B, A100_80GB, job)
    assert not fit.fits
    assert fit.reason == LAYOUT_BEYOND_LIMITS


def test_a_cap_on_accelerators_is_reported_with_the_count_it_would_need():
    fit = fit_training(LLAMA_70B, A100_80GB, _training_job(ShardingStrategy.ZERO_3),
                       FitPolicy(max_accelerators=16))
    assert not fit.fits
    assert fit.accelerators_required == 20
    assert fit.reason == TOO_MANY_ACCELERATORS


def test_a_vector_of_parameter_counts_gives_the_scalar_answers():
    parameters = np.array([7e9, 70e9, 400e9, 2_000e9])

    def model(count):
        return custom_model("m", count, layers=80, hidden_size=8_192, attention_heads=64,
                            kv_heads=8, max_context_length=8_192, vocab_size=128_256)

    target = InferenceTarget(input_tokens=4_096, output_tokens=4_096, concurrency=4)
    vector = fit_inference(model(parameters), A100_80GB, target)
    scalars = [fit_inference(model(count), A100_80GB, target) for count in parameters]
    assert_allclose(vector.accelerators, [s.accelerators for s in scalars])
    assert_allclose(vector.per_device_memory_gb, [s.per_device_memory_gb for s in scalars])
    assert_array_equal(vector.layout, [s.layout for s in scalars])
    # 2T parameters: (4,000 GB weights + 10.7 GB cache) / (8 x 72 - 2.28 GB activations) = 6.99
    # -> 7 stages of TP 8, within the 80-layer limit, so every element fits.
    assert vector.fits.all()

    job = _training_job(ShardingStrategy.ZERO_3, sequence_length=8_192)
    vector = fit_training(model(parameters), A100_80GB, job)
    scalars = [fit_training(model(count), A100_80GB, job) for count in parameters]
    assert_allclose(vector.accelerators, [s.accelerators for s in scalars])
    assert_array_equal(vector.reason, [s.reason for s in scalars])


def test_an_array_with_elements_that_do_not_fit_answers_element_by_element():
    single = FitPolicy(max_tensor_parallel=1, max_pipeline_parallel=1)
    model = custom_model("m", np.array([7e9, 70e9]), layers=80, hidden_size=8_192,
                         attention_heads=64, kv_heads=8, max_context_length=8_192,
                         vocab_size=128_256)
    fit = fit_inference(model, A100_80GB, InferenceTarget(**FOUR_K), single)
    assert_array_equal(fit.fits, [True, False])
    assert_allclose(fit.accelerators, [1.0, np.nan])
    assert_array_equal(fit.reason, ["", LAYOUT_BEYOND_LIMITS])


def test_it_rejects_a_context_longer_than_the_model_handles():
    with pytest.raises(SizingInputError, match="input_tokens"):
        fit_inference(model_preset("gpt-3-175b"), A100_80GB,
                      InferenceTarget(input_tokens=2_048, output_tokens=2_048))
    with pytest.raises(SizingInputError, match="sequence_length"):
        fit_training(model_preset("bert-base"), A100_80GB, _training_job(ShardingStrategy.ZERO_3))


def test_it_rejects_headroom_of_the_whole_device():
    with pytest.raises(SizingInputError, match="headroom_fraction"):
        FitPolicy(headroom_fraction=1.0)


def test_fit_to_dict_is_json_ready_with_every_assumption_sourced():
    policy = FitPolicy(max_tensor_parallel=1, max_pipeline_parallel=1)
    data = fit_inference(LLAMA_70B, A100_80GB, InferenceTarget(**FOUR_K), policy).to_dict()
    text = json.dumps(data, allow_nan=False)  # NaN must have become null
    assert data["accelerators"] is None
    assert data["memory"]["weights_gb"] == pytest.approx(141.107412992)
    names = {row["name"] for row in data["assumptions"]}
    assert {"memory_headroom", "kv_cache_values_per_token_per_layer", "concurrency"} <= names
    assert all(row["source"] for row in data["assumptions"])
    assert "Llama 3 Herd" in text
