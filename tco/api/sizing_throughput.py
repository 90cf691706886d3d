"""``POST /api/v1/sizing/throughput/``: serving throughput calibrated on published measurements.

The caller fixes the accelerators and their tensor-parallel layout (or takes one replica of the
fewest devices that hold the model), the request shape and, optionally, a measured tokens/s with
its source, which replaces the estimate. The answer carries the figure's range, the nearest
published measurements, and with a price the cost per million output tokens and the per-token API
volume above which the fleet is cheaper, each with its range.
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
from tco.engine.model_presets import MODEL_PRESETS
from tco.engine.model_presets import model_preset
from tco.engine.sizing import FitPolicy
from tco.engine.sizing import InferenceTarget
from tco.engine.sizing import Precision
from tco.engine.sizing import SizingInputError
from tco.engine.sizing import fit_inference
from tco.engine.sizing.results import jsonable
from tco.services.sizing import accelerator_spec
from tco.services.sizing_spec import EngineEnumField
from tco.services.sizing_spec import nested_error
from tco.services.sizing_throughput import Stated
from tco.services.sizing_throughput import api_breakeven
from tco.services.sizing_throughput import cost_with_range
from tco.services.sizing_throughput import serving_setup
from tco.services.sizing_throughput import throughput_estimate

ENGINE_FIELDS = {"ServingSetup.accelerators": "accelerators",
                 "ServingSetup.tensor_parallel": "tensor_parallel",
                 "ServingSetup.precision": "precision",
                 "ServingSetup.input_tokens": "input_tokens",
                 "ServingSetup.output_tokens": "output_tokens",
                 "ServingSetup.concurrency": "concurrency"}


class ThroughputRequestSerializer(serializers.Serializer):
    """A serving configuration on a catalog accelerator."""

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
        "Requests in flight over the fleet; omit for a saturating load."))
    measured_tokens_per_s = serializers.FloatField(min_value=0.001, required=False, help_text=(
        "Output tokens/s you measured on this configuration; replaces the estimate."))
    measured_source = serializers.CharField(required=False, max_length=300, help_text=(
        "Where the measured figure comes from (required with it)."))
    price_usd_per_accelerator_hour = serializers.FloatField(min_value=0, required=False)
    api_usd_per_million_tokens = serializers.FloatField(min_value=0.000001, required=False,
                                                        help_text="A per-token API's price of a "
                                                                  "million output tokens.")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("measured_tokens_per_s" in attrs) != ("measured_source" in attrs):
            missing = "measured_source" if "measured_tokens_per_s" in attrs else \
                "measured_tokens_per_s"
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


def _layout(data: dict[str, Any]) -> tuple[int, int]:
    """(accelerators, tensor parallel): as given, or the fewest devices that hold the weights."""
    tensor = data.get("tensor_parallel")
    if tensor is None:
        model = model_preset(data["model"])
        fit = fit_inference(model, accelerator_spec(data["accelerator"]),
                            InferenceTarget(precision=data["precision"],
                                            context_length=data["input_tokens"]
                                            + data["output_tokens"]),
                            FitPolicy(max_tensor_parallel=data.get("accelerators") or 8))
        if not bool(fit.fits) or float(fit.pipeline_parallel) > 1:
            raise SizingInputError("accelerators", f"{model.name} does not fit one tensor-"
                                                   "parallel group: give more accelerators")
        tensor = int(fit.tensor_parallel)
    return data.get("accelerators") or tensor, tensor


def throughput_answer(data: dict[str, Any]) -> dict[str, Any]:
    """The JSON answer for validated request data; raises SizingInputError naming the field."""
    accelerators, tensor = _layout(data)
    try:
        setup = serving_setup(model=model_preset(data["model"]), accelerator=data["accelerator"],
                              accelerators=accelerators, tensor_parallel=tensor,
                              precision=data["precision"], input_tokens=data["input_tokens"],
                              output_tokens=data["output_tokens"],
                              concurrency=data.get("concurrency"))
    except SizingInputError as exc:
        raise SizingInputError(ENGINE_FIELDS.get(exc.path, exc.path), exc.message) from exc
    stated = (Stated(data["measured_tokens_per_s"], data["measured_source"])
              if "measured_tokens_per_s" in data else None)
    result = throughput_estimate(setup, stated=stated)
    figure, low, high = result.per_accelerator()
    answer: dict[str, Any] = {
        "accelerator": data["accelerator"].slug, "model": setup.model.name,
        "accelerators": accelerators, "tensor_parallel": tensor,
        "replicas": int(accelerators // tensor), "basis": result.basis,
        "tokens_per_s": result.tokens_per_s, "tokens_per_s_low": result.low,
        "tokens_per_s_high": result.high, "tokens_per_s_per_accelerator": figure,
        "tokens_per_s_per_accelerator_low": low, "tokens_per_s_per_accelerator_high": high,
        "all_tokens_per_output_token": result.all_tokens_factor(),
        "estimate": jsonable(result.estimate), "nearest_measurements": result.nearest,
        "calibration": result.calibration,
        # Ready for a Monte Carlo run of a scenario (POST /api/v1/runs/): its throughput drawn
        # over the estimate's range, so every figure downstream carries the efficiency's spread.
        "monte_carlo_distribution": {"path": "workload.tokens_per_s_per_accelerator",
                                     "kind": "triangular", "low": low, "mode": figure,
                                     "high": high},
    }
    price = data.get("price_usd_per_accelerator_hour")
    if price is not None:
        answer["cost"] = cost_with_range(result, price)
        if "api_usd_per_million_tokens" in data:
            answer["api_breakeven"] = api_breakeven(result, price,
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

