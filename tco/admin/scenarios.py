"""Scenario admin: inputs grouped as a person thinks of them, the result on the scenario's page."""
from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError
from django.db import models
from django.http import Http404
from django.http import HttpRequest
from django.http import HttpResponse
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path
from django.urls import reverse
from simple_history.admin import SimpleHistoryAdmin

from costmodel import MAX_RENT_OPTIONS
from costmodel.vocabulary import MISSING
from costmodel.vocabulary import money_in
from tco.admin.approval import what_is_signed
from tco.admin.labels import OptionalJSONField
from tco.admin.labels import RentOptionForm
from tco.admin.labels import VocabularyLabelsForm
from tco.admin.labels import change_row
from tco.admin.labels import typed_currency
from tco.admin.result import SUMMARY_HEADINGS
from tco.admin.result import resolved_blanks
from tco.admin.result import scenario_result
from tco.admin.sizing_form import ServingSizingFields
from tco.admin.sizing_form import initial_from
from tco.admin.sizing_form import spec_from
from tco.inputs import SCENARIO_INPUTS
from tco.models import ApiOption
from tco.models import RentOption
from tco.models import Scenario
from tco.models import StaleRevision
from tco.selectors import scenarios_for
from tco.services.engine_inputs import ScenarioInputError
from tco.services.engine_inputs import reporting_currency
from tco.services.history import history_diff
from tco.services.history import scenario_records
from tco.services.scenarios import ApprovalRefused
from tco.services.scenarios import ScenarioFrozen
from tco.services.scenarios import finance_defaults
from tco.services.scenarios import revision_check
from tco.services.scenarios import scenario_approve
from tco.services.scenarios import scenario_clone
from tco.services.scenarios import scenario_next_version
from tco.services.sizing_spec import validated_sizing_spec
from teams.admin_mixins import ListedRowsFilter
from teams.admin_mixins import NamedPickersMixin
from teams.admin_mixins import TeamScopedAdminMixin
from teams.admin_mixins import TeamScopedInlineMixin
from teams.models import Role
from teams.selectors import for_teams
from teams.selectors import has_role
from teams.selectors import teams_of


class RentOptionInline(NamedPickersMixin, TeamScopedInlineMixin, admin.StackedInline):
    model = RentOption
    form = RentOptionForm
    extra = 0
    max_num = MAX_RENT_OPTIONS
    autocomplete_fields = ["offering"]
    fieldsets = [
        (None, {"fields": [("name", "offering", "cheapest_region"), ("price_usd_per_instance_hour",
                                                   "commitment_months", "upfront_usd"),
                           ("billing_basis", "equivalence_factor", "equivalence_from_throughput")]}),
        ("Spot, data and price trend", {
            "classes": ["collapse"],
            "fields": [("spot_interruption_overhead", "spot_interruptions_per_hour"),
                       ("price_change_per_year", "grid_kg_co2e_per_kwh"),
                       ("egress_tb_per_month", "egress_usd_per_gb"),
                       ("storage_tb", "storage_usd_per_gb_month")]}),
    ]

    def get_queryset(self, request):
        # Each option's form labels money in its scenario's currency, and its heading names the
        # offering: joined here rather than read once per option.
        return super().get_queryset(request).select_related("scenario__team", "offering__accelerator")


class ApiOptionForm(VocabularyLabelsForm):
    """Per-token prices as typed (0.15, not 0.150000), labelled by their own field names."""

    class Meta:
        model = ApiOption
        fields = "__all__"

    @staticmethod
    def path_of(field: str) -> None:
        return None  # no engine vocabulary: the model's labels carry the units


class ApiOptionInline(TeamScopedInlineMixin, admin.StackedInline):
    model = ApiOption
    form = ApiOptionForm
    extra = 0
    verbose_name = "per-token API option"
    fieldsets = [(None, {"fields": [
        ("name", "price"),
        ("usd_per_million_input", "usd_per_million_cached_input", "usd_per_million_output"),
        ("price_change_per_year", "minimum_usd_per_month", "rate_limit_tokens_per_month")]})]


class ScenarioAdminForm(VocabularyLabelsForm, ServingSizingFields):
    """The scenario form; its sizing JSON is checked as the API checks it, and it carries the
    revision it was opened on, so saving over someone else's newer save is refused."""

    edited_revision = forms.IntegerField(widget=forms.HiddenInput, required=False)

    class Meta:
        model = Scenario
        # The fields its checks read; ScenarioAdmin's fieldsets add the rest.
        fields = ["accelerator", "sizing"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "sizing" in self.fields:  # a viewer's read-only page has no input fields
            self.fields["sizing"].label = "Sizing spec as JSON (a custom model or a training run)"
        shown = initial_from(self.instance.sizing)
        self.initial.update(shown)
        if shown:  # the fields show it; the JSON box is for what they cannot say
            self.initial["sizing"] = None
        if self.instance.pk is not None:
            self.fields["edited_revision"].initial = self.instance.revision
            for name, used in resolved_blanks(self.instance).items():
                if name in self.fields:
                    self.fields[name].help_text = f"{self.fields[name].help_text} Used now: {used}".strip()

    def clean(self):
        cleaned = super().clean()
        from_fields = spec_from(cleaned, self.instance.sizing)
        if from_fields is not None:
            if cleaned.get("sizing") is not None:
                self.add_error("sizing", "give the serving sizing in the fields above or as "
                                         "JSON here, not both")
                return cleaned
            cleaned["sizing"] = from_fields
        if cleaned.get("sizing") is not None:
            try:
                cleaned["sizing"] = validated_sizing_spec(cleaned["sizing"],
                                                          cleaned.get("accelerator"))
            except ValidationError as exc:
                self.add_error("sizing", exc)
        if self.instance.pk is not None:
            self._check_revision(cleaned.get("edited_revision"))
        return cleaned

    def _check_revision(self, sent: int | None) -> None:
        # Locked until the admin's transaction ends, so the save that follows cannot lose a race.
        try:
            self.instance.revision = revision_check(self.instance.pk, sent)
        except StaleRevision as exc:
            raise ValidationError(
                f"Someone saved this scenario since you opened it (you edited revision {sent}; it "
                f"is now at revision {exc.current}). Reload the page and apply your change again.",
                code="stale_revision") from exc



# The fieldset a scenario input no row below places goes to, by its engine section.
SECTION_FIELDSETS = {"workload": "Workload", "buy": "Buy: hardware", "finance": "Finance",
                     "tax": "Tax and ways to pay"}


Fieldsets = list[tuple[str | None, dict[str, Any]]]


def with_every_input(fieldsets: Fieldsets) -> Fieldsets:
    """``fieldsets`` with each scenario input they do not place (a newly declared one) appended
    to its section's fieldset, so a new input is on the form without an edit here."""
    placed = {name for _, options in fieldsets for row in options["fields"]
              for name in (row if isinstance(row, tuple) else (row,))}
    for field, engine_path in SCENARIO_INPUTS.items():
        title = SECTION_FIELDSETS.get(engine_path.split(".")[0])
        if field in placed or title is None:
            continue
        options = next(options for name, options in fieldsets if name == title)
        options["fields"] = [*options["fields"], field]
    return fieldsets

@admin.register(Scenario)
class ScenarioAdmin(NamedPickersMixin, TeamScopedAdminMixin, SimpleHistoryAdmin):
    """Scenarios of the user's teams. An approved one is frozen: saving it makes its next version.

    Its history lists every save (who, when, what changed); "Compare versions" shows the changed
    inputs between any two points of it and how the result moved.
    """

    form = ScenarioAdminForm
    formfield_overrides = {models.JSONField: {"form_class": OptionalJSONField}}
    list_display = ["name", "winner", "npv_saving", "breakeven", "status", "price_age", "version",
                    "team", "accelerators", "updated_at"]
    list_select_related = ["team"]
    list_filter = [("team", ListedRowsFilter), "status", "accelerator__vendor", "facility", "horizon_months"]
    search_fields = ["name", "description"]
    autocomplete_fields = ["accelerator", "system", "facility"]
    readonly_fields = ["owner", "created_at", "updated_at", "status", "version",
                       "previous_version", "approved_by", "approved_at", "revision"]
    # The reports app adds its exports and the side-by-side comparison (reports/admin.py).
    inlines = [RentOptionInline, ApiOptionInline]
    actions = ["clone_selected", "approve_selected"]
    fieldsets = with_every_input([
        (None, {"fields": ["name", "description", ("prices_as_of", "price_range_point"), "team",
                           ("owner", "created_at", "updated_at"),
                           ("status", "version", "previous_version"),
                           ("approved_by", "approved_at", "revision"), "edited_revision"]}),
        ("Workload", {"fields": [("accelerator", "accelerators"),
                                 ("utilisation", "hours_per_month", "precision"),
                                 "tokens_per_s_per_accelerator"]}),
        ("Serving sizing", {"fields": [
            ("sizing_model", "sizing_precision"),
            ("sizing_tokens_per_s", "sizing_input_tokens", "sizing_output_tokens"),
            ("sizing_time_to_first_token_s", "sizing_tokens_per_s_per_user",
             "sizing_cached_input_share"), "sizing"]}),
        ("Buy: hardware", {"fields": [("system", "system_price_usd"),
                                      ("network_usd_per_system", "network_share_of_compute"),
                                      ("storage_usd", "racks_install_usd_per_rack", "spares_share"),
                                      ("power_cap_share", "power_cap_throughput_loss")]}),
        ("Buy: operations", {"fields": [("support_share_per_year", "licence_usd_per_accelerator_year"),
                                        ("staff_fte_per_system", "staff_usd_per_fte_year")]}),
        ("Facility (empty = the profile's figure)", {"fields": [
            ("facility", "site"), ("electricity_usd_per_kwh", "electricity_escalation_per_year", "pue"),
            ("colocation_usd_per_kw_month", "buildout_capex_usd_per_kw",
             "buildout_opex_usd_per_kw_month"),
            ("rack_power_limit_kw", "rack_units_per_rack")]}),
        ("Currency and calendar", {"fields": [("currency", "reporting_currency", "rates_as_of"),
                                              "starts_on"]}),
        ("Finance", {"fields": [("horizon_months", "discount_rate_per_year"),
                                ("depreciation_months", "residual_value_share"),
                                ("financed_share", "loan_rate_per_year", "loan_term_months")]}),
        ("Tax and ways to pay", {
            "classes": ["collapse"],
            "fields": [("tax_rate", "tax_depreciation"),
                       ("tax_depreciation_months", "declining_balance_factor"), "verdict_basis",
                       ("finance_lease_usd_per_month", "finance_lease_term_months",
                        "finance_lease_buyout_usd"),
                       ("operating_lease_usd_per_month", "operating_lease_term_months")]}),
        ("Resale value and obsolescence", {
            "classes": ["collapse"],
            "fields": ["residual_curve", "residual_decline_per_year",
                       ("next_generation_launch_month", "next_generation_value_drop")]}),
        ("Goodput: failures and checkpoints (empty = stated defaults)", {
            "classes": ["collapse"],
            "fields": [("failures_per_accelerator_hour", "accelerators_per_job"),
                       ("checkpoint_interval_h", "checkpoint_cost_min", "restart_h")]}),
        ("Carbon (empty = stated defaults)", {
            "classes": ["collapse"],
            "fields": [("grid_kg_co2e_per_kwh", "embodied_kg_co2e_per_system"),
                       ("cloud_grid_kg_co2e_per_kwh", "cloud_pue"), "carbon_price_usd_per_tonne"]}),
        ("Token mix (for per-token API options)", {
            "classes": ["collapse"],
            "fields": [("token_input_share", "token_cached_input_share", "token_output_share")]}),
    ])
    change_form_template = "admin/tco/scenario/change_form.html"

    def get_fieldsets(self, request: HttpRequest, obj: Scenario | None = None):
        """On a saved scenario the result leads and the inputs are folded away below it."""
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None:
            return fieldsets
        return [(name or "Scenario", {**options, "classes": [*options.get("classes", ()), "collapse"]})
                for name, options in fieldsets]

    def _summary(self, obj: Scenario) -> dict:
        return scenario_result(obj)

    @admin.display(description=SUMMARY_HEADINGS["winner"])
    def winner(self, obj: Scenario) -> str:
        return self._summary(obj).get("winner", MISSING)

    @admin.display(description=SUMMARY_HEADINGS["npv_saving"])
    def npv_saving(self, obj: Scenario) -> str:
        return self._summary(obj).get("npv_saving", MISSING)

    @admin.display(description=SUMMARY_HEADINGS["breakeven"])
    def breakeven(self, obj: Scenario) -> str:
        return self._summary(obj).get("breakeven", MISSING)

    @admin.display(description="Price age")
    def price_age(self, obj: Scenario) -> str:
        days = self._summary(obj).get("price_age_days")
        return MISSING if days is None else f"{days:,}\u00a0days"  # one line: "1,057 days"

    def get_readonly_fields(self, request: HttpRequest, obj: Scenario | None = None):
        fields = super().get_readonly_fields(request, obj)
        return [*fields, "team"] if obj is not None else fields  # a scenario stays in its team

    def formfield_for_foreignkey(self, db_field, request: HttpRequest, **kwargs):
        if db_field.name == "team":
            teams = teams_of(request.user, role=Role.ANALYST)
            kwargs["queryset"] = teams
            if teams.count() == 1:
                kwargs["initial"] = teams.get()
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        """A new scenario starts from the finance defaults of the user's team (their first one
        where they are an analyst), so no cost line is zero unless someone types zero."""
        team = teams_of(request.user, role=Role.ANALYST).first()
        return {**finance_defaults(team), **super().get_changeform_initial_data(request)}

    def has_delete_permission(self, request: HttpRequest, obj: Scenario | None = None) -> bool:
        if obj is not None and obj.is_approved:
            return False  # an approved scenario is a record
        return super().has_delete_permission(request, obj)

    def save_model(self, request, obj, form, change):
        if change and obj.is_approved:
            return  # kept as it is; save_related turns the edits into the next version
        if obj.owner_id is None:
            obj.owner = request.user
        super().save_model(request, obj, form, change)

    def save_related(self, request, form, formsets, change):
        if not (change and form.instance.is_approved):
            super().save_related(request, form, formsets, change)
            return
        options = [inline_form.instance for formset in formsets if formset.model is RentOption
                   for inline_form in formset.forms
                   if inline_form not in formset.deleted_forms
                   and (inline_form.instance.pk is not None or inline_form.has_changed())]
        try:
            request.scenario_next_version = scenario_next_version(
                approved=form.instance, edited=form.instance, rent_options=options,
                created_by=request.user)
        except ScenarioFrozen as exc:
            request.scenario_frozen = str(exc)

    def construct_change_message(self, request, form, formsets, add=False):
        created = getattr(request, "scenario_next_version", None)
        if created is not None:  # the approved scenario's inlines were not saved; say what was
            return f"Approved, kept as it was; the edits are version {created.version} (#{created.pk})."
        if getattr(request, "scenario_frozen", None):
            return "Approved, kept as it was; the edits were refused."
        return super().construct_change_message(request, form, formsets, add)

    def response_change(self, request, obj):
        if getattr(request, "scenario_frozen", None):
            self.message_user(request, request.scenario_frozen, messages.ERROR)
            return HttpResponseRedirect(reverse("admin:tco_scenario_change", args=[obj.pk]))
        created = getattr(request, "scenario_next_version", None)
        if created is None:
            return super().response_change(request, obj)
        self.message_user(request, f"“{obj}” is approved and stays as it was; your changes are "
                                   f"its version {created.version}, a draft.", messages.SUCCESS)
        return HttpResponseRedirect(reverse("admin:tco_scenario_change", args=[created.pk]))

    def get_urls(self):
        view = self.admin_site.admin_view
        return [path("<int:pk>/clone/", view(self.clone_view), name="tco_scenario_clone"),
                path("<int:pk>/approve/", view(self.approve_view), name="tco_scenario_approve"),
                path("<int:pk>/compare/", view(self.compare_view), name="tco_scenario_compare"),
                *super().get_urls()]

    def _scenario(self, request: HttpRequest, pk: int, role: Role) -> Scenario:
        """The scenario if the user's teams have it (else 404) and the user has ``role`` in it."""
        scenario = self.get_object(request, str(pk))
        if scenario is None:
            raise Http404("No such scenario in your teams.")
        if not has_role(request.user, scenario.team_id, role):
            raise PermissionDenied
        return scenario

    def clone_view(self, request, pk):
        copy = scenario_clone(scenario=self._scenario(request, pk, Role.ANALYST), owner=request.user)
        self.message_user(request, f"Cloned into “{copy.name}”.", messages.SUCCESS)
        return HttpResponseRedirect(reverse("admin:tco_scenario_change", args=[copy.pk]))

    def approve_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        """What approving signs, and a confirmation; the confirmed POST approves."""
        scenario = self._scenario(request, pk, Role.APPROVER)
        back = reverse("admin:tco_scenario_change", args=[pk])
        if request.method == "POST" and request.POST.get("confirm") == "yes":
            self._approve(request, [scenario])
            return HttpResponseRedirect(back)
        return self._approve_confirmation(request, [scenario], action_url=request.path,
                                          cancel_url=back)

    def _approve_confirmation(self, request: HttpRequest, scenarios: list[Scenario], *,
                              action_url: str, cancel_url: str,
                              bulk_action: str = "") -> TemplateResponse:
        items = [what_is_signed(scenario, request.user) for scenario in scenarios]
        context = {**self.admin_site.each_context(request), "opts": self.model._meta,
                   "title": "Approve: what you sign", "items": items,
                   "signable": sum(not item["refusal"] for item in items),
                   "selected": [scenario.pk for scenario in scenarios], "bulk_action": bulk_action,
                   "action_url": action_url, "cancel_url": cancel_url}
        return TemplateResponse(request, "admin/tco/scenario/approve_confirm.html", context)

    def _approve(self, request: HttpRequest, scenarios: list[Scenario]) -> None:
        """Approve each scenario the user may, and say which were and why the others were not."""
        for scenario in scenarios:
            signed = what_is_signed(scenario, request.user)
            ticked = set(request.POST.getlist(f"ack-{scenario.pk}"))
            acknowledged = [warning.message for index, warning in enumerate(signed.get("warnings", ()))
                            if str(index) in ticked]
            try:
                scenario_approve(scenario=scenario, approved_by=request.user,
                                 comment=request.POST.get(f"comment-{scenario.pk}", "").strip(),
                                 acknowledged=acknowledged)
            except (ScenarioFrozen, ApprovalRefused, ScenarioInputError) as exc:
                self.message_user(request, f"“{scenario}” was not approved: {exc}", messages.WARNING)
            else:
                self.message_user(request, f"Approved “{scenario}”: its prices are pinned, and "
                                           "editing it now makes a new version.", messages.SUCCESS)

    def compare_view(self, request: HttpRequest, pk: int) -> TemplateResponse:
        """Two points of the scenario's history (or of its earlier versions): the inputs that
        changed, old -> new, and how buy-vs-rent moved against each rent option."""
        scenario = self._scenario(request, pk, Role.VIEWER)
        records = list(scenario_records(scenario))
        context = {**self.admin_site.each_context(request), "opts": self.model._meta,
                   "original": scenario, "title": f"Compare versions of {scenario}",
                   "records": records}
        if records:
            # Default: the latest save against the one before it.
            new = _record(records, request.GET.get("new")) or records[0]
            old = _record(records, request.GET.get("old")) or records[min(1, len(records) - 1)]
            with money_in(reporting_currency(scenario)):  # the figures, as evaluated
                diff = history_diff(old, new)
            with money_in(typed_currency(scenario)):  # the inputs, as typed
                changes = [change_row(c.field, c.old, c.new) for c in diff.changes]
            context.update(old=old, new=new, diff=diff, changes=changes)
        return TemplateResponse(request, "admin/tco/scenario/compare.html", context)

    @admin.action(description="Clone selected scenarios", permissions=["change"])
    def clone_selected(self, request, queryset):
        writable = for_teams(queryset, request.user, role=Role.ANALYST)
        for scenario in writable:
            scenario_clone(scenario=scenario, owner=request.user)
        self.message_user(request, f"Cloned {writable.count()} scenario(s).", messages.SUCCESS)

    def has_approve_permission(self, request: HttpRequest) -> bool:
        """Approving is an approver's: they are one in at least one of their teams."""
        return teams_of(request.user, role=Role.APPROVER).exists()

    @admin.action(description="Approve selected scenarios", permissions=["approve"])
    def approve_selected(self, request, queryset):
        """First what is signed for each, then (confirmed) the approvals."""
        scenarios = list(queryset.order_by("name", "version"))
        if request.POST.get("confirm") == "yes":
            self._approve(request, list(for_teams(queryset, request.user, role=Role.APPROVER)
                                        .order_by("name", "version")))
            return None
        return self._approve_confirmation(request, scenarios, action_url=request.get_full_path(),
                                          cancel_url=request.get_full_path(),
                                          bulk_action="approve_selected")

    def get_history_queryset(self, request, history_manager, pk_name, object_id):
        # History of the user's teams' scenarios only: another team's is not found (404).
        return for_teams(super().get_history_queryset(request, history_manager, pk_name, object_id),
                         request.user)

    def history_form_view(self, request, object_id, version_id, extra_context=None):
        if request.method != "GET":
            raise PermissionDenied("History is read-only; edit the scenario itself.")
        if not scenarios_for(request.user).filter(pk=object_id).exists():
            raise Http404("No such scenario in your teams.")
        return super().history_form_view(request, object_id, version_id, extra_context)

    def revert_disabled(self, request, obj=None) -> bool:
        return True  # history is a record; a past state is brought back by editing

    def change_view(self, request, object_id, form_url="", extra_context=None):
        scenario = self.get_object(request, object_id)
        shown = scenario_result(scenario) if scenario is not None else {}
        extra_context = {**(extra_context or {}), **shown,
                         "may_approve": scenario is not None and not scenario.is_approved
                         and has_role(request.user, scenario.team_id, Role.APPROVER)}
        if scenario is not None:  # its team cannot change: "" names it for the page's labels
            extra_context["team_currencies"] = {"": scenario.team.reporting_currency}
        return super().change_view(request, object_id, form_url, extra_context)

    def add_view(self, request, form_url="", extra_context=None):
        # Each team the form offers, with the currency its figures are reported in.
        currencies = dict(teams_of(request.user, role=Role.ANALYST).values_list("pk", "reporting_currency"))
        extra_context = {**(extra_context or {}),
                         "team_currencies": {str(pk): code for pk, code in currencies.items()}}
        return super().add_view(request, form_url, extra_context)


def _record(records: list, history_id: str | None):
    """The history row with that id among ``records``, or None."""
    return next((r for r in records if str(r.history_id) == history_id), None)
