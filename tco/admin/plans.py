"""Plan admin: the plan's chart, order schedule, commitments, baselines, limits and uncertainty."""
from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from tco.admin.labels import spec_block
from tco.charts.canvas import inline_svg
from tco.charts.plan_capacity import capacity_figure
from tco.models import PlanStatus
from tco.models import ProcurementPlan
from tco.services.plan_tables import plan_tables
from teams.admin_mixins import TeamScopedAdminMixin


@admin.register(ProcurementPlan)
class ProcurementPlanAdmin(TeamScopedAdminMixin, admin.ModelAdmin):
    list_display = ["name", "scenario", "status", "npv", "saving", "created_at"]
    list_filter = ["status"]
    search_fields = ["name", "scenario__name"]
    list_select_related = ["scenario"]
    change_form_template = "admin/tco/procurementplan/change_form.html"
    team_path = "scenario__team"
    fields = [("scenario", "name", "status"), ("created_at", "solved_at", "finished_at"), "error",
              "spec_shown"]
    readonly_fields = ["scenario", "name", "status", "created_at", "solved_at", "finished_at", "error",
                       "spec_shown"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # plans are created through the API or load_demo

    def has_change_permission(self, request: HttpRequest, obj: ProcurementPlan | None = None) -> bool:
        return False  # a plan's result is written by its job only

    @admin.display(description="NPV of the plan (USD)")
    def npv(self, plan: ProcurementPlan) -> str:
        if not plan.result or not plan.result.get("feasible"):
            return "infeasible" if plan.result else "-"
        return f"${plan.result['npv_usd']:,.0f}"

    @admin.display(description="NPV saving vs best baseline (USD)")
    def saving(self, plan: ProcurementPlan) -> str:
        if not plan.result or plan.result.get("npv_saving_vs_best_baseline_usd") is None:
            return "-"
        return f"${plan.result['npv_saving_vs_best_baseline_usd']:,.0f}"

    @admin.display(description="Demand, choices and uncertainty, as sent to the API")
    def spec_shown(self, plan: ProcurementPlan) -> str:
        return spec_block(plan.spec)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        plan = self.get_object(request, object_id)
        extra_context = {**(extra_context or {}), **(plan_context(plan) if plan is not None else {})}
        return super().change_view(request, object_id, form_url, extra_context)


def plan_context(plan: ProcurementPlan) -> dict[str, Any]:
    """What the plan's page shows, formatted: chart, schedule, baselines, limits, uncertainty."""
    result = plan.result
    if plan.status not in (PlanStatus.DONE, PlanStatus.DRAWING) or not result:
        return {"plan_pending": plan.get_status_display()}
    if not result["feasible"]:
        return {"infeasible": result["infeasible"]["message"]}
    return {"plan_chart": inline_svg(capacity_figure(result, title=plan.name)),
            **plan_tables(result, plan.uncertainty)}
