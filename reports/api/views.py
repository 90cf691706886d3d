"""Report exports: request one (202, built in the background), poll it, download its file."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from reports.api.serializers import ReportExportRequestSerializer
from reports.api.serializers import ReportExportSerializer
from reports.builders.excel import XLSX_CONTENT_TYPE
from reports.builders.pdf import PDF_CONTENT_TYPE
from reports.choices import ExportStatus
from reports.choices import ReportFormat
from reports.models import ReportExport
from reports.responses import side_by_side_pdf_response
from reports.responses import side_by_side_workbook_response
from reports.selectors import report_exports_for
from reports.services import report_export_regenerate
from reports.services import report_export_request
from reports.services import report_file_name
from tco.api.scenario_jobs import ScenarioFilterSet
from tco.api.scenario_jobs import ScenarioJobViewSet
from tco.api.side_by_side import SIDE_BY_SIDE_IDS
from tco.api.side_by_side import side_by_side_columns
from tco.models import Scenario
from tco.selectors import scenarios_for
from teams.permissions import TeamRolePermission
from teams.selectors import User

CONTENT_TYPES = {ReportFormat.XLSX: XLSX_CONTENT_TYPE, ReportFormat.PDF: PDF_CONTENT_TYPE}


class ReportExportFilterSet(ScenarioFilterSet):
    class Meta:
        model = ReportExport
        fields = ["scenario", "format", "status"]


class ReportExportViewSet(ScenarioJobViewSet):
    """Exports of the scenarios of the user's teams, newest first; analysts request them."""

    serializer_class = ReportExportSerializer
    filterset_class = ReportExportFilterSet
    ordering_fields = ["created_at", "finished_at"]

    def jobs_for(self, user: User) -> QuerySet[ReportExport]:
        return report_exports_for(user).select_related("scenario", "requested_by")

    @extend_schema(request=ReportExportRequestSerializer, responses={202: ReportExportSerializer})
    def create(self, request):
        """Queue an Excel or PDF export of a scenario; poll the returned job until it is done."""
        data = self.start_data(ReportExportRequestSerializer)
        return self.accepted(report_export_request(requested_by=request.user, **data))

    @extend_schema(request=None, responses={202: ReportExportSerializer})
    @action(detail=True, methods=["post"])
    def regenerate(self, request, pk=None):
        """Export the same scenario again, in the same format, with the same price date."""
        return self.accepted(report_export_regenerate(export=self.get_object(), requested_by=request.user))

    @extend_schema(
        responses={
            (200, "application/octet-stream"): OpenApiResponse(description="The file"),
            409: OpenApiResponse(description="Not done (yet): pending, running or failed"),
        }
    )
    @action(detail=True, methods=["get"])
    def download(self, request, pk=None):
        """The export's file, once it is done."""
        export = self.get_object()
        if export.status != ExportStatus.DONE:
            detail = export.error or f"The export is {export.get_status_display().lower()}; no file yet."
            return Response({"status": export.status, "detail": detail}, status=status.HTTP_409_CONFLICT)
        return FileResponse(
            export.file.open("rb"),
            as_attachment=True,
            filename=report_file_name(export),
            content_type=CONTENT_TYPES[ReportFormat(export.format)],
        )


class SideBySideDownloadViewSet(viewsets.GenericViewSet):
    """The side-by-side comparison of scenarios (``/scenarios/side-by-side/``) as downloads."""

    permission_classes = [TeamRolePermission]
    team_path = "team"

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return Scenario.objects.none()
        return scenarios_for(self.request.user)

    @extend_schema(parameters=[SIDE_BY_SIDE_IDS],
                   responses={(200, PDF_CONTENT_TYPE): OpenApiTypes.BINARY})
    @action(detail=False, methods=["get"])
    def pdf(self, request):
        """The side-by-side view as a PDF: the key-figures table and the cumulative-cost chart."""
        return side_by_side_pdf_response(side_by_side_columns(request, self.get_queryset()),
                                         author=str(request.user))

    @extend_schema(parameters=[SIDE_BY_SIDE_IDS],
                   responses={(200, XLSX_CONTENT_TYPE): OpenApiTypes.BINARY})
    @action(detail=False, methods=["get"])
    def workbook(self, request):
        """The same comparison as one Excel sheet: key figures per scenario, cumulative costs
        by month and their chart."""
        return side_by_side_workbook_response(side_by_side_columns(request, self.get_queryset()))
