"""Report exports in the admin: the list of past exports, and the scenario actions that request them."""

from __future__ import annotations

from django.contrib import admin
from django.contrib import messages
from django.db.models import QuerySet
from django.http import FileResponse
from django.http import Http404
from django.http import HttpRequest
from django.urls import path
from django.urls import reverse
from django.utils.html import format_html

from reports.choices import ExportStatus
from reports.choices import PaperSize
from reports.choices import ReportFormat
from reports.models import ReportExport
from reports.services import report_export_regenerate
from reports.services import report_export_request
from reports.services import report_file_name
from teams.admin_mixins import TeamScopedAdminMixin
from teams.admin_mixins import TeamScopedInlineMixin
from teams.models import Role
from teams.selectors import for_teams
from teams.selectors import teams_of


def _download_link(export: ReportExport) -> str:
    if export.status != ExportStatus.DONE:
        return export.error or "—"
    url = reverse("admin:reports_reportexport_download", args=[export.pk])
    return format_html('<a href="{}">Download {}</a>', url, export.get_format_display())


@admin.register(ReportExport)
class ReportExportAdmin(TeamScopedAdminMixin, admin.ModelAdmin):
    """Past exports of the user's teams' scenarios: read-only rows with their files; they are
    requested from a scenario."""

    list_display = [
        "id",
        "scenario",
        "format",
        "paper_size",
        "status",
        "failure_type",
        "requested_by",
        "created_at",
        "finished_at",
        "build_seconds",
        "download",
    ]
    list_filter = ["status", "format", "failure_type"]
    search_fields = ["scenario__name"]
    date_hierarchy = "created_at"
    list_select_related = ["scenario", "requested_by"]
    actions = ["regenerate_selected"]
    team_path = "scenario__team"
    fields = ["id", "scenario", "format", "paper_size", "status", "file", "size_bytes", "failure_type",
              "error", "requested_by", "prices_as_of", "scenario_updated_at", "engine_version",
              "price_snapshot", "key_figures", "created_at", "attempts", "queued_at", "worker", "task_id",
              "started_at", "finished_at", "build_seconds", "download"]
    readonly_fields = fields

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("<int:pk>/download/", view(self.download_view), name="reports_reportexport_download"),
            *super().get_urls(),
        ]

    def download_view(self, request: HttpRequest, pk: int) -> FileResponse:
        export = self.get_object(request, str(pk))
        if export is None or export.status != ExportStatus.DONE:
            raise Http404("No finished export with that id.")
        return FileResponse(export.file.open("rb"), as_attachment=True, filename=report_file_name(export))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # exports are requested from a scenario, never typed in

    def has_change_permission(self, request: HttpRequest, obj: ReportExport | None = None) -> bool:
        return False

    @admin.display(description="File")
    def download(self, export: ReportExport) -> str:
        return _download_link(export)

    @admin.action(description="Export again (same scenario, format and price date)", permissions=["export"])
    def regenerate_selected(self, request: HttpRequest, queryset: QuerySet[ReportExport]) -> None:
        exports = for_teams(queryset, request.user, team_path=self.team_path, role=Role.ANALYST)
        for export in exports.select_related("scenario"):
            report_export_regenerate(export=export, requested_by=request.user)
        self.message_user(request, f"Queued {exports.count()} export(s).", messages.SUCCESS)

    def has_export_permission(self, request: HttpRequest) -> bool:
        """Exporting is an analyst's: they may in at least one of their teams."""
        return teams_of(request.user, role=Role.ANALYST).exists()


class ReportExportInline(TeamScopedInlineMixin, admin.TabularInline):
    """The scenario's past exports, newest first, with their files."""

    model = ReportExport
    extra = 0
    max_num = 0
    can_delete = False
    fields = ["created_at", "format", "paper_size", "status", "requested_by", "download"]
    readonly_fields = fields
    ordering = ["-created_at"]
    verbose_name_plural = "Exports"

    @admin.display(description="File")
    def download(self, export: ReportExport) -> str:
        return _download_link(export)


def _export_selected(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet, format: str
) -> None:
    """Queue one export of each selected scenario the user is an analyst for, and point to the
    list of past exports."""
    queryset = for_teams(queryset, request.user, role=Role.ANALYST)
    for scenario in queryset:
        report_export_request(
            scenario=scenario, format=format, paper_size=PaperSize.A4, requested_by=request.user
        )
    label = ReportFormat(format).label
    url = reverse("admin:reports_reportexport_changelist")
    modeladmin.message_user(
        request,
        format_html(
            'Queued {} export(s) as {}; see <a href="{}">past exports</a>.', queryset.count(), label, url
        ),
        messages.SUCCESS,
    )


@admin.action(description="Export Excel", permissions=["change"])
def export_excel(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet) -> None:
    """Scenario action: queue an Excel workbook of each selected scenario."""
    _export_selected(modeladmin, request, queryset, ReportFormat.XLSX)


@admin.action(description="Export PDF", permissions=["change"])
def export_pdf(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet) -> None:
    """Scenario action: queue a PDF report of each selected scenario."""
    _export_selected(modeladmin, request, queryset, ReportFormat.PDF)
