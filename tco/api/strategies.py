"""The strategies endpoint's query and answer (``GET /api/v1/scenarios/{id}/strategies/``)."""
from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

from tco.services.strategies import MAX_API_PATHS

STRATEGY_PARAMETERS = [
    OpenApiParameter("paths", int, description=f"price paths of a Monte Carlo, 1 to {MAX_API_PATHS:,}; "
                                                "none: the verdict on the forward curve only"),
    OpenApiParameter("seed", int, description="the Monte Carlo's seed (the same seed, the same figures)"),
]


class StrategiesQuery(serializers.Serializer):
    """``paths`` and ``seed``; any other parameter is refused."""

    paths = serializers.IntegerField(required=False, min_value=1, max_value=MAX_API_PATHS)
    seed = serializers.IntegerField(required=False, min_value=0, default=0)

    def validate(self, attrs):
        unknown = sorted(set(self.initial_data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError({name: ["unknown parameter"] for name in unknown})
        return attrs


class StrategiesSerializer(serializers.Serializer):
    """The verdict over the strategies (``costmodel.strategies.StrategyVerdict.to_dict``), the curve
    and next generation it used, why it is missing, and the Monte Carlo when asked for."""

    currency = serializers.CharField(help_text="The scenario's reporting currency, of every price and cost.")
    missing = serializers.CharField(help_text="Why no strategy could be costed; empty when they were.")
    verdict = serializers.JSONField(allow_null=True)
    curve = serializers.JSONField(allow_null=True)
    next_generation = serializers.JSONField(allow_null=True)
    monte_carlo = serializers.JSONField(required=False)
