"""Memory of weights, training state, activations and KV cache, against the seeds' figures."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from costmodel.model_presets import custom_model
from costmodel.model_presets import model_preset
from costmodel.sizing import ActivationRecomputation
from costmodel.sizing import InferenceTarget
from costmodel.sizing import Precision
from costmodel.sizing import ShardingStrategy
from costmodel.sizing import TrainingJob
from costmodel.sizing import TrainingStateBytesPerParameter
from costmodel.sizing import bytes_per_value
from costmodel.sizing import inference_memory
from costmodel.sizing import kv_cache_memory_gb
from costmodel.sizing import training_memory
from costmodel.sizing import training_memory_per_device_gb
from costmodel.sizing import weights_memory_gb

# A small model whose figures are easy to check by hand.
TOY = custom_model(
    "toy", 1e9, layers=10, hidden_size=1_000, attention_heads=10, max_context_length=8_192,
    vocab_size=1_000,
)
SEVEN_B = custom_model(
    "7B", 7e9, layers=32, hidden_size=4_096, attention_heads=32, max_context_length=4_096,
    vocab_size=32_000,
)


@pytest.mark.parametrize(
    ("precision", "expected"),
    [("fp32", 4.0), ("bf16", 2.0), ("fp16", 2.0), ("fp8", 1.0), ("int8", 1.0), ("int4", 0.5)],
)
def test_bytes_per_value_follow_the_format(precision, expected):
    assert bytes_per_value(Precision(precision)) == expected


def test_weights_of_a_7b_model_in_fp16_take_14_gb():
    # 7e9 x 2 bytes = 14e9 bytes = 14 GB (seed 002, seed 004).
    assert_allclose(weights_memory_gb(7e9, Precision.FP16), 14.0)


def test_weights_of_a_70b_model_in_fp16_take_140_gb_and_in_int4_35_gb():
    # 70e9 x 2 = 140 GB (seed 001); 70e9 x 0.5 = 35 GB.
    assert_allclose(weights_memory_gb(70e9, Precision.FP16), 140.0)
    assert_allclose(weights_memory_gb(70e9, Precision.INT4), 35.0)


def _no_activations(**overrides) -> TrainingJob:
    return TrainingJob(tokens=1e12, activation_memory_gb=0.0, sequence_length=1_024, **overrides)


def test_training_7b_with_adam_in_mixed_precision_takes_126_gb_before_activations():
    # 7e9 x (2 weights + 4 fp32 master + 4 fp32 gradients + 8 Adam moments) = 7e9 x 18
    # = 126 GB (seed 002: "Parameters x 18 bytes").
    memory = training_memory(SEVEN_B, _no_activations())
    assert_allclose(memory.weights_gb, 14.0)
    assert_allclose(memory.master_weights_gb, 28.0)
    assert_allclose(memory.gradients_gb, 28.0)
    assert_allclose(memory.optimizer_states_gb, 56.0)
    assert_allclose(memory.total_gb, 126.0)


def test_zero_papers_16_bit_gradients_give_16_bytes_per_parameter():
    # 7e9 x (2 + 4 + 2 + 8) = 112 GB.
    job = _no_activations(state_bytes=TrainingStateBytesPerParameter(gradients_bytes=2.0))
    assert_allclose(training_memory(SEVEN_B, job).total_gb, 112.0)


@pytest.mark.parametrize(
    ("parameters", "expected_gb"),
    [
        (110e6, 1.98),  # BERT-base: seed 002 rounds 110e6 x 18 to "2 GB"
        (1.5e9, 27.0),  # GPT-2: seed 002 "27 GB"
        (175e9, 3_150.0),  # GPT-3: seed 002 "3,150 GB"
        (70e9, 1_260.0),  # Llama-2-70B: seed 002 "1,260 GB"
    ],
)
def test_seed_002_training_memory_is_18_bytes_per_parameter(parameters, expected_gb):
    model = custom_model("m", parameters, layers=12, hidden_size=768, attention_heads=12,
                         max_context_length=2_048, vocab_size=50_000)
    assert_allclose(training_memory(model, _no_activations()).total_gb, expected_gb)


def test_kv_cache_of_llama_3_70b_at_4k_and_128k_context_follows_the_definition():
    # 2 x 80 layers x 8 KV heads x 128 x 4,096 tokens x 2 bytes = 1,342,177,280 bytes = 1.342 GB;
    # at 131,072 tokens: 32 x that = 42.95 GB. Seed 003 disagrees with its own definition:
    # its "Memory breakdown inference" rows give ~2 GB (4K) and ~60 GB (128K), and its
    # "Context length vs memory" rows ~2.2 GB, ~18 GB (32K: definition 10.7) and ~72 GB.
    model = model_preset("llama-3.1-70b")
    kv = kv_cache_memory_gb(model, np.array([4_096, 32_768, 131_072]), 1, Precision.FP16)
    assert_allclose(kv, [1.342177280, 10.737418240, 42.949672960])


def test_kv_cache_of_llama_3_8b_at_4k_and_128k_context_follows_the_definition():
    # 2 x 32 x 8 x 128 x 4,096 x 2 bytes = 0.537 GB; at 131,072 tokens 17.18 GB. Seed 003's
    # rows (~0.2-0.25 GB and ~6.5-8 GB) disagree with the definition.
    kv = kv_cache_memory_gb(model_preset("llama-3.1-8b"), np.array([4_096, 131_072]), 1, "fp16")
    assert_allclose(kv, [0.536870912, 17.179869184])


def test_grouped_query_attention_caches_an_eighth_of_full_multi_head_attention():
    # Llama 3 70B has 64 query heads and 8 KV heads: a full multi-head cache is 8 times larger.
    gqa = model_preset("llama-3.1-70b")
    mha = custom_model("mha", gqa.parameters, layers=80, hidden_size=8_192, attention_heads=64,
                       max_context_length=131_072, vocab_size=128_256)
    assert_allclose(kv_cache_memory_gb(mha, 4_096, 1, "bf16"),
                    8 * kv_cache_memory_gb(gqa, 4_096, 1, "bf16"))


def test_deepseek_latent_attention_caches_576_values_per_token_and_layer():
    # 61 layers x 576 values x 4,096 tokens x 8 sequences x 2 bytes = 2.3025 GB.
    kv = kv_cache_memory_gb(model_preset("deepseek-r1"), 4_096, 8, Precision.BF16)
    assert_allclose(kv, 61 * 576 * 4_096 * 8 * 2 / 1e9)
    assert_allclose(kv, 2.302672896)


@pytest.mark.parametrize(
    ("recomputation", "expected_gb"),
    [
        # 10 layers x 2,048 tokens x 2 sequences x 1,000 hidden x 2 bytes = 0.08192 GB
        (ActivationRecomputation.FULL, 0.08192),
        # ... x 34 bytes = 1.39264 GB
        (ActivationRecomputation.SELECTIVE, 1.39264),
        # ... x (34 + 5 x 10 heads x 2,048 / 1,000) = x 136.4 bytes = 5.586944 GB
        (ActivationRecomputation.NONE, 5.586944),
    ],
)
def test_training_activations_follow_korthikanti_per_recomputation(recomputation, expected_gb):
    job = TrainingJob(tokens=1e9, sequence_length=2_048, micro_batch_size=2,
                      recomputation=recomputation)
    assert_allclose(training_memory(TOY, job).activations_gb, expected_gb)


def test_activation_override_replaces_the_estimate():
    job = TrainingJob(tokens=1e9, sequence_length=2_048, activation_memory_gb=30.0)
    assert_allclose(training_memory(TOY, job).activations_gb, 30.0)


def test_inference_memory_of_llama_3_70b_at_4k_adds_weights_cache_and_one_layers_activations():
    # 70,553,706,496 x 2 = 141.107 GB of weights + 1.342 GB of cache (4,096 tokens: 2,048 in,
    # 2,048 out) + 34 x 4,096 x 8,192 bytes (1.141 GB) of activations = 143.591 GB. Seed 003
    # rounds to 140 + 2 + 5 = ~147 GB.
    memory = inference_memory(model_preset("llama-3.1-70b"),
                              InferenceTarget(input_tokens=2_048, output_tokens=2_048,
                                              precision="fp16"))
    assert_allclose(memory.weights_gb, 141.107412992)
    assert_allclose(memory.activations_gb, 1.140850688)
    assert_allclose(memory.total_gb, 141.107412992 + 1.342177280 + 1.140850688)


def test_inference_activations_stop_growing_past_the_prefill_chunk():
    # 34 x min(32,768, 8,192) x 1,000 bytes = 0.278528 GB.
    memory = inference_memory(TOY, InferenceTarget(input_tokens=np.array([512, 16_384]),
                                                   output_tokens=np.array([512, 16_384])))
    assert_allclose(memory.activations_gb, [34 * 1_024 * 1_000 / 1e9, 0.278528])


def _state_breakdown():
    # 5e9 parameters x 2 / 4 / 4 / 8 bytes: weights 10, master 20, gradients 20 and
    # optimizer 40 GB; activations 8 GB.
    model = custom_model("5B", 5e9, layers=10, hidden_size=1_000, attention_heads=10,
                         max_context_length=4_096, vocab_size=1_000)
    return training_memory(model, TrainingJob(tokens=1e9, activation_memory_gb=8.0))


@pytest.mark.parametrize(
    ("sharding", "expected_gb"),
    [
        # everything on every rank: 10 + 20 + 20 + 40 + 8 = 98
        (ShardingStrategy.NONE, 98.0),
        # master and moments sharded: 10 + 20 + (20 + 40) / 4 + 8 = 53
        (ShardingStrategy.ZERO_1, 53.0),
        # gradients too: 10 + (20 + 20 + 40) / 4 + 8 = 38
        (ShardingStrategy.ZERO_2, 38.0),
        # everything: 90 / 4 + 8 = 30.5
        (ShardingStrategy.ZERO_3, 30.5),
        (ShardingStrategy.FSDP, 30.5),
    ],
)
def test_each_zero_stage_divides_its_components_by_the_data_parallel_size(sharding, expected_gb):
    per_device = training_memory_per_device_gb(_state_breakdown(), sharding, 1, 1, 4)
    assert_allclose(per_device, expected_gb)


def test_tensor_parallel_divides_state_and_activations_pipeline_divides_state_only():
    # ZeRO-3 over DP 2, TP 2, PP 2: 90 / (2 x 2 x 2) + 8 / 2 = 11.25 + 4 = 15.25 GB.
    per_device = training_memory_per_device_gb(_state_breakdown(), ShardingStrategy.ZERO_3,
                                                2, 2, 2)
    assert_allclose(per_device, 15.25)


def test_seed_003_ddp_total_follows_its_component_table_but_fsdp_does_not_shard_activations():
    # Seed 003's 70B breakdown uses 2 + 2 + 4 bytes (BF16 weights, gradients, moments; no
    # master copy): 140 + 140 + 280 + ~30 GB activations = 590 GB under DDP, as it says.
    # Its "FSDP shard=8: ~74 GB" divides the activations too (590 / 8); FSDP shards the
    # state only: 560 / 8 + 30 = 100 GB.
    bytes_ = TrainingStateBytesPerParameter(2.0, 0.0, 2.0, 4.0)
    model = custom_model("70B", 70e9, layers=80, hidden_size=8_192, attention_heads=64,
                         kv_heads=8, max_context_length=8_192, vocab_size=128_256)
    memory = training_memory(model, TrainingJob(tokens=1e9, activation_memory_gb=30.0,
                                                state_bytes=bytes_))
    assert_allclose(training_memory_per_device_gb(memory, "ddp", 1, 1, 1), 590.0)
    assert_allclose(training_memory_per_device_gb(memory, "zero3", 1, 1, 8), 100.0)


def test_a_vector_of_parameter_counts_gives_the_scalar_answers():
    parameters = np.array([110e6, 7e9, 70e9, 405e9])
    vector = weights_memory_gb(parameters, Precision.BF16)
    assert_allclose(vector, [weights_memory_gb(p, Precision.BF16) for p in parameters])
    model = custom_model("v", parameters, layers=32, hidden_size=4_096, attention_heads=32,
                         max_context_length=4_096, vocab_size=32_000)
    job = _no_activations()
    assert_allclose(training_memory(model, job).total_gb, parameters * 18 / 1e9)
