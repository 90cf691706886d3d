"""Report exports in the admin: the list of past exports, and the scenario actions that request them."""

from __future__ import annotations

from django.contrib import admin
from django.contrib import messages
from django.db.models import QuerySet
from django.http import FileResponse
from django.http import Http404
from django.http import HttpRequest
from django.http import HttpResponse
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path
from django.urls import reverse
from django.utils.html import format_html

from costmodel.vocabulary import MISSING
from costmodel.vocabulary import money_in
from finops.exports.admin_actions import focus_csv_selected
from finops.exports.admin_actions import focus_parquet_selected
from finops.exports.admin_actions import opencost_selected
from finops.exports.admin_actions import plan_focus_csv_selected
from finops.exports.admin_actions import plan_focus_parquet_selected
from finops.exports.admin_actions import skypilot_selected
from reports.choices import ExportStatus
from reports.choices import PaperSize
from reports.choices import ReportFormat
from reports.models import ReportExport
from reports.responses import side_by_side_pdf_response
from reports.responses import side_by_side_workbook_response
from reports.services import report_export_regenerate
from reports.services import report_export_request
from reports.services import report_file_name
from tco.admin.plans import ProcurementPlanAdmin
from tco.admin.scenarios import ScenarioAdmin
from tco.charts.canvas import inline_svg
from tco.charts.side_by_side import side_by_side_figure
from tco.models import ProcurementPlan
from tco.models import Scenario
from tco.services.side_by_side import SideBySideError
from tco.services.side_by_side import side_by_side
from tco.services.side_by_side import side_by_side_rows
from teams.admin_mixins import TeamScopedAdminMixin
from teams.admin_mixins import TeamScopedInlineMixin
from teams.models import Role
from teams.selectors import for_teams
from teams.selectors import teams_of


def _download_link(export: ReportExport) -> str:
    if export.status != ExportStatus.DONE:
        return export.error or MISSING
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


class ScenarioWithReportsAdmin(ScenarioAdmin):
    """The scenario admin with what this app adds: its report exports (inline and actions) and
    the side-by-side comparison (page, PDF and workbook)."""

    inlines = [*ScenarioAdmin.inlines, ReportExportInline]
    actions = ["side_by_side_selected", "side_by_side_pdf_selected", *ScenarioAdmin.actions,
               export_excel, export_pdf, focus_csv_selected, focus_parquet_selected, opencost_selected,
               skypilot_selected]

    def get_urls(self):
        view = self.admin_site.admin_view
        return [path("side-by-side/workbook/", view(self.side_by_side_workbook_view),
                     name="tco_scenario_side_by_side_workbook"),
                *super().get_urls()]

    def side_by_side_workbook_view(self, request: HttpRequest) -> HttpResponse:
        """The side-by-side page's scenarios (``?ids=``, among the user's) as one Excel sheet."""
        try:
            ids = [int(part) for part in request.GET.get("ids", "").split(",") if part]
        except ValueError:
            raise Http404("Give comma-separated scenario ids.") from None
        visible = {s.pk: s for s in self.get_queryset(request).filter(pk__in=ids)}
        if any(pk not in visible for pk in ids):
            raise Http404("No such scenario in your teams.")
        try:
            return side_by_side_workbook_response(side_by_side([visible[pk] for pk in ids]))
        except SideBySideError as exc:
            self.message_user(request, exc.message, messages.ERROR)
            return HttpResponseRedirect(reverse("admin:tco_scenario_changelist"))

    def _side_by_side_columns(self, request, queryset) -> list | None:
        """The selected scenarios' columns, or None after telling the user why they cannot be."""
        try:
            return side_by_side(list(queryset.order_by("name", "version")))
        except SideBySideError as exc:
            self.message_user(request, exc.message, messages.ERROR)
            return None

    @admin.action(description="Show selected scenarios side by side", permissions=["view"])
    def side_by_side_selected(self, request, queryset):
        columns = self._side_by_side_columns(request, queryset)
        if columns is None:
            return None
        ids = ",".join(str(column.scenario_id) for column in columns)
        currency = columns[0].currency  # side by side refuses scenarios in two currencies
        with money_in(currency):
            chart = inline_svg(side_by_side_figure(columns))
        context = {**self.admin_site.each_context(request), "opts": self.model._meta,
                   "title": "Scenarios side by side", "columns": columns, "currency": currency,
                   "rows": side_by_side_rows(columns),
                   "workbook_url": f"{reverse('admin:tco_scenario_side_by_side_workbook')}?ids={ids}",
                   "chart_svg": chart}
        return TemplateResponse(request, "admin/tco/scenario/side_by_side.html", context)

    @admin.action(description="Side-by-side PDF of selected scenarios", permissions=["view"])
    def side_by_side_pdf_selected(self, request, queryset):
        columns = self._side_by_side_columns(request, queryset)
        if columns is None:
            return None
        return side_by_side_pdf_response(columns, author=str(request.user))


class PlanWithExportsAdmin(ProcurementPlanAdmin):
    """The plan admin with its FOCUS projection downloads."""

    actions = [*(ProcurementPlanAdmin.actions or ()), plan_focus_csv_selected, plan_focus_parquet_selected]


admin.site.unregister(Scenario)
admin.site.register(Scenario, ScenarioWithReportsAdmin)
admin.site.unregister(ProcurementPlan)
admin.site.register(ProcurementPlan, PlanWithExportsAdmin)
