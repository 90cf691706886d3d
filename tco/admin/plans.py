"""Plan admin: the plan's chart, order schedule, commitments, baselines, limits and uncertainty."""
from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.http import HttpRequest
from django.http import HttpResponse
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path
from django.urls import reverse

from costmodel.vocabulary import MISSING
from costmodel.vocabulary import money
from tco.admin.labels import spec_table
from tco.admin.plan_form import PlanForm
from tco.admin.plan_form import initial_from_spec
from tco.charts.canvas import inline_svg
from tco.charts.plan_capacity import capacity_figure
from tco.models import PlanStatus
from tco.models import ProcurementPlan
from tco.selectors import scenarios_for
from tco.services.plan_tables import plan_currency
from tco.services.plan_tables import plan_tables
from tco.services.plans import ACTIVE_PLAN_STATUSES
from tco.services.plans import plan_cancel
from tco.services.plans import plan_create
from tco.services.plans import plan_resolve
from tco.services.plans import plan_respec
from teams.admin_mixins import TeamScopedAdminMixin
from teams.models import Role


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

    def has_change_permission(self, request: HttpRequest, obj: ProcurementPlan | None = None) -> bool:
        return False  # a plan's result is written by its job; its spec is edited on its own page

    def may_plan(self, request: HttpRequest, plan: ProcurementPlan | None = None) -> bool:
        """Analysts of the scenario's team create, edit and solve plans."""
        return TeamScopedAdminMixin.has_change_permission(self, request, plan)

    def get_urls(self):
        view = self.admin_site.admin_view
        return [path("<int:plan_id>/edit/", view(self.edit_view), name="tco_procurementplan_edit"),
                path("<int:plan_id>/solve/", view(self.solve_view), name="tco_procurementplan_solve"),
                path("<int:plan_id>/cancel/", view(self.cancel_view), name="tco_procurementplan_cancel"),
                *super().get_urls()]

    def add_view(self, request: HttpRequest, form_url: str = "", extra_context=None) -> HttpResponse:
        """A new plan over a scenario (``?scenario=<id>`` picks it); saved only if it can be planned."""
        if not self.may_plan(request):
            raise PermissionDenied
        scenarios = scenarios_for(request.user, role=Role.ANALYST).select_related("system")
        scenario = scenarios.filter(pk=request.GET.get("scenario") or 0).first()
        form = PlanForm(request.POST or None, request.FILES or None, scenarios=scenarios, scenario=scenario,
                        initial={"name": f"{scenario.name} plan" if scenario else ""})
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            plan = plan_create(scenario=data["scenario"], name=data["name"], spec=data["spec"],
                               created_by=request.user)
            self.message_user(request, f"{plan.name} is being solved; this page shows it when it is done.",
                              messages.SUCCESS)
            return HttpResponseRedirect(reverse("admin:tco_procurementplan_change", args=[plan.pk]))
        return self._form_page(request, form, "Plan procurement")

    def edit_view(self, request: HttpRequest, plan_id: int) -> HttpResponse:
        """The plan's spec in the form; saving solves it again."""
        plan = self.get_object(request, str(plan_id))
        if plan is None:
            raise Http404("No such plan in your teams.")
        if not self.may_plan(request, plan):
            raise PermissionDenied
        scenarios = scenarios_for(request.user, role=Role.ANALYST).filter(pk=plan.scenario_id)
        form = PlanForm(request.POST or None, request.FILES or None, scenarios=scenarios,
                        scenario=plan.scenario,
                        initial={"scenario": plan.scenario_id, "name": plan.name,
                                 **initial_from_spec(plan.spec)})
        if request.method == "POST" and form.is_valid():
            if plan_respec(plan=plan, name=form.cleaned_data["name"], spec=form.cleaned_data["spec"]):
                self.message_user(request, f"{plan.name} is being solved again.", messages.SUCCESS)
            else:
                self.message_user(request, f"{plan.name} is {plan.get_status_display().lower()}: "
                                  "wait until it ends, then edit it.", messages.ERROR)
            return HttpResponseRedirect(reverse("admin:tco_procurementplan_change", args=[plan.pk]))
        return self._form_page(request, form, f"Edit {plan.name}", plan=plan)

    def solve_view(self, request: HttpRequest, plan_id: int) -> HttpResponse:
        """Solve the plan again with its scenario's current figures (POST)."""
        plan = self._plan_posted(request, plan_id)
        if plan_resolve(plan=plan):
            self.message_user(request, f"{plan.name} is being solved again.", messages.SUCCESS)
        else:
            self.message_user(request, f"{plan.name} is {plan.get_status_display().lower()}; wait until "
                              "it ends.", messages.ERROR)
        return HttpResponseRedirect(reverse("admin:tco_procurementplan_change", args=[plan.pk]))

    def cancel_view(self, request: HttpRequest, plan_id: int) -> HttpResponse:
        """Stop a queued, solving or drawing plan (POST), as the API's ``cancel`` does."""
        plan = self._plan_posted(request, plan_id)
        if plan_cancel(plan=plan):
            self.message_user(request, f"{plan.name} is cancelled: nothing more is solved or drawn for it.",
                              messages.SUCCESS)
        else:
            status = plan.get_status_display().lower()
            self.message_user(request, f"{plan.name} had already ended ({status}).", messages.WARNING)
        return HttpResponseRedirect(reverse("admin:tco_procurementplan_change", args=[plan.pk]))

    def _plan_posted(self, request: HttpRequest, plan_id: int) -> ProcurementPlan:
        """The plan an analyst of its team acts on with a POST (404 outside their teams, else 403)."""
        plan = self.get_object(request, str(plan_id))
        if plan is None:
            raise Http404("No such plan in your teams.")
        if request.method != "POST" or not self.may_plan(request, plan):
            raise PermissionDenied
        return plan

    def _form_page(self, request: HttpRequest, form: PlanForm, title: str,
                   plan: ProcurementPlan | None = None) -> TemplateResponse:
        context = {**self.admin_site.each_context(request), "opts": self.model._meta, "title": title,
                   "form": form, "plan": plan}
        return TemplateResponse(request, "admin/tco/procurementplan/plan_form.html", context)

    @admin.display(description="NPV of the plan")
    def npv(self, plan: ProcurementPlan) -> str:
        if not plan.result or not plan.result.get("feasible"):
            return "infeasible" if plan.result else MISSING
        return money(plan.result["npv_usd"], 0, plan_currency(plan.result))

    @admin.display(description="NPV saving vs best baseline")
    def saving(self, plan: ProcurementPlan) -> str:
        if not plan.result or plan.result.get("npv_saving_vs_best_baseline_usd") is None:
            return MISSING
        return money(plan.result["npv_saving_vs_best_baseline_usd"], 0, plan_currency(plan.result))

    @admin.display(description="Demand, choices, limits and uncertainty")
    def spec_shown(self, plan: ProcurementPlan) -> str:
        return spec_table(plan.spec)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        plan = self.get_object(request, object_id)
        extra_context = {**(extra_context or {}), **(plan_context(plan) if plan is not None else {}),
                         "may_plan": plan is not None and self.may_plan(request, plan)}
        return super().change_view(request, object_id, form_url, extra_context)


def plan_context(plan: ProcurementPlan) -> dict[str, Any]:
    """What the plan's page shows, formatted: chart, schedule, baselines, limits, uncertainty."""
    result = plan.result
    if plan.status not in (PlanStatus.DONE, PlanStatus.DRAWING) or not result:
        return {"plan_pending": plan.get_status_display(),
                "plan_running": plan.status in ACTIVE_PLAN_STATUSES}
    if not result["feasible"]:
        return {"infeasible": result["infeasible"]["message"]}
    drawing = plan.status == PlanStatus.DRAWING
    percent = round(100 * plan.chunks_done / plan.chunks_total) if drawing and plan.chunks_total else None
    return {"plan_chart": inline_svg(capacity_figure(result, title=plan.name)),
            "plan_running": drawing,
            "draws_percent": percent,
            **plan_tables(result, plan.uncertainty)}
