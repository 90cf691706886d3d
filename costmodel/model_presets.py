"""Published shapes of well-known models, and a helper for a custom one.

Parameter counts are the authors' figures; for the Llama 3.1 family, whose
papers round them ("8B"), the exact count follows from the published shape
(untied input and output embeddings of 128,256 x hidden, per layer the
attention with 8 KV heads, a SwiGLU MLP and two norms), as in the released
checkpoints. The Llama presets use the 3.1 release: the same weights' shape
as Llama 3 with a 128K-token context (the 405B exists only as 3.1).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType

from costmodel.inputs import Numeric
from costmodel.sizing.errors import SizingInputError
from costmodel.sizing.inputs import ModelShape

LLAMA_3_SOURCE = (
    "Llama Team, 'The Llama 3 Herd of Models' (2024), Table 3; context and vocabulary from the "
    "Llama 3.1 model cards and config.json"
)

LLAMA_2_SOURCE = (
    "Touvron et al. 2023, 'Llama 2: Open Foundation and Fine-Tuned Chat Models', Table 1 (4k "
    "context, GQA for 70B); exact counts and shape from the meta-llama/Llama-2-*-hf config.json"
)

MODEL_PRESETS: Mapping[str, ModelShape] = MappingProxyType(
    {
        "bert-base": ModelShape(
            name="BERT-base",
            parameters=110e6,
            layers=12,
            hidden_size=768,
            attention_heads=12,
            kv_heads=12,
            head_dim=64,
            vocab_size=30_522,
            max_context_length=512,
            source="Devlin et al. 2018, BERT, section 3 (L=12, H=768, A=12, 110M); "
            "vocabulary and positions from google-research/bert bert_config.json. Encoder "
            "only: it does not decode, so its KV cache and decode figures are notional",
        ),
        "gpt-2-xl": ModelShape(
            name="GPT-2 XL (1.5B)",
            parameters=1_542e6,
            layers=48,
            hidden_size=1_600,
            attention_heads=25,
            kv_heads=25,
            head_dim=64,
            vocab_size=50_257,
            max_context_length=1_024,
            source="Radford et al. 2019, GPT-2, Table 2 (1542M, 48 layers, d_model 1600); "
            "heads, context and vocabulary from openai/gpt-2 hparams",
        ),
        "llama-3.1-8b": ModelShape(
            name="Llama 3.1 8B",
            parameters=8_030_261_248,
            layers=32,
            hidden_size=4_096,
            attention_heads=32,
            kv_heads=8,
            head_dim=128,
            vocab_size=128_256,
            max_context_length=131_072,
            source=LLAMA_3_SOURCE,
        ),
        "llama-3.1-70b": ModelShape(
            name="Llama 3.1 70B",
            parameters=70_553_706_496,
            layers=80,
            hidden_size=8_192,
            attention_heads=64,
            kv_heads=8,
            head_dim=128,
            vocab_size=128_256,
            max_context_length=131_072,
            source=LLAMA_3_SOURCE,
        ),
        "llama-3.1-405b": ModelShape(
            name="Llama 3.1 405B",
            parameters=405_853_388_800,
            layers=126,
            hidden_size=16_384,
            attention_heads=128,
            kv_heads=8,
            head_dim=128,
            vocab_size=128_256,
            max_context_length=131_072,
            source=LLAMA_3_SOURCE,
        ),
        "gpt-3-175b": ModelShape(
            name="GPT-3 175B",
            parameters=175e9,
            layers=96,
            hidden_size=12_288,
            attention_heads=96,
            kv_heads=96,
            head_dim=128,
            vocab_size=50_257,
            max_context_length=2_048,
            source="Brown et al. 2020, GPT-3, Table 2.1 (175.0B, 96 layers, d_model 12288, "
            "96 heads of 128, context 2048); GPT-2 vocabulary",
        ),
        "llama-2-7b": ModelShape(
            name="Llama 2 7B",
            parameters=6_738_415_616,
            layers=32,
            hidden_size=4_096,
            attention_heads=32,
            kv_heads=32,
            head_dim=128,
            vocab_size=32_000,
            max_context_length=4_096,
            source=LLAMA_2_SOURCE,
        ),
        "llama-2-70b": ModelShape(
            name="Llama 2 70B",
            parameters=68_976_648_192,
            layers=80,
            hidden_size=8_192,
            attention_heads=64,
            kv_heads=8,
            head_dim=128,
            vocab_size=32_000,
            max_context_length=4_096,
            source=LLAMA_2_SOURCE,
        ),
        "mixtral-8x7b": ModelShape(
            name="Mixtral 8x7B (MoE, 12.9B active)",
            parameters=46.7e9,
            active_parameters=12.9e9,
            layers=32,
            hidden_size=4_096,
            attention_heads=32,
            kv_heads=8,
            head_dim=128,
            vocab_size=32_000,
            max_context_length=32_768,
            source="Mistral AI, 'Mixtral of experts' (2023-12-11): 46.7B total, 12.9B used per "
            "token; shape from mistralai/Mixtral-8x7B-v0.1 config.json (32 layers, hidden 4096, "
            "32 heads, 8 KV heads, 8 experts of which 2 per token)",
        ),
        "qwen3-30b-a3b": ModelShape(
            name="Qwen3-30B-A3B (MoE, 3.3B active)",
            parameters=30.5e9,
            active_parameters=3.3e9,
            layers=48,
            hidden_size=2_048,
            attention_heads=32,
            kv_heads=4,
            head_dim=128,
            vocab_size=151_936,
            max_context_length=32_768,
            source="Qwen/Qwen3-30B-A3B model card: 30.5B total, 3.3B activated, 48 layers, 32 Q "
            "and 4 KV heads, 128 experts (8 activated), 32,768 tokens natively; hidden size, "
            "head_dim and vocabulary from its config.json",
        ),
        "qwen3-235b-a22b": ModelShape(
            name="Qwen3-235B-A22B (MoE, 22B active)",
            parameters=235e9,
            active_parameters=22e9,
            layers=94,
            hidden_size=4_096,
            attention_heads=64,
            kv_heads=4,
            head_dim=128,
            vocab_size=151_936,
            max_context_length=32_768,
            source="Qwen/Qwen3-235B-A22B model card: 235B total, 22B activated, 94 layers, 64 Q "
            "and 4 KV heads, 128 experts (8 activated), 32,768 tokens natively; hidden size, "
            "head_dim and vocabulary from its config.json",
        ),
        "llama-4-maverick": ModelShape(
            name="Llama 4 Maverick 17Bx128E (MoE, 17B active)",
            parameters=400e9,
            active_parameters=17e9,
            layers=48,
            hidden_size=5_120,
            attention_heads=40,
            kv_heads=8,
            head_dim=128,
            vocab_size=202_048,
            max_context_length=1_048_576,
            source="meta-llama/Llama-4-Maverick-17B-128E-Instruct model card: 17B activated, "
            "400B total, 128 experts, 1M context; shape from its config.json (48 layers, hidden "
            "5120, 40 heads, 8 KV heads of 128)",
        ),
        # Multi-head latent attention caches, per token and layer, one
        # compressed latent of kv_lora_rank 512 plus a shared RoPE key of 64,
        # 576 values, instead of K and V for its 128 heads (2 x 128 x 128 =
        # 32,768 values): the cache is modelled with that override.
        "deepseek-r1": ModelShape(
            name="DeepSeek-R1 671B (MoE, 37B active)",
            parameters=671e9,
            active_parameters=37e9,
            layers=61,
            hidden_size=7_168,
            attention_heads=128,
            kv_heads=128,
            head_dim=128,
            vocab_size=129_280,
            max_context_length=131_072,
            kv_cache_values_per_token_per_layer=576,
            source="DeepSeek-AI 2025, DeepSeek-R1 model card (671B total, 37B activated, 128K "
            "context); architecture of DeepSeek-V3 (arXiv:2412.19437, section 4.2: 61 layers, "
            "hidden 7168, 128 heads of 128, MLA kv_lora_rank 512, RoPE key 64)",
        ),
    }
)


def model_preset(key: str) -> ModelShape:
    """Return the preset named ``key`` (see `MODEL_PRESETS`), or raise naming the field."""
    try:
        return MODEL_PRESETS[key]
    except KeyError as exc:
        raise SizingInputError(
            "model_preset", f"unknown preset {key!r}; known: {', '.join(MODEL_PRESETS)}"
        ) from exc


def custom_model(
    name: str,
    parameters: Numeric,
    *,
    layers: Numeric,
    hidden_size: Numeric,
    attention_heads: Numeric,
    max_context_length: Numeric,
    vocab_size: Numeric,
    kv_heads: Numeric | None = None,
    head_dim: Numeric | None = None,
    active_parameters: Numeric = math.nan,
    kv_cache_values_per_token_per_layer: Numeric = math.nan,
) -> ModelShape:
    """Describe a model by its parameter count and shape.

    ``kv_heads`` defaults to ``attention_heads`` (multi-head attention) and
    ``head_dim`` to hidden_size / attention_heads, the usual transformer
    convention; give them for grouped-query attention or unusual heads.

    Examples
    --------
    A 13B model with Llama 2 13B's shape (40 layers, hidden 5,120, 40 heads):
    head_dim 5,120 / 40 = 128.

    >>> custom_model("13B", 13e9, layers=40, hidden_size=5120, attention_heads=40,
    ...              max_context_length=4096, vocab_size=32000).head_dim
    128.0
    """
    return ModelShape(
        name=name,
        parameters=parameters,
        active_parameters=active_parameters,
        layers=layers,
        hidden_size=hidden_size,
        attention_heads=attention_heads,
        kv_heads=attention_heads if kv_heads is None else kv_heads,
        head_dim=(hidden_size / attention_heads) if head_dim is None else head_dim,
        vocab_size=vocab_size,
        max_context_length=max_context_length,
        kv_cache_values_per_token_per_layer=kv_cache_values_per_token_per_layer,
        source="custom",
    )
