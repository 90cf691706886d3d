"""``POST /api/v1/sizing/throughput/``: one serving configuration sized by the one inference
sizing (`tco.services.sizing.size_spec`, calibrated on published measurements), answered as
a fleet: its tokens/s with the range, the nearest measurements, and with a price the cost per
million output tokens and the per-token API volume above which the fleet is cheaper, each with
its range. The caller may fix the accelerators and their tensor-parallel layout, or state a
measured tokens/s per accelerator with its source, which replaces the estimate.
"""
from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from catalog.models import Accelerator
from costmodel.model_presets import MODEL_PRESETS
from costmodel.sizing import Precision
from costmodel.sizing import SizingInputError
from costmodel.sizing.results import jsonable
from tco.services.sizing import size_spec
from tco.services.sizing_spec import EngineEnumField
from tco.services.sizing_spec import StrictSerializer
from tco.services.sizing_spec import nested_error
from tco.services.sizing_throughput import api_breakeven

SPEC_FIELDS = ("precision", "accelerators", "tensor_parallel", "input_tokens", "output_tokens",
               "concurrency", "measured_tokens_per_s_per_accelerator", "measured_source")


class ThroughputRequestSerializer(StrictSerializer):
    """A serving configuration on a catalog accelerator (unknown fields are refused)."""

    accelerator = serializers.SlugRelatedField(slug_field="slug", queryset=Accelerator.objects.all(),
                                               help_text="Catalog accelerator slug.")
    model = serializers.ChoiceField(choices=list(MODEL_PRESETS), help_text="Model preset key.")
    precision = EngineEnumField(Precision, default="bf16", help_text="Weights' number format.")
    accelerators = serializers.IntegerField(min_value=1, required=False, help_text=(
        "Accelerators of the fleet; default: one replica of the fewest that hold the model."))
    tensor_parallel = serializers.IntegerField(min_value=1, required=False, help_text=(
        "Accelerators per model copy; default: the fewest that hold it (at most the fleet)."))
    input_tokens = serializers.IntegerField(min_value=1, default=1000,
                                            help_text="Prompt tokens per request.")
    output_tokens = serializers.IntegerField(min_value=1, default=1000,
                                             help_text="Generated tokens per request.")
    concurrency = serializers.IntegerField(min_value=1, required=False, help_text=(
        "Requests in flight per replica; omit for a saturating load."))
    measured_tokens_per_s_per_accelerator = serializers.FloatField(
        min_value=0.001, required=False, help_text=(
            "Output tokens/s per accelerator you measured on this configuration; replaces the "
            "estimate."))
    measured_source = serializers.CharField(required=False, max_length=300, help_text=(
        "Where the measured figure comes from (required with it)."))
    price_usd_per_accelerator_hour = serializers.FloatField(min_value=0, required=False)
    api_usd_per_million_tokens = serializers.FloatField(min_value=0.000001, required=False,
                                                        help_text="A per-token API's price of a "
                                                                  "million output tokens.")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        measured = "measured_tokens_per_s_per_accelerator"
        if (measured in attrs) != ("measured_source" in attrs):
            missing = "measured_source" if measured in attrs else measured
            raise serializers.ValidationError({missing: ["give a measured tokens/s with its "
                                                         "source, both or neither"]})
        if "api_usd_per_million_tokens" in attrs and "price_usd_per_accelerator_hour" not in attrs:
            raise serializers.ValidationError({"price_usd_per_accelerator_hour": [
                "needed to compare with the API"]})
        return attrs


class ThroughputResultSerializer(serializers.Serializer):
    """Output tokens/s of a configuration with its range, and what it rests on."""

    accelerator = serializers.CharField(help_text="Catalog accelerator slug.")
    model = serializers.CharField()
    accelerators = serializers.IntegerField(help_text="[count]")
    tensor_parallel = serializers.IntegerField(help_text="Accelerators per model copy.")
    replicas = serializers.IntegerField(help_text="Model copies.")
    basis = serializers.CharField(help_text="The estimate, or the stated measurement and its "
                                            "source.")
    tokens_per_s = serializers.FloatField(help_text="Output tokens/s of the fleet.")
    tokens_per_s_low = serializers.FloatField(help_text="Low end of its range [tokens/s].")
    tokens_per_s_high = serializers.FloatField(help_text="High end of its range [tokens/s].")
    tokens_per_s_per_accelerator = serializers.FloatField()
    tokens_per_s_per_accelerator_low = serializers.FloatField()
    tokens_per_s_per_accelerator_high = serializers.FloatField()
    all_tokens_per_output_token = serializers.FloatField(help_text="(input + output) / output "
                                                                   "tokens of a request.")
    estimate = serializers.DictField(help_text="Prefill and decode times [s], the decode bound, "
                                               "concurrency and KV-cache limit, memory [GB].")
    nearest_measurements = serializers.ListField(child=serializers.DictField(), help_text=(
        "The published measurements nearest to the configuration, with estimate / measured."))
    calibration = serializers.DictField(help_text="Fitted efficiencies and the range factors.")
    monte_carlo_distribution = serializers.DictField(help_text=(
        "A triangular distribution of the scenario's tokens/s per accelerator over the range."))
    cost = serializers.DictField(required=False, help_text="USD per million output tokens at "
                                                           "the figure, low and high.")
    api_breakeven = serializers.DictField(required=False, help_text=(
        "Output tokens a month above which the fleet costs less than the API, and the fleet's "
        "capacity at the figure and at both ends of its range."))


def throughput_answer(data: dict[str, Any]) -> dict[str, Any]:
    """The JSON answer for validated request data; raises SizingInputError naming the field."""
    spec = {"mode": "inference", "model": data["model"],
            **{key: data[key] for key in SPEC_FIELDS if key in data}}
    if "accelerators" in data and "tensor_parallel" not in data:
        spec["max_tensor_parallel"] = data["accelerators"]
    price = data.get("price_usd_per_accelerator_hour")
    sizing = size_spec(spec, data["accelerator"], price_usd_per_accelerator_hour=price)
    if not sizing.fits:
        raise SizingInputError("accelerators", f"{sizing.model} does not fit: "
                                               f"{sizing.result.reason}")
    result = sizing.result
    accelerators = float(result.accelerators)
    figure = float(result.tokens_per_s_per_accelerator)
    low, high = sizing.throughput_range
    answer: dict[str, Any] = {
        "accelerator": sizing.accelerator, "model": sizing.model,
        "accelerators": int(accelerators), "tensor_parallel": int(result.fit.tensor_parallel),
        "replicas": int(result.replicas), "basis": str(result.basis),
        "tokens_per_s": figure * accelerators, "tokens_per_s_low": low * accelerators,
        "tokens_per_s_high": high * accelerators, "tokens_per_s_per_accelerator": figure,
        "tokens_per_s_per_accelerator_low": low, "tokens_per_s_per_accelerator_high": high,
        "all_tokens_per_output_token": (data["input_tokens"] + data["output_tokens"])
        / data["output_tokens"],
        "estimate": jsonable(result.estimate), "nearest_measurements": list(sizing.nearest),
        "calibration": sizing.calibration,
        # Ready for a Monte Carlo run of a scenario (POST /api/v1/runs/): its throughput drawn
        # over the estimate's range, so every figure downstream carries the efficiency's spread.
        "monte_carlo_distribution": {"path": "workload.tokens_per_s_per_accelerator",
                                     "kind": "triangular", "low": low, "mode": figure,
                                     "high": high},
    }
    if price is not None:
        answer["cost"] = {"usd_per_million_tokens": result.cost_usd_per_million_tokens,
                          "low": result.cost_usd_per_million_tokens_low,
                          "high": result.cost_usd_per_million_tokens_high}
        if "api_usd_per_million_tokens" in data:
            answer["api_breakeven"] = api_breakeven(accelerators, (figure, low, high), price,
                                                    data["api_usd_per_million_tokens"])
    return jsonable(answer)


EXAMPLE = OpenApiExample(
    "Llama 3.1 8B on one L40S, 1,000 tokens in and out, saturating load",
    value={"accelerator": "l40s-pcie-48gb", "model": "llama-3.1-8b", "precision": "fp8",
           "accelerators": 1, "input_tokens": 1000, "output_tokens": 1000,
           "price_usd_per_accelerator_hour": 0.91, "api_usd_per_million_tokens": 0.6},
    request_only=True,
)


class ThroughputView(APIView):
    """Serving throughput of a configuration, calibrated on published measurements; nothing is
    saved."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=ThroughputRequestSerializer,
                   responses=ThroughputResultSerializer, examples=[EXAMPLE])
    def post(self, request):
        """Output tokens/s with its range and nearest measurements; with a price, cost per
        million tokens and the API breakeven volume, each with its range."""
        serializer = ThroughputRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            return Response(throughput_answer(serializer.validated_data))
        except SizingInputError as exc:
            raise serializers.ValidationError(nested_error(exc.path, exc.message)) from exc

