"""A scenario's stored sizing spec: its fields and their checks, shared by the API and the admin.

Serializers check shapes and types; every range is the engine's, checked by building the
engine inputs (`tco.services.sizing.sizing_inputs`), so the API, a scenario and the admin refuse
bad input the same way, naming the field (``mfu``, ``model.parameters``). Defaults and valid
ranges in the help texts are read from the engine's dataclasses.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import MISSING
from dataclasses import fields
from enum import Enum
from enum import StrEnum
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from catalog.models import Accelerator
from costmodel.sizing import ActivationRecomputation
from costmodel.sizing import FitPolicy
from costmodel.sizing import InferenceTarget
from costmodel.sizing import ModelShape
from costmodel.sizing import Precision
from costmodel.sizing import ShardingStrategy
from costmodel.sizing import SizingInputError
from costmodel.sizing import TrainingJob
from tco.services.sizing import FITTED
from tco.services.sizing import SPEC_KEYS
from tco.services.sizing import SizingMode
from tco.services.sizing import size_spec
from tco.services.sizing import sizing_inputs


def nested_error(path: str, message: str) -> dict[str, Any]:
    """DRF's error shape for a dotted field path: ``model.parameters`` -> {model: {parameters}}."""
    head, _, rest = path.partition(".")
    return {head: nested_error(rest, message) if rest else [message]}


def engine_note(cls: type, name: str) -> str:
    """The engine's default and valid range of a field, e.g. "default 0.4; valid range (0, 1]"."""
    spec = next(f for f in fields(cls) if f.name == name)
    notes = []
    default = spec.default.value if isinstance(spec.default, Enum) else spec.default
    if default not in (MISSING, None) and not (isinstance(default, float) and math.isnan(default)):
        notes.append(f"default {default:g}" if isinstance(default, float) else f"default {default}")
    meta = spec.metadata
    if meta.get("numeric"):
        notes.append(f"valid range {'(' if meta['low_open'] else '['}{meta['low']:g}, "
                     f"{meta['high']:g}{')' if meta['high_open'] else ']'}")
    return f" ({'; '.join(notes)})" if notes else ""


def _number(cls: type, name: str, help_text: str, *, whole: bool = False,
            required: bool = False) -> serializers.Field:
    """An optional number field documented with the engine's default and range."""
    field = serializers.IntegerField if whole else serializers.FloatField
    return field(required=required, help_text=help_text + engine_note(cls, name))


class EngineEnumField(serializers.ChoiceField):
    """A choice among the values of an engine enum (Precision, ShardingStrategy...), in any
    case ("FP8" is "fp8": the catalog and scenarios write precisions upper-case); a value not
    among them is refused listing the choices."""

    def __init__(self, enum: type[StrEnum], **kwargs: Any) -> None:
        self.enum = enum
        values = [member.value for member in enum]
        kwargs.setdefault("error_messages", {})["invalid_choice"] = (
            f'"{{input}}" is not a valid choice; choose one of {", ".join(values)}.')
        super().__init__(choices=values, **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str) and data.lower() in self.choice_strings_to_values:
            return self.choice_strings_to_values[data.lower()]
        return super().to_internal_value(data)


def _choice(cls: type, name: str, enum: type[StrEnum], help_text: str) -> serializers.Field:
    """An optional choice among an engine enum's values, documented with the engine's default."""
    return EngineEnumField(enum, required=False, help_text=help_text + engine_note(cls, name))


class StrictSerializer(serializers.Serializer):
    """Refuses keys it does not know, so a misspelt field is an error rather than a default."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                known = ", ".join(self.fields)
                raise serializers.ValidationError(
                    {key: [f"is not a field here; known: {known}"] for key in unknown})
        return super().to_internal_value(data)


class CustomModelSerializer(StrictSerializer):
    """A model described by its parameter count and shape (see `custom_model`)."""

    name = serializers.CharField(required=False, max_length=200)
    parameters = _number(ModelShape, "parameters", "All parameters, every expert of a "
                         "mixture-of-experts model [count].", required=True)
    layers = _number(ModelShape, "layers", "Transformer layers [count].", whole=True,
                     required=True)
    hidden_size = _number(ModelShape, "hidden_size", "Model width [values].", whole=True,
                          required=True)
    attention_heads = _number(ModelShape, "attention_heads", "Attention heads [count].",
                              whole=True, required=True)
    max_context_length = _number(ModelShape, "max_context_length", "Longest context the model "
                                 "handles [tokens].", whole=True, required=True)
    vocab_size = _number(ModelShape, "vocab_size", "Vocabulary [tokens].", whole=True,
                         required=True)
    kv_heads = _number(ModelShape, "kv_heads", "Key/value heads (grouped-query attention) "
                       "[count]; omit for attention_heads.", whole=True)
    head_dim = _number(ModelShape, "head_dim", "Values per head; omit for "
                       "hidden_size / attention_heads.", whole=True)
    active_parameters = _number(ModelShape, "active_parameters", "Parameters used per token by "
                                "a mixture-of-experts model [count]; omit for a dense model.")
    kv_cache_values_per_token_per_layer = _number(
        ModelShape, "kv_cache_values_per_token_per_layer", "Values cached per token and layer "
        "when not 2 x kv_heads x head_dim (multi-head latent attention) [values].")


class ModelSpecField(serializers.Field):
    """A model preset key (GET /api/v1/sizing/presets/) or a custom model's shape."""

    default_error_messages = {"invalid": "Give a preset key or a custom model's shape."}

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str):
            return data  # the engine resolves the key, or refuses it listing the presets
        if not isinstance(data, Mapping):
            self.fail("invalid")
        shape = CustomModelSerializer(data=data)
        shape.is_valid(raise_exception=True)
        return dict(shape.validated_data)

    def to_representation(self, value: Any) -> Any:
        return value


@extend_schema_field({"oneOf": [{"type": "number"}, {"type": "string", "enum": [FITTED]}]})
class SoftwareGainField(serializers.Field):
    """A yearly software gain: a share a year (0.1 = 10 %), or "fitted" for the catalog's fit on
    dated results of one configuration; its range is checked with the sizing."""

    default_error_messages = {"invalid": f'Give a share a year (0.1 = 10 %) or "{FITTED}".'}

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str) and data.strip().lower() == FITTED:
            return FITTED
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        return float(data)

    def to_representation(self, value: Any) -> Any:
        return value


class SizingSpecSerializer(StrictSerializer):
    """A sizing spec: what is run (training or serving), which model, and the fit limits.

    Fields marked "training" or "inference" are refused in the other mode; omitted fields
    take the engine's default.
    """

    mode = EngineEnumField(SizingMode)
    model = ModelSpecField()
    precision = _choice(TrainingJob, "precision", Precision, "Training: format of the "
                        "arithmetic. Inference: format of the weights.")
    activation_memory_gb = _number(TrainingJob, "activation_memory_gb", "Activations of one "
                                   "model copy [GB]; omit to estimate them.")
    # Training
    tokens = _number(TrainingJob, "tokens", "Training: tokens to process [tokens]; required.")
    mfu = _number(TrainingJob, "mfu", "Training: model-FLOPs utilisation of one accelerator "
                  "[share of dense peak].")
    sharding = _choice(TrainingJob, "sharding", ShardingStrategy, "Training: how data-parallel "
                       "ranks split the training state (zero3 = FSDP).")
    tensor_parallel = _number(TrainingJob, "tensor_parallel", "Accelerators per tensor-parallel "
                              "group; inference: fixes one replica's devices (omit for the "
                              "fewest that hold the model).", whole=True)
    pipeline_parallel = _number(TrainingJob, "pipeline_parallel", "Pipeline stages; inference: "
                                "with tensor_parallel, fixes one replica's layout [stages].",
                                whole=True)
    sequence_length = _number(TrainingJob, "sequence_length", "Training [tokens].", whole=True)
    micro_batch_size = _number(TrainingJob, "micro_batch_size", "Training: sequences per "
                               "data-parallel rank per step [sequences].", whole=True)
    recomputation = _choice(TrainingJob, "recomputation", ActivationRecomputation,
                            "Training: activations recomputed in the backward pass.")
    accelerators = serializers.IntegerField(required=False, help_text=(
        "Run on this many accelerators [count]. Training: a multiple of tensor x pipeline "
        "parallel; omit it and deadline_days for the memory minimum. Inference: whole replicas, "
        "instead of tokens_per_s."))
    deadline_days = serializers.FloatField(required=False, help_text=(
        "Training: the fewest accelerators that finish within this time [days] (at least the "
        "memory minimum)."))
    # Inference
    tokens_per_s = _number(InferenceTarget, "tokens_per_s", "Inference: output tokens to serve "
                           "[tokens/s]; omit for one replica or a fixed fleet.")
    input_tokens = _number(InferenceTarget, "input_tokens", "Inference: prompt tokens per "
                           "request [tokens].", whole=True)
    output_tokens = _number(InferenceTarget, "output_tokens", "Inference: generated tokens per "
                            "request [tokens].", whole=True)
    concurrency = _number(InferenceTarget, "concurrency", "Inference: requests in flight per "
                          "replica [requests]; omit for a saturating load (as many as the KV "
                          "cache holds, at most 1,024).", whole=True)
    compute_precision = _choice(InferenceTarget, "compute_precision", Precision, "Inference: "
                                "format of the arithmetic; omit for the weights' format.")
    kv_cache_precision = _choice(InferenceTarget, "kv_cache_precision", Precision, "Inference: "
                                 "format of the KV cache; omit for FP8 with 8-bit weights on an "
                                 "FP8 device, else the compute format.")
    measured_tokens_per_s_per_accelerator = _number(
        InferenceTarget, "measured_tokens_per_s_per_accelerator", "Inference: output tokens/s "
        "per accelerator you measured on this configuration; replaces the estimate (give "
        "measured_source).")
    measured_source = serializers.CharField(required=False, max_length=300, help_text=(
        "Inference: where the measured tokens/s comes from (required with it)."))
    prefill_chunk_tokens = _number(InferenceTarget, "prefill_chunk_tokens", "Inference: "
                                   "chunked-prefill budget of the serving engine [tokens].",
                                   whole=True)
    time_to_first_token_s = _number(InferenceTarget, "time_to_first_token_s", "Inference: "
                                    "service-level target, longest wait for a request's first "
                                    "token [s].")
    tokens_per_s_per_user = _number(InferenceTarget, "tokens_per_s_per_user", "Inference: "
                                    "service-level target, slowest output each user may get "
                                    "(interactivity) [output tokens/s per user].")
    cached_input_share = _number(InferenceTarget, "cached_input_share", "Inference: share of "
                                 "input tokens served from the prefix cache (a hit skips its "
                                 "prefill) [share].")
    software_gain_per_year = SoftwareGainField(required=False, help_text=(
        "Inference: yearly throughput gain from maturing software, applied over the asset's life "
        f'(default 0: none); "{FITTED}" for the catalog\'s fit on results of one configuration '
        "published at different dates [share a year]."))
    # Fit policy
    headroom_fraction = _number(FitPolicy, "headroom_fraction", "Share of each device's memory "
                                "kept free for the runtime [share].")
    max_tensor_parallel = _number(FitPolicy, "max_tensor_parallel", "Largest tensor-parallel "
                                  "group, one NVLink/NVSwitch node [accelerators].", whole=True)
    max_pipeline_parallel = _number(FitPolicy, "max_pipeline_parallel", "Most pipeline stages "
                                    "[stages]; omit for one per layer.", whole=True)
    max_accelerators = _number(FitPolicy, "max_accelerators", "Most accelerators a sizing may "
                               "use [count]; omit for no limit.", whole=True)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        try:
            sizing_inputs(self.spec(attrs))
        except SizingInputError as exc:
            raise serializers.ValidationError(nested_error(exc.path, exc.message)) from exc
        return attrs

    @staticmethod
    def spec(attrs: Mapping[str, Any]) -> dict[str, Any]:
        """The sizing spec among validated fields (as a scenario stores it)."""
        return {key: value for key, value in attrs.items() if key in SPEC_KEYS}


def validated_sizing_spec(spec: Any, accelerator: Accelerator | None) -> dict[str, Any]:
    """A stored sizing spec checked as the API checks it, then run on ``accelerator`` if given.

    Returns the spec with its values normalised; raises Django's ValidationError with one
    "field: message" line per problem (for model forms).
    """
    serializer = SizingSpecSerializer(data=spec)
    if not serializer.is_valid():
        raise DjangoValidationError(_error_lines(serializer.errors))
    checked = serializer.spec(serializer.validated_data)
    if accelerator is not None:
        try:
            size_spec(checked, accelerator)
        except SizingInputError as exc:
            raise DjangoValidationError(f"{exc.path}: {exc.message}") from exc
    return checked


def _error_lines(errors: Any, prefix: str = "") -> list[str]:
    """DRF's nested errors as "field.sub: message" lines."""
    if isinstance(errors, Mapping):
        return [line for key, value in errors.items()
                for line in _error_lines(value, f"{prefix}{key}." if key != "non_field_errors"
                                         else prefix)]
    return [f"{prefix.rstrip('.') or 'sizing'}: {message}" for message in errors]
