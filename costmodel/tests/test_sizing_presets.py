"""Model presets carry their published shapes; custom models fill in the usual conventions."""

from __future__ import annotations

import pytest
from numpy.testing import assert_allclose

from costmodel.model_presets import MODEL_PRESETS
from costmodel.model_presets import custom_model
from costmodel.model_presets import model_preset
from costmodel.sizing import SizingInputError

# Llama 3.1 (hidden, layers, query heads, FFN size) from the Llama 3 paper, Table 3; vocabulary
# 128,256, 8 KV heads of 128.
LLAMA_SHAPES = {
    "llama-3.1-8b": (4_096, 32, 32, 14_336),
    "llama-3.1-70b": (8_192, 80, 64, 28_672),
    "llama-3.1-405b": (16_384, 126, 128, 53_248),
}


@pytest.mark.parametrize(("preset", "shape"), LLAMA_SHAPES.items())
def test_llama_parameter_counts_follow_from_the_published_shape(preset, shape):
    hidden, layers, heads, ffn = shape
    kv_width = 8 * 128
    per_layer = (
        2 * hidden * hidden  # query and output projections
        + 2 * hidden * kv_width  # key and value projections
        + 3 * hidden * ffn  # SwiGLU gate, up and down
        + 2 * hidden  # two RMSNorm weights
    )
    embeddings = 2 * 128_256 * hidden  # untied input and output
    expected = layers * per_layer + embeddings + hidden  # + final norm
    model = model_preset(preset)
    assert model.parameters == expected
    assert (model.hidden_size, model.layers, model.attention_heads) == (hidden, layers, heads)
    assert model.attention_heads * model.head_dim == hidden


@pytest.mark.parametrize(
    ("preset", "parameters", "layers", "hidden"),
    [
        ("bert-base", 110e6, 12, 768),
        ("gpt-2-xl", 1_542e6, 48, 1_600),
        ("gpt-3-175b", 175e9, 96, 12_288),
        ("deepseek-r1", 671e9, 61, 7_168),
    ],
)
def test_presets_carry_the_published_size_and_shape(preset, parameters, layers, hidden):
    model = model_preset(preset)
    assert (model.parameters, model.layers, model.hidden_size) == (parameters, layers, hidden)
    assert model.source


# Mixture-of-experts presets and their published active parameters (issue 28 added all but
# DeepSeek-R1, for the throughput measurements).
ACTIVE = {"deepseek-r1": 37e9, "mixtral-8x7b": 12.9e9, "qwen3-30b-a3b": 3.3e9,
          "qwen3-235b-a22b": 22e9, "llama-4-maverick": 17e9}


def test_dense_presets_use_every_parameter_per_token_and_deepseek_37b():
    for key, model in MODEL_PRESETS.items():
        expected = ACTIVE.get(key, model.parameters)
        assert model.parameters_per_token == expected


def test_standard_presets_cache_two_values_per_kv_head_dimension():
    # GPT-3: 2 x 96 heads x 128 = 24,576 values per token and layer; DeepSeek's latent: 576.
    assert model_preset("gpt-3-175b").kv_values_per_token_per_layer == 24_576
    assert model_preset("deepseek-r1").kv_values_per_token_per_layer == 576


def test_custom_model_defaults_to_multi_head_attention_with_hidden_over_heads():
    model = custom_model("13B", 13e9, layers=40, hidden_size=5_120, attention_heads=40,
                         max_context_length=4_096, vocab_size=32_000)
    assert (model.kv_heads, model.head_dim) == (40, 128.0)
    assert_allclose(model.kv_values_per_token_per_layer, 2 * 40 * 128)
    assert model.source == "custom"


def test_it_refuses_an_unknown_preset_by_name():
    with pytest.raises(SizingInputError, match="model_preset.*llama-2"):
        model_preset("llama-2")


def test_it_refuses_more_active_parameters_than_parameters_and_more_kv_heads_than_heads():
    with pytest.raises(SizingInputError, match="active_parameters"):
        custom_model("moe", 10e9, active_parameters=20e9, layers=8, hidden_size=1_024,
                     attention_heads=8, max_context_length=2_048, vocab_size=1_000)
    with pytest.raises(SizingInputError, match="kv_heads"):
        custom_model("gqa", 1e9, kv_heads=16, layers=8, hidden_size=1_024, attention_heads=8,
                     max_context_length=2_048, vocab_size=1_000)
