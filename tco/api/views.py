"""Scenario CRUD, evaluation of a stored scenario, and stateless evaluation for budgeting tools."""
from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from tco.api.serializers import EvaluationSerializer, ScenarioSerializer
from tco.models import Scenario
from tco.repricing import scenario_snapshot_save
from tco.services import scenario_clone, scenario_evaluate, scenario_save

SCENARIO_EXAMPLE = OpenApiExample(
    "8x H100 training node vs AWS p5 on-demand",
    value={
        "name": "8x H100 training", "accelerator": "h100-sxm-80gb", "accelerators": 8,
        "utilisation": "0.7", "system": "dgx-h100", "facility": "colo-air-standard",
        "horizon_months": 36, "discount_rate_per_year": "0.08",
        "rent_options": [{"offering": 1}],
    },
    request_only=True,
)


class ScenarioViewSet(viewsets.ModelViewSet):
    """Scenarios of the signed-in user; `evaluate` runs the engine on one."""

    serializer_class = ScenarioSerializer
    permission_classes = [IsAuthenticated]
    filterset_fields = ["accelerator__slug", "system__slug", "facility__slug"]
    search_fields = ["name", "description"]
    ordering_fields = ["name", "created_at", "updated_at"]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return Scenario.objects.none()
        return (Scenario.objects.filter(owner=self.request.user)
                .select_related("accelerator", "system", "facility", "owner")
                .prefetch_related("rent_options"))

    @extend_schema(examples=[SCENARIO_EXAMPLE])
    def create(self, request, *args, **kwargs):
        return super().create(request, *args, **kwargs)

    def perform_create(self, serializer):
        scenario, options = serializer.build(serializer.validated_data)
        scenario.owner = self.request.user
        serializer.instance = scenario_save(scenario=scenario, rent_options=options)

    def perform_update(self, serializer):
        scenario, options = serializer.build(serializer.validated_data)
        serializer.instance = scenario_save(scenario=scenario, rent_options=options)

    @extend_schema(request=None, responses=EvaluationSerializer)
    @action(detail=True, methods=["post"])
    def evaluate(self, request, pk=None):
        """Evaluate the stored scenario: summary, monthly lines, footprint and assumptions.

        The price points used and the figures they gave are snapshotted; a later price refresh
        compares with them to alert on a moved result."""
        scenario = self.get_object()
        evaluation = scenario_evaluate(scenario=scenario)
        scenario_snapshot_save(scenario=scenario, evaluation=evaluation)
        return Response(evaluation.to_dict())

    @extend_schema(request=None, responses={201: ScenarioSerializer})
    @action(detail=True, methods=["post"])
    def clone(self, request, pk=None):
        """Copy the scenario and its rent options."""
        copy = scenario_clone(scenario=self.get_object(), owner=request.user)
        return Response(ScenarioSerializer(copy).data, status=status.HTTP_201_CREATED)


class EvaluateView(APIView):
    """Evaluate a scenario sent as JSON (the scenario shape) without saving it."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=ScenarioSerializer, responses=EvaluationSerializer,
                   examples=[SCENARIO_EXAMPLE])
    def post(self, request):
        serializer = ScenarioSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        scenario, options = serializer.build(serializer.validated_data)
        return Response(scenario_evaluate(scenario=scenario, rent_options=options).to_dict())
