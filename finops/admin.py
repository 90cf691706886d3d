"""Actual costs in the admin: import a FOCUS file (a job: its page shows the progress, or each bad
row and column of a refused file), name what a team's costs are compared with, and read the
variance on the target's page."""
from __future__ import annotations

from django import forms
from django.contrib import admin
from django.contrib import messages
from django.http import HttpResponse
from django.http import HttpResponseRedirect
from django.urls import path
from django.urls import reverse

from core.file_import_admin import FileImportAdminMixin
from core.file_imports import FileRefused
from finops.cost_imports import cost_import_request
from finops.focus_import import focus_file_screen
from finops.models import CostImport
from finops.models import CostTarget
from finops.models import VarianceAlert
from finops.pdf import variance_context
from finops.pdf import variance_pdf
from finops.services import variance_alerts_write
from finops.variance import variance
from teams.admin_mixins import TeamScopedAdminMixin
from teams.models import Role
from teams.selectors import teams_of


class CostImportForm(forms.ModelForm):
    file = forms.FileField(help_text="A FOCUS cost and usage file (CSV or Parquet), in any currency: each "
                                     "row is converted into the team's reporting currency.")

    class Meta:
        model = CostImport
        fields = ["team"]

    def clean_file(self):
        upload = self.cleaned_data["file"]
        self.content = upload.read()
        try:
            focus_file_screen(upload.name, self.content)
        except FileRefused as exc:
            raise forms.ValidationError([error.reason for error in exc.errors]) from exc
        return upload


@admin.register(CostImport)
class CostImportAdmin(FileImportAdminMixin, TeamScopedAdminMixin, admin.ModelAdmin):
    """FOCUS cost files being imported or imported: the upload queues the import and shows its
    page, with its progress, and each bad row of a refused file."""

    list_display = ["id", "team", "file_name", "status", "progress", "billed_usd", "currency", "imported_by",
                    "created_at"]
    list_filter = ["status"]
    readonly_fields = ["file_name", "status", "progress", "error", "bad_rows", "billed_usd", "currency",
                       "imported_by", "attempts", "created_at", "started_at", "finished_at"]

    def get_queryset(self, request):
        return super().get_queryset(request).defer("content")

    def get_form(self, request, obj=None, **kwargs):
        if obj is not None:  # every field read only
            return super().get_form(request, obj, **kwargs)
        form = super().get_form(request, obj, form=CostImportForm, **kwargs)
        form.base_fields["team"].queryset = teams_of(request.user, role=Role.ANALYST)
        return form

    def get_fields(self, request, obj=None):
        return ["team", "file"] if obj is None else ["team", *self.readonly_fields]

    def get_readonly_fields(self, request, obj=None):
        return [] if obj is None else ["team", *self.readonly_fields]

    def save_model(self, request, obj, form, change):
        if not change:  # the job is queued once the request's transaction commits
            upload = form.cleaned_data["file"]
            job = cost_import_request(team=form.cleaned_data["team"], file_name=upload.name,
                                      content=form.content, user=request.user)
            obj.pk = job.pk
            obj.refresh_from_db()

    def response_add(self, request, obj, post_url_continue=None):
        self.message_user(request, f"{obj.file_name} is being imported; this page shows its progress.",
                          messages.SUCCESS)
        return HttpResponseRedirect(reverse("admin:finops_costimport_change", args=[obj.pk]))

    def has_change_permission(self, request, obj=None) -> bool:
        return False if obj is not None else super().has_change_permission(request, obj)


class VarianceAlertInline(admin.TabularInline):
    model = VarianceAlert
    extra = 0
    max_num = 0
    can_delete = False
    fields = ["month", "projected_usd", "actual_usd", "message", "created_at"]
    readonly_fields = fields


@admin.register(CostTarget)
class CostTargetAdmin(TeamScopedAdminMixin, admin.ModelAdmin):
    list_display = ["id", "team", "scenario", "option", "plan", "starts_on", "alert_share"]
    fields = ["team", "scenario", "option", "plan", "starts_on", "alert_share"]
    raw_id_fields = ["scenario", "plan"]
    inlines = [VarianceAlertInline]
    change_form_template = "admin/finops/costtarget/change_form.html"

    def get_urls(self):
        view = self.admin_site.admin_view
        return [path("<int:pk>/variance.pdf", view(self.pdf_view), name="finops_costtarget_pdf"),
                *super().get_urls()]

    def pdf_view(self, request, pk: int) -> HttpResponse:
        target = self.get_object(request, str(pk))
        if target is None:
            return HttpResponse(status=404)
        response = HttpResponse(variance_pdf(variance(target)), content_type="application/pdf")
        response["Content-Disposition"] = f'attachment; filename="variance-{target.pk}.pdf"'
        return response

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        variance_alerts_write(obj)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        extra = dict(extra_context or {})
        target = self.get_object(request, object_id)
        if target is not None:
            try:
                extra["variance_tables"] = variance_context(variance(target))
            except ValueError as exc:
                extra["variance_error"] = str(exc)
            extra["pdf_url"] = reverse("admin:finops_costtarget_pdf", args=[target.pk])
            extra["json_url"] = reverse("cost-target-variance", args=[target.pk])
        return super().change_view(request, object_id, form_url, extra)
