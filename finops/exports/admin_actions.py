"""Admin actions that download FinOps files: FOCUS projections of the selected scenarios or plans
(CSV, Parquet) and the owned fleet's OpenCost and SkyPilot price sheets of one scenario."""
from __future__ import annotations

import pandas as pd
from django.contrib import admin
from django.contrib import messages
from django.http import HttpRequest
from django.http import HttpResponse
from django.utils import timezone

from finops.exports.focus import focus_csv
from finops.exports.focus import focus_parquet
from finops.exports.opencost import opencost_default_json
from finops.exports.opencost import owned_rate
from finops.exports.opencost import skypilot_config
from finops.exports.projections import plan_focus
from finops.exports.projections import scenario_focus
from tco.models import PlanStatus
from tco.services.engine_inputs import ScenarioInputError


def _download(body: bytes | str, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _scenario_frames(modeladmin, request, queryset) -> pd.DataFrame | None:
    try:
        return pd.concat([scenario_focus(scenario) for scenario in queryset.select_related("team")],
                         ignore_index=True)
    except ScenarioInputError as exc:
        modeladmin.message_user(request, f"Cannot export: {exc}", messages.ERROR)
        return None


def _focus_download(frame: pd.DataFrame | None, file_format: str, stem: str) -> HttpResponse | None:
    """The FOCUS projection as a dated CSV or Parquet download (None when there was nothing to export)."""
    if frame is None:
        return None
    filename = f"{stem}-{timezone.localdate().isoformat()}.{file_format}"
    if file_format == "csv":
        return _download(focus_csv(frame), "text/csv", filename)
    return _download(focus_parquet(frame), "application/vnd.apache.parquet", filename)


@admin.action(description="FOCUS 1.2 projection (CSV)", permissions=["view"])
def focus_csv_selected(modeladmin, request: HttpRequest, queryset):
    return _focus_download(_scenario_frames(modeladmin, request, queryset), "csv", "focus")


@admin.action(description="FOCUS 1.2 projection (Parquet)", permissions=["view"])
def focus_parquet_selected(modeladmin, request: HttpRequest, queryset):
    return _focus_download(_scenario_frames(modeladmin, request, queryset), "parquet", "focus")


def _one(modeladmin, request, queryset):
    if queryset.count() != 1:
        modeladmin.message_user(request, "Select one scenario: a price sheet prices one owned fleet.",
                                messages.ERROR)
        return None
    try:
        return owned_rate(queryset.get())
    except ScenarioInputError as exc:
        modeladmin.message_user(request, f"Cannot price: {exc}", messages.ERROR)
        return None


@admin.action(description="OpenCost default.json of the owned fleet", permissions=["view"])
def opencost_selected(modeladmin, request: HttpRequest, queryset):
    rate = _one(modeladmin, request, queryset)
    return None if rate is None else _download(opencost_default_json(rate), "application/json",
                                               f"scenario-{rate.scenario_id}-opencost-default.json")


@admin.action(description="SkyPilot Kubernetes pricing of the owned fleet", permissions=["view"])
def skypilot_selected(modeladmin, request: HttpRequest, queryset):
    rate = _one(modeladmin, request, queryset)
    if rate is None:
        return None
    try:
        body = skypilot_config(rate)
    except ScenarioInputError as exc:
        modeladmin.message_user(request, f"Cannot price: {exc}", messages.ERROR)
        return None
    return _download(body, "application/yaml", f"scenario-{rate.scenario_id}-skypilot-config.yaml")


def _plan_frames(modeladmin, request, queryset) -> pd.DataFrame | None:
    plans = list(queryset.select_related("scenario__team"))
    unsolved = [plan.name for plan in plans
                if plan.status != PlanStatus.DONE or not (plan.result or {}).get("feasible")]
    if unsolved:
        modeladmin.message_user(request, f"Not solved, nothing to export: {', '.join(unsolved)}",
                                messages.ERROR)
        return None
    return pd.concat([plan_focus(plan) for plan in plans], ignore_index=True)


@admin.action(description="FOCUS 1.2 projection (CSV)", permissions=["view"])
def plan_focus_csv_selected(modeladmin, request: HttpRequest, queryset):
    return _focus_download(_plan_frames(modeladmin, request, queryset), "csv", "plan-focus")


@admin.action(description="FOCUS 1.2 projection (Parquet)", permissions=["view"])
def plan_focus_parquet_selected(modeladmin, request: HttpRequest, queryset):
    return _focus_download(_plan_frames(modeladmin, request, queryset), "parquet", "plan-focus")
