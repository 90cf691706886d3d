"""Workload sizing over the API: the schema of the sizing spec (whose fields and checks live in
`tco.services.sizing_spec`), the stateless ``POST /api/v1/sizing/`` and the list of model presets.
"""
from __future__ import annotations

from typing import Any

from django.utils import timezone
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.utils import OpenApiExample
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from catalog.api.serializers import VisibleOfferingField
from catalog.models import Accelerator
from catalog.models import TokenApiPrice
from core.parsers import BoundedJSONParser
from costmodel.model_presets import MODEL_PRESETS
from costmodel.sizing import SizingInputError
from costmodel.sizing.results import jsonable
from tco.services.sizing import SizingMode
from tco.services.sizing import api_comparison
from tco.services.sizing import offering_price
from tco.services.sizing import size_spec
from tco.services.sizing_spec import CustomModelSerializer
from tco.services.sizing_spec import EngineEnumField
from tco.services.sizing_spec import ModelSpecField
from tco.services.sizing_spec import SizingSpecSerializer
from tco.services.sizing_spec import nested_error
from teams.selectors import team_ids_of


class EngineEnumFieldExtension(OpenApiSerializerFieldExtension):
    """One schema component per engine enum, apart from the catalog's upper-case Precision."""

    target_class = EngineEnumField

    def get_name(self) -> str:
        name = self.target.enum.__name__
        return name if name.startswith("Sizing") else f"Sizing{name}"

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        return {"type": "string", "enum": [member.value for member in self.target.enum]}


class ModelSpecFieldExtension(OpenApiSerializerFieldExtension):
    """Documents `ModelSpecField` as a preset key or a `CustomModel` object."""

    target_class = ModelSpecField

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        custom = auto_schema.resolve_serializer(CustomModelSerializer, direction)
        return {"oneOf": [{"type": "string", "enum": list(MODEL_PRESETS)}, custom.ref],
                "description": "A model preset key or a custom model's shape."}


class SizingRequestSerializer(SizingSpecSerializer):
    """A sizing spec, the catalog accelerator to size it on and, for inference, a price."""

    accelerator = serializers.SlugRelatedField(
        slug_field="slug", queryset=Accelerator.objects.all(),
        help_text="Catalog accelerator slug, e.g. a100-sxm-80gb.")
    price_usd_per_accelerator_hour = serializers.FloatField(required=False, help_text=(
        "Inference: price of one accelerator-hour [USD/h], for the cost per million tokens."))
    offering = VisibleOfferingField(required=False, help_text=(
            "Inference: a catalog offering of the accelerator whose price in force gives the "
            "cost per million tokens (instead of price_usd_per_accelerator_hour)."))
    prices_as_of = serializers.DateField(required=False, help_text=(
        "Date the offering's price is taken at; default today."))
    token_api_price = serializers.PrimaryKeyRelatedField(
        queryset=TokenApiPrice.objects.all(), required=False, help_text=(
            "Inference, with a price: a catalog token API price (id) whose input, cached input "
            "and output prices are set beside the fleet's, at the sizing's mix."))

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        if "offering" in attrs and "price_usd_per_accelerator_hour" in attrs:
            raise serializers.ValidationError(
                {"offering": ["give an offering or price_usd_per_accelerator_hour, not both"]})
        if "offering" in attrs and attrs["mode"] == SizingMode.TRAINING:
            raise serializers.ValidationError({"offering": ["applies to inference sizing only"]})
        if "token_api_price" in attrs and not ({"offering", "price_usd_per_accelerator_hour"}
                                               & set(attrs)):
            raise serializers.ValidationError({"token_api_price": [
                "give the fleet's price (offering or price_usd_per_accelerator_hour) to compare"]})
        if "prices_as_of" in attrs and "offering" not in attrs:
            raise serializers.ValidationError({"prices_as_of": ["applies with an offering only"]})
        return attrs


class AssumptionSerializer(serializers.Serializer):
    """One figure a sizing rests on."""

    name = serializers.CharField()
    value = serializers.JSONField()
    unit = serializers.CharField()
    source = serializers.CharField()


class OfferingPriceSerializer(serializers.Serializer):
    """The catalog price a cost per million tokens was computed with."""

    offering = serializers.IntegerField(help_text="Catalog offering id.")
    price_point = serializers.IntegerField(help_text="Catalog price point id.")
    usd_per_instance_hour = serializers.FloatField(help_text="[USD/h]")
    accelerators_per_instance = serializers.IntegerField(help_text="[count]")
    usd_per_accelerator_hour = serializers.FloatField(help_text="[USD/h]")
    as_of = serializers.DateField(help_text="Date the price is in force from.")
    source = serializers.CharField(help_text="Where the price comes from.")


def _one_mode(help_text: str) -> serializers.FloatField:
    """A figure only one sizing mode gives (absent in the other); null where it does not fit."""
    return serializers.FloatField(required=False, allow_null=True, help_text=help_text)


class SizingResultSerializer(serializers.Serializer):
    """A sizing's figures and assumptions; NaN ("does not fit") is null."""

    mode = EngineEnumField(SizingMode)
    accelerator = serializers.CharField(help_text="Catalog accelerator slug.")
    model = serializers.CharField()
    spec = serializers.DictField(help_text="The sizing spec as checked.")
    fits = serializers.BooleanField()
    reason = serializers.CharField(help_text="Why it does not fit; empty when it does.")
    accelerators = serializers.FloatField(allow_null=True, help_text="[count]")
    per_device_memory_gb = _one_mode("Training [GB].")
    training_flops = serializers.FloatField(required=False, help_text="Training [FLOP].")
    scaling_efficiency = _one_mode("Training [share].")
    time_s = _one_mode("Training [s].")
    time_days = _one_mode("Training [days].")
    accelerator_hours = _one_mode("Training [h].")
    accelerators_per_replica = _one_mode("Inference [count].")
    replicas = _one_mode("Inference [count].")
    basis = serializers.CharField(required=False, help_text=(
        "Inference: the calibrated estimate, or the stated measurement and its source."))
    capacity_tokens_per_s = _one_mode("Inference [output tokens/s].")
    tokens_per_s_per_accelerator = _one_mode("Inference [output tokens/s].")
    tokens_per_s_per_accelerator_low = _one_mode("Inference: low end of the estimate's range "
                                                 "[output tokens/s].")
    tokens_per_s_per_accelerator_high = _one_mode("Inference: high end of the estimate's range "
                                                  "[output tokens/s].")
    cost_usd_per_million_tokens = _one_mode("Inference, with a price [USD per million output "
                                            "tokens].")
    cost_usd_per_million_tokens_low = _one_mode("Inference, with a price: at the high end of "
                                                "the throughput [USD per million output tokens].")
    cost_usd_per_million_tokens_high = _one_mode("Inference, with a price: at the low end of "
                                                 "the throughput [USD per million output tokens].")
    estimate = serializers.DictField(required=False, help_text=(
        "Inference: one replica's estimate: prefill and decode times [s], the decode bound, the "
        "concurrency and its KV-cache limit, memory [GB]."))
    nearest_measurements = serializers.ListField(
        child=serializers.DictField(), required=False, help_text=(
            "Inference: the published measurements nearest to the configuration, with estimate "
            "/ measured and their source."))
    calibration = serializers.DictField(required=False, help_text=(
        "Inference: the fitted efficiencies, how many measurements, the median ratio and the "
        "range factors."))
    throughput_range = serializers.DictField(required=False, help_text=(
        "A scenario's evaluation, when its throughput is this estimate: tokens/s per accelerator "
        "(low, central, high), each option's cost per million tokens and each API's breakeven "
        "[tokens a month] at the estimate and at both ends of its range, and a triangular "
        "distribution of the throughput for a Monte Carlo run."))
    fit = serializers.DictField(help_text="Memory fit: layout, per-device memory and the memory "
                                          "of one model copy by component [GB].")
    assumptions = AssumptionSerializer(many=True)
    price = OfferingPriceSerializer(required=False, allow_null=True,
                                    help_text="The offering price used, when one was given.")
    layout_search = serializers.DictField(required=False, allow_null=True, help_text=(
        "Inference: every layout that holds the model (tensor x pipeline x expert parallel), "
        "cheapest first, each with its fleet, tokens/s per accelerator and per user, time to the "
        "first token and its curve of throughput against interactivity; the one chosen, why, "
        "the next two, and which service-level target forces a larger fleet, if one does."))
    token_costs = serializers.DictField(required=False, allow_null=True, help_text=(
        "Inference, with a price: USD per million input, cached input and output tokens, from "
        "the replica's cost and its prefill, cache-read and decode rates."))
    api_comparison = serializers.DictField(required=False, allow_null=True, help_text=(
        "With token_api_price: the API's three prices beside the fleet's, and one request of "
        "the sizing's mix priced on each [USD]."))
    software_gain = serializers.DictField(required=False, allow_null=True, help_text=(
        "Inference: the yearly software gain assumed (per_year, a share) and its basis: "
        "stated, fitted on the catalog's dated results, or the default of none."))
    fine_tuning_apis = serializers.DictField(required=False, help_text=(
        "Training: the catalog's fine-tuning APIs for the model, each with the run's cost at "
        "its price per training token; with none, a note saying no public price was found."))


class ModelPresetSerializer(serializers.Serializer):
    """A published model shape the sizing knows by key (the fields of a custom model)."""

    key = serializers.CharField()
    name = serializers.CharField()
    parameters = serializers.FloatField(help_text="All parameters, every expert of a "
                                                  "mixture-of-experts model [count].")
    active_parameters = serializers.FloatField(allow_null=True, help_text="Parameters used per "
                                               "token [count]; null for a dense model.")
    layers = serializers.FloatField(help_text="Transformer layers [count].")
    hidden_size = serializers.FloatField(help_text="Model width [values].")
    attention_heads = serializers.FloatField()
    kv_heads = serializers.FloatField(help_text="Key/value heads (grouped-query attention) [count].")
    head_dim = serializers.FloatField()
    vocab_size = serializers.FloatField(help_text="Vocabulary [tokens].")
    max_context_length = serializers.FloatField(help_text="Longest context the model handles "
                                                          "[tokens].")
    kv_cache_values_per_token_per_layer = serializers.FloatField(
        allow_null=True, help_text="Values cached per token and layer; null for "
                                   "2 x kv_heads x head_dim.")
    source = serializers.CharField(help_text="Where the figures are published.")


INFERENCE_EXAMPLE = OpenApiExample(
    "Serve Llama 3.1 8B at 5,000 tokens/s on H100s",
    value={"accelerator": "h100-sxm-80gb", "mode": "inference", "model": "llama-3.1-8b",
           "tokens_per_s": 5000, "input_tokens": 1000, "output_tokens": 1000,
           "price_usd_per_accelerator_hour": 2.89},
    request_only=True,
)
TRAINING_EXAMPLE = OpenApiExample(
    "Train a custom 7B model on 1T tokens within 30 days",
    value={"accelerator": "h100-sxm-80gb", "mode": "training",
           "model": {"name": "7B", "parameters": 7e9, "layers": 32, "hidden_size": 4096,
                     "attention_heads": 32, "max_context_length": 4096, "vocab_size": 32000},
           "tokens": 1e12, "precision": "bf16", "mfu": 0.4, "deadline_days": 30},
    request_only=True,
)
# The figures of INFERENCE_EXAMPLE (a test checks them); fit and assumptions abridged.
INFERENCE_RESPONSE_EXAMPLE = OpenApiExample(
    "Llama 3.1 8B at 5,000 tokens/s on H100s (abridged)",
    value={"mode": "inference", "accelerator": "h100-sxm-80gb", "model": "Llama 3.1 8B",
           "fits": True, "reason": "",
           "basis": "estimate calibrated on 33 published measurements (catalog)",
           "accelerators_per_replica": 1.0, "replicas": 1.0,
           "accelerators": 1.0, "capacity_tokens_per_s": 6222.949,
           "tokens_per_s_per_accelerator": 6222.949,
           "tokens_per_s_per_accelerator_low": 3938.953,
           "tokens_per_s_per_accelerator_high": 8754.231,
           "cost_usd_per_million_tokens": 0.129,
           "estimate": {"decode_bound": "memory", "concurrency_per_replica": 186.0},
           "fit": {"layout": "TP 1 x PP 1 x DP 1", "per_device_memory_gb": 16.601},
           "assumptions": [{"name": "parameters", "value": 8030261248.0, "unit": "parameters",
                            "source": "Llama Team, 'The Llama 3 Herd of Models' (2024), ..."}],
           "price": None},
    response_only=True,
)


class SizingView(APIView):
    """Size a training run or a serving target on a catalog accelerator; nothing is saved."""

    permission_classes = [IsAuthenticated]
    parser_classes = [BoundedJSONParser]  # a custom model is a nested object

    @extend_schema(request=SizingRequestSerializer, responses=SizingResultSerializer,
                   examples=[INFERENCE_EXAMPLE, TRAINING_EXAMPLE, INFERENCE_RESPONSE_EXAMPLE])
    def post(self, request):
        """Accelerators, layout, time or throughput, and cost per million tokens with a price."""
        serializer = SizingRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        accelerator = data["accelerator"]
        try:
            price = (offering_price(data["offering"], accelerator,
                                    on=data.get("prices_as_of") or timezone.localdate(),
                                    team_ids=team_ids_of(request.user))
                     if "offering" in data else None)
            sizing = size_spec(
                serializer.spec(data), accelerator,
                price_usd_per_accelerator_hour=(price.usd_per_accelerator_hour if price
                                                else data.get("price_usd_per_accelerator_hour")))
            comparison = (api_comparison(sizing.token_costs, data["token_api_price"])
                          if "token_api_price" in data and sizing.token_costs else None)
        except SizingInputError as exc:
            raise serializers.ValidationError(nested_error(exc.path, exc.message)) from exc
        return Response(jsonable({**sizing.to_dict(), "price": price.to_dict() if price else None,
                                  "api_comparison": comparison}))


class ModelPresetListView(APIView):
    """The model presets a sizing spec can name by key, with their published shapes."""

    @extend_schema(responses=ModelPresetSerializer(many=True))
    def get(self, request):
        """Every preset: parameters, shape, context and the source of the figures."""
        return Response([{"key": key, **jsonable(model)} for key, model in MODEL_PRESETS.items()])
