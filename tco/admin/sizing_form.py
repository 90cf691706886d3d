"""The scenario form's serving sizing as fields (a model preset, a precision from the list, the
request shape and the service-level targets) instead of a JSON box; the JSON box stays for a
custom model or a training run. The fields make the same spec ``POST /api/v1/sizing/`` takes,
checked the same way (`tco.services.sizing_spec.validated_sizing_spec`).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms

from costmodel.model_presets import MODEL_PRESETS
from costmodel.sizing import InferenceTarget
from costmodel.sizing import Precision
from tco.services.sizing_spec import engine_note

# Form field -> the spec key it fills, the engine dataclass documenting it, label and help.
NUMBER_FIELDS: Mapping[str, tuple[str, str, str, bool]] = {
    "sizing_tokens_per_s": ("tokens_per_s", "Output tokens/s to serve",
                            "Over the whole fleet; empty: one replica.", False),
    "sizing_input_tokens": ("input_tokens", "Input tokens per request", "", True),
    "sizing_output_tokens": ("output_tokens", "Output tokens per request", "", True),
    "sizing_time_to_first_token_s": ("time_to_first_token_s", "Time to first token, at most (s)",
                                     "Service-level target.", False),
    "sizing_tokens_per_s_per_user": ("tokens_per_s_per_user",
                                     "Output tokens/s per user, at least",
                                     "Service-level target (interactivity).", False),
    "sizing_cached_input_share": ("cached_input_share", "Share of input from the prefix cache",
                                  "0 to below 1; a hit skips its prefill.", False),
}
FIELD_NAMES = ("sizing_model", "sizing_precision", *NUMBER_FIELDS)


def sizing_fields() -> dict[str, forms.Field]:
    """The form fields, each documented with the engine's default and range."""
    fields: dict[str, forms.Field] = {
        "sizing_model": forms.ChoiceField(
            required=False, label="Model to serve",
            choices=[("", "none: no serving sizing, or the JSON spec below"),
                     *((key, model.name) for key, model in MODEL_PRESETS.items())],
            help_text="A published model; a custom model or a training run goes in the JSON "
                      "spec below."),
        "sizing_precision": forms.ChoiceField(
            required=False, label="Weights' precision",
            choices=[("", "default (BF16)"), *((p.value, p.value.upper()) for p in Precision)]),
    }
    for name, (key, label, help_text, whole) in NUMBER_FIELDS.items():
        kind = forms.IntegerField if whole else forms.FloatField
        fields[name] = kind(required=False, label=label,
                            help_text=(help_text + engine_note(InferenceTarget, key)).strip())
    return fields


def initial_from(spec: Any) -> dict[str, Any]:
    """The fields' values for a stored spec they can show (an inference spec of a preset)."""
    if not (isinstance(spec, Mapping) and spec.get("mode") == "inference"
            and isinstance(spec.get("model"), str)):
        return {}
    initial = {"sizing_model": spec["model"], "sizing_precision": spec.get("precision", "")}
    initial.update({name: spec[key] for name, (key, *_) in NUMBER_FIELDS.items() if key in spec})
    return initial


def spec_from(cleaned: Mapping[str, Any], stored: Any) -> dict[str, Any] | None:
    """The inference spec the fields describe, the other keys of a stored spec of the same
    model kept (a fixed tensor_parallel, a measured figure); None without a model."""
    if not cleaned.get("sizing_model"):
        return None
    same_model = initial_from(stored).get("sizing_model") == cleaned["sizing_model"]
    kept = dict(stored) if same_model else {}
    for key, *_ in NUMBER_FIELDS.values():
        kept.pop(key, None)
    spec = {**kept, "mode": "inference", "model": cleaned["sizing_model"]}
    if cleaned.get("sizing_precision"):
        spec["precision"] = cleaned["sizing_precision"]
    else:
        spec.pop("precision", None)
    spec.update({key: cleaned[name] for name, (key, *_) in NUMBER_FIELDS.items()
                 if cleaned.get(name) is not None})
    return spec


# A form class holding the fields, so that the scenario form declares them (the admin builds
# its form from the fieldsets' names, which must be model fields or declared ones).
ServingSizingFields = type("ServingSizingFields", (forms.Form,),
                           {"__module__": __name__, **sizing_fields()})
