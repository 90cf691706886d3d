"""FinOps files of a scenario or a plan: FOCUS projections (CSV, Parquet) and the owned fleet's
price sheets for OpenCost and SkyPilot. Built on request from the scenario's own evaluation."""
from __future__ import annotations

import datetime as dt
import re

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from drf_spectacular.utils import OpenApiResponse
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.views import APIView

from finops.exports.focus import focus_csv
from finops.exports.focus import focus_parquet
from finops.exports.opencost import opencost_csv
from finops.exports.opencost import opencost_default_json
from finops.exports.opencost import owned_rate
from finops.exports.opencost import skypilot_config
from finops.exports.projections import plan_focus
from finops.exports.projections import scenario_focus
from tco.api.scenario_jobs import JobConflict
from tco.models import PlanStatus
from tco.models import ProcurementPlan
from tco.models import Scenario
from tco.services.engine_inputs import ScenarioInputError
from teams.selectors import for_teams

FOCUS_FILES = {"csv": ("text/csv", focus_csv), "parquet": ("application/vnd.apache.parquet", focus_parquet)}
START = OpenApiParameter("start", str, description="Month 0's calendar month, YYYY-MM (default: the "
                         "approval's month of an approved scenario, the plan's month, else this month).")
FILE = OpenApiParameter("file", str, enum=list(FOCUS_FILES), description="csv (default) or parquet.")
FILE_RESPONSE = {(200, "application/octet-stream"): OpenApiResponse(description="The file")}


def month_param(request) -> dt.date | None:
    """The ``start`` query parameter as the first day of its month; 400 naming it when unreadable."""
    raw = request.query_params.get("start")
    if not raw:
        return None
    match = re.fullmatch(r"(\d{4})-(\d{2})(?:-\d{2})?", raw)
    if not match or not 1 <= int(match[2]) <= 12:
        raise ValidationError({"start": [f"'{raw}' is not a month: write it as YYYY-MM, e.g. 2027-01"]})
    return dt.date(int(match[1]), int(match[2]), 1)


def focus_response(request, frame, name: str) -> HttpResponse:
    kind = request.query_params.get("file", "csv")
    if kind not in FOCUS_FILES:
        raise ValidationError({"file": [f"'{kind}' is not csv or parquet"]})
    content_type, write = FOCUS_FILES[kind]
    return attachment(write(frame), content_type, f"{name}-focus-1.2.{kind}")


def attachment(body: bytes | str, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def visible_scenario(request, pk: int) -> Scenario:
    return get_object_or_404(for_teams(Scenario.objects.select_related("team"), request.user), pk=pk)


def evaluated(function, *args, **kwargs):
    """``function``'s answer; a scenario that cannot be evaluated is a 400 naming the field."""
    try:
        return function(*args, **kwargs)
    except ScenarioInputError as exc:
        raise ValidationError({exc.field: [exc.message]}) from exc


class ScenarioFocusView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(parameters=[START, FILE], responses=FILE_RESPONSE)
    def get(self, request, pk: int):
        """The projected monthly costs of every option of the scenario as FOCUS 1.2 rows."""
        scenario = visible_scenario(request, pk)
        frame = evaluated(scenario_focus, scenario, start=month_param(request))
        return focus_response(request, frame, f"scenario-{scenario.pk}-{slugify(scenario.name)}")


class PlanFocusView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(parameters=[START, FILE], responses={**FILE_RESPONSE, 409: OpenApiResponse(
        description="The plan is not solved (yet).")})
    def get(self, request, pk: int):
        """The solved plan's projected monthly costs by source as FOCUS 1.2 rows."""
        plans = for_teams(ProcurementPlan.objects.select_related("scenario__team"), request.user,
                          team_path="scenario__team")
        plan = get_object_or_404(plans, pk=pk)
        if plan.status != PlanStatus.DONE or not (plan.result or {}).get("feasible"):
            raise JobConflict(f"the plan is {plan.get_status_display().lower()}, with no feasible solution "
                              "to export" if plan.status == PlanStatus.DONE else
                              f"the plan is {plan.get_status_display().lower()}; wait until it is done")
        frame = plan_focus(plan, start=month_param(request))
        return focus_response(request, frame, f"plan-{plan.pk}-{slugify(plan.name)}")


PRICE_SHEETS = {
    "opencost-default.json": "application/json",
    "opencost-pricing.csv": "text/csv",
    "skypilot-config.yaml": "application/yaml",
}


class OwnedPriceSheetView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={(200, "application/octet-stream"): OpenApiTypes.STR})
    def get(self, request, pk: int, sheet: str):
        """The owned fleet's cost per GPU-hour as OpenCost's default.json or CSV pricing, or as
        SkyPilot's Kubernetes pricing (opencost-default.json, opencost-pricing.csv,
        skypilot-config.yaml)."""
        scenario = visible_scenario(request, pk)
        rate = evaluated(owned_rate, scenario)
        if sheet == "opencost-default.json":
            body = opencost_default_json(rate)
        elif sheet == "opencost-pricing.csv":
            # Valid for the scenario's horizon from today.
            until = timezone.now() + dt.timedelta(days=30 * scenario.horizon_months)
            body = opencost_csv(rate, valid_until=until)
        else:
            body = evaluated(skypilot_config, rate)
        return attachment(body, PRICE_SHEETS[sheet], f"scenario-{scenario.pk}-{sheet}")
