"""Scenario admin: inputs grouped as a person thinks of them, the result on the scenario's page."""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect
from django.urls import path, reverse
from django.utils.safestring import mark_safe

from reports.admin import ReportExportInline, export_excel, export_pdf
from tco import admin_alerts, admin_runs  # noqa: F401  (register the alert and run admins)
from tco.api.sizing import validated_sizing_spec
from tco.charts import cumulative_cost_figure, render
from tco.inputs_from_db import ScenarioInputError
from tco.models import RentOption, Scenario
from tco.services import monthly_frame, scenario_clone, scenario_evaluate
from tco.sizing_from_db import Sizing


class RentOptionInline(admin.StackedInline):
    model = RentOption
    extra = 0
    autocomplete_fields = ["offering"]
    fieldsets = [
        (None, {"fields": [("name", "offering"), ("price_usd_per_instance_hour",
                                                   "commitment_months", "upfront_usd")]}),
        ("Spot, data and price trend", {
            "classes": ["collapse"],
            "fields": [("spot_interruption_overhead", "price_change_per_year"),
                       ("egress_tb_per_month", "egress_usd_per_gb"),
                       ("storage_tb", "storage_usd_per_gb_month")]}),
    ]


class ScenarioAdminForm(forms.ModelForm):
    """The scenario form; its sizing JSON is checked as the API checks it."""

    class Meta:
        model = Scenario
        # The fields its check reads; ScenarioAdmin's fieldsets add the rest.
        fields = ["accelerator", "sizing"]

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("sizing") is not None:
            try:
                cleaned["sizing"] = validated_sizing_spec(cleaned["sizing"],
                                                          cleaned.get("accelerator"))
            except ValidationError as exc:
                self.add_error("sizing", exc)
        return cleaned


@admin.register(Scenario)
class ScenarioAdmin(admin.ModelAdmin):
    form = ScenarioAdminForm
    list_display = ["name", "accelerator", "accelerators", "system", "facility",
                    "horizon_months", "owner", "updated_at"]
    list_filter = ["accelerator__vendor", "facility", "horizon_months"]
    search_fields = ["name", "description"]
    autocomplete_fields = ["accelerator", "system", "facility"]
    readonly_fields = ["owner", "created_at", "updated_at"]
    inlines = [RentOptionInline, ReportExportInline]
    actions = ["clone_selected", export_excel, export_pdf]
    fieldsets = [
        (None, {"fields": ["name", "description", "prices_as_of",
                           ("owner", "created_at", "updated_at")]}),
        ("Workload", {"fields": [("accelerator", "accelerators"),
                                 ("utilisation", "hours_per_month"),
                                 "tokens_per_s_per_accelerator", "sizing"]}),
        ("Buy: hardware", {"fields": [("system", "system_price_usd"),
                                      ("network_usd_per_system", "network_share_of_compute"),
                                      ("storage_usd", "racks_install_usd_per_rack", "spares_share"),
                                      ("power_cap_share", "power_cap_throughput_loss")]}),
        ("Buy: operations", {"fields": [("support_share_per_year", "licence_usd_per_accelerator_year"),
                                        ("staff_fte_per_system", "staff_usd_per_fte_year")]}),
        ("Facility (empty = the profile's figure)", {"fields": [
            "facility", ("electricity_usd_per_kwh", "electricity_escalation_per_year", "pue"),
            ("colocation_usd_per_kw_month", "buildout_capex_usd_per_kw",
             "buildout_opex_usd_per_kw_month"),
            ("rack_power_limit_kw", "rack_units_per_rack")]}),
        ("Finance", {"fields": [("horizon_months", "discount_rate_per_year"),
                                ("depreciation_months", "residual_value_share"),
                                ("financed_share", "loan_rate_per_year", "loan_term_months")]}),
    ]
    change_form_template = "admin/tco/scenario/change_form.html"

    def save_model(self, request, obj, form, change):
        if obj.owner_id is None:
            obj.owner = request.user
        super().save_model(request, obj, form, change)

    def get_urls(self):
        return [path("<int:pk>/clone/", self.admin_site.admin_view(self.clone_view),
                     name="tco_scenario_clone"), *super().get_urls()]

    def clone_view(self, request, pk):
        copy = scenario_clone(scenario=self.get_object(request, str(pk)), owner=request.user)
        self.message_user(request, f"Cloned into “{copy.name}”.", messages.SUCCESS)
        return HttpResponseRedirect(reverse("admin:tco_scenario_change", args=[copy.pk]))

    @admin.action(description="Clone selected scenarios")
    def clone_selected(self, request, queryset):
        for scenario in queryset:
            scenario_clone(scenario=scenario, owner=request.user)
        self.message_user(request, f"Cloned {queryset.count()} scenario(s).", messages.SUCCESS)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        scenario = self.get_object(request, object_id)
        extra_context = {**(extra_context or {}), **_result_context(scenario)}
        return super().change_view(request, object_id, form_url, extra_context)


def _finite(value: float) -> float | None:
    """None for NaN ("never"), so templates can say so."""
    return value if np.isfinite(value) else None


def _result_context(scenario: Scenario | None) -> dict:
    if scenario is None:
        return {}
    try:
        evaluation = scenario_evaluate(scenario=scenario)
    except ScenarioInputError as exc:
        return {"evaluation_error": str(exc)}
    result = evaluation.result
    figure = cumulative_cost_figure(result)
    frame = monthly_frame(result)
    first = lambda values: float(np.reshape(values, -1)[0])  # noqa: E731
    return {
        "evaluation": evaluation,
        **_sizing_context(evaluation.case.sizing),
        "recommendation": result.recommendation,
        "footprint": {k: v for k, v in result.to_dict()["footprint"].items() if k != "warnings"},
        "warnings": [name for name, flag in result.footprint.warnings.items() if first(flag)],
        "buy_cost_per_hour": first(result.buy.cost_per_useful_accelerator_hour_usd),
        "buy_total": first(result.buy.total_usd),
        "buy_npv": first(result.buy.npv_usd),
        "rent_rows": [{
            "name": o.name, "total": first(o.total_usd), "npv": first(o.npv_usd),
            "saving": first(o.npv_saving_usd), "cost_per_hour":
                first(o.cost_per_useful_accelerator_hour_usd),
            "breakeven": _finite(first(o.breakeven_month)),
            "breakeven_utilisation": _finite(first(o.breakeven_utilisation))}
            for o in result.rent],
        "chart_svg": mark_safe(render(figure, "svg").decode()),  # noqa: S308 (our own SVG)
        "cash_flow_columns": list(frame.columns),
        "cash_flow_rows": frame.round(2).itertuples(index=False),
    }


def _sizing_context(sizing: Sizing | None) -> dict:
    """The sizing's figures and assumptions as table rows of text."""
    if sizing is None:
        return {}
    return {"sizing": sizing,
            "sizing_figures": [(f.name, _shown(f.value), f.unit) for f in sizing.figures()],
            "sizing_assumptions": [(a.name, _shown(a.value), a.unit, a.source)
                                   for a in sizing.result.assumptions]}


def _shown(value: Any) -> str:
    """A sizing value as text: whole numbers with separators, others to 4 significant digits."""
    value = value.tolist() if isinstance(value, np.ndarray | np.generic) else value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        if not math.isfinite(value):
            return "–"
        whole = float(value).is_integer() and abs(value) < 1e12
        return f"{value:,.0f}" if whole else f"{value:,.4g}"
    return str(value)
