"""Procurement plans: create (202, solved on a worker), poll, solve again, and the result."""
from __future__ import annotations

import json
from typing import Any

from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample
from drf_spectacular.utils import OpenApiResponse
from drf_spectacular.utils import extend_schema
from rest_framework import mixins
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.reverse import reverse

from costmodel.plan.inputs import PlanInputError
from costmodel.plan.spec import demand_from_csv
from tco.api.scenario_jobs import NOT_DONE
from tco.api.scenario_jobs import JobConflict
from tco.api.scenario_jobs import ScenarioFilterSet
from tco.api.scenario_jobs import ScenarioJobViewSet
from tco.demo import EXAMPLE_SCENARIO_DESCRIPTION
from tco.models import PlanStatus
from tco.models import ProcurementPlan
from tco.models import Scenario
from tco.selectors import plans_for
from tco.selectors import scenarios_for
from tco.services.plans import PlanSpecError
from tco.services.plans import plan_cancel
from tco.services.plans import plan_create
from tco.services.plans import plan_delete
from tco.services.plans import plan_resolve
from teams.models import Role
from teams.permissions import require_role
from teams.selectors import User

MAX_CSV_BYTES = 1_000_000

CREATE_EXAMPLES = [
    OpenApiExample("8x H100 growing 5 % a month, 4-month lead time", request_only=True,
                   description=EXAMPLE_SCENARIO_DESCRIPTION, value={
        "scenario": 1, "name": "H100 growth plan", "spec": {
            "demand": {"start": 8, "growth_per_month": 0.05, "months": 36},
            "owned": [{"name": "DGX H100", "lead_time_months": 4}],
            "limits": {"site_it_power_kw": 100},
            "uncertainty": {"draws": 1000, "seed": 7,
                            "growth_delta_per_month": {"kind": "triangular", "low": -0.02, "mode": 0,
                                                       "high": 0.02},
                            "rent_price_factor": {"kind": "triangular", "low": 0.8, "mode": 1,
                                                  "high": 1.2}}}}),
]


class PlanCreateSerializer(serializers.Serializer):
    """A scenario of the user's teams (catalog, facility, finance, rent options) and the plan's spec."""

    scenario = serializers.PrimaryKeyRelatedField(queryset=Scenario.objects.none())
    name = serializers.CharField(max_length=200)
    spec = serializers.JSONField(help_text="Demand, owned and rent choices, limits, uncertainty; "
                                           "see costmodel/plan/spec.py.")
    demand_csv = serializers.FileField(required=False, help_text="Demand per month as CSV (one number "
                                       "a row, or an 'accelerators' column); replaces spec.demand.")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        request = self.context.get("request")  # none when the API schema is generated
        if request is not None:
            self.fields["scenario"].queryset = scenarios_for(request.user)

    def validate_spec(self, spec: Any) -> Any:
        if isinstance(spec, str):  # multipart forms carry JSON as text
            try:
                spec = json.loads(spec)
            except ValueError as exc:
                raise ValidationError("must be a JSON object") from exc
        if not isinstance(spec, dict):
            raise ValidationError("must be a JSON object")
        return spec

    def validate_demand_csv(self, upload: Any) -> list[float]:
        if upload.size > MAX_CSV_BYTES:
            raise ValidationError(f"must be at most {MAX_CSV_BYTES:,} bytes")
        try:
            return demand_from_csv(upload.read().decode("utf-8-sig"))
        except UnicodeDecodeError as exc:
            raise ValidationError("must be UTF-8 text") from exc
        except PlanInputError as exc:
            raise ValidationError(f"{exc.path}: {exc.message}") from exc


# A plan's request and solution: up to months x choices each; read on the plan only.
PLAN_DETAIL_ONLY = ("spec", "result", "uncertainty")


class PlanSerializer(serializers.ModelSerializer):
    """A plan as clients poll it: status, then the solved plan and its Monte Carlo summary."""

    url = serializers.SerializerMethodField()

    class Meta:
        model = ProcurementPlan
        fields = ["id", "url", "scenario", "name", "spec", "status", "error", "result", "uncertainty",
                  "draws_total", "chunks_total", "chunks_done", "created_at", "solved_at", "finished_at"]
        read_only_fields = fields

    def get_url(self, plan: ProcurementPlan) -> str:
        return reverse("plan-detail", args=[plan.pk], request=self.context.get("request"))


class PlanSummarySerializer(PlanSerializer):
    """A plan in a list: its status and counts; the spec and the result are on the plan."""

    class Meta(PlanSerializer.Meta):
        fields = [name for name in PlanSerializer.Meta.fields if name not in PLAN_DETAIL_ONLY]
        read_only_fields = fields


class PlanFilterSet(ScenarioFilterSet):
    class Meta:
        model = ProcurementPlan
        fields = ["scenario", "status"]


class PlanViewSet(mixins.DestroyModelMixin, ScenarioJobViewSet):
    """Procurement plans over the scenarios of the user's teams.

    POST answers 202 with the plan; poll it until its status is done, failed or cancelled. A
    spec that cannot be planned (negative demand, a lead time past the horizon, no choice at
    all, more months x choices than the plan limit, ...) is refused with 400 naming the field,
    and nothing is saved. `cancel` stops a plan; DELETE removes it (an analyst of its team).
    """

    serializer_class = PlanSerializer
    list_serializer_class = PlanSummarySerializer
    detail_only_fields = PLAN_DETAIL_ONLY
    filterset_class = PlanFilterSet
    job_name = "plan"
    done_status = PlanStatus.DONE

    def jobs_for(self, user: User) -> QuerySet[ProcurementPlan]:
        return plans_for(user)

    def refusal(self, exc: PlanSpecError) -> dict[str, Any]:
        """Scenario problems under ``scenario``, every other one under ``spec`` with its path."""
        if exc.field.startswith("scenario."):
            return {"scenario": [f"{exc.field.removeprefix('scenario.')}: {exc.message}"]}
        if exc.field == "choices":
            return {"spec": {"owned": [exc.message], "rent": [exc.message]}}
        return {"spec": {exc.field: [exc.message]}}

    @extend_schema(request=PlanCreateSerializer, responses={202: PlanSerializer}, examples=CREATE_EXAMPLES)
    def create(self, request):
        data = self.start_data(PlanCreateSerializer)
        spec = dict(data["spec"])
        if "demand_csv" in data:
            spec["demand"] = {"table": data["demand_csv"]}
        return self.start(plan_create, scenario=data["scenario"], name=data["name"], spec=spec,
                          created_by=request.user)

    @extend_schema(request=None, responses={202: PlanSerializer, 409: OpenApiResponse(
        description="A solve is already under way.")})
    @action(detail=True, methods=["post"])
    def solve(self, request, pk=None):
        """Solve the plan again, with its scenario's current figures."""
        plan = self.get_object()
        require_role(request.user, plan.scenario.team_id, Role.ANALYST)
        if not plan_resolve(plan=plan):
            raise JobConflict(f"the plan is {plan.status}; wait until it ends")
        return self.accepted(plan)

    @extend_schema(request=None, responses={202: PlanSerializer, 409: OpenApiResponse(
        description="The plan had already ended.")})
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        """Stop the plan: its solve or draws still queued return at once, unfinished draws are dropped."""
        plan = self.get_object()
        require_role(request.user, plan.scenario.team_id, Role.ANALYST)
        if not plan_cancel(plan=plan):
            raise JobConflict(f"the plan has already ended ({plan.status})")
        return self.accepted(plan)

    @extend_schema(responses={204: None})
    def destroy(self, request, *args, **kwargs):
        """Delete the plan (cancelled first if it is under way)."""
        return super().destroy(request, *args, **kwargs)

    def perform_destroy(self, instance: ProcurementPlan) -> None:
        require_role(self.request.user, instance.scenario.team_id, Role.ANALYST)
        plan_delete(plan=instance)

    @extend_schema(responses={200: OpenApiTypes.OBJECT, 409: NOT_DONE})
    @action(detail=True, methods=["get"])
    def result(self, request, pk=None):
        """The solved plan: orders, commitments, capacity by source, baselines, limits, uncertainty."""
        plan = self.done_job()
        return Response({**plan.result, "uncertainty": plan.uncertainty})

