"""Report exports: request one (202, built in the background), poll it, download its file."""

from __future__ import annotations

import django_filters
from django.http import FileResponse
from drf_spectacular.utils import OpenApiResponse
from drf_spectacular.utils import extend_schema
from rest_framework import mixins
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
from reports.selectors import report_exports_for
from reports.services import report_export_regenerate
from reports.services import report_export_request
from reports.services import report_file_name
from teams.models import Role
from teams.permissions import TeamRolePermission
from teams.permissions import require_role

CONTENT_TYPES = {ReportFormat.XLSX: XLSX_CONTENT_TYPE, ReportFormat.PDF: PDF_CONTENT_TYPE}


class ReportExportFilterSet(django_filters.FilterSet):
    """By scenario id as a plain number: an unknown id and another team's both give no rows."""

    scenario = django_filters.NumberFilter(field_name="scenario_id")

    class Meta:
        model = ReportExport
        fields = ["scenario", "format", "status"]


class ReportExportViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Exports of the scenarios of the user's teams, newest first; analysts request them."""

    serializer_class = ReportExportSerializer
    permission_classes = [TeamRolePermission]
    team_path = "scenario__team"
    filterset_class = ReportExportFilterSet
    ordering_fields = ["created_at", "finished_at"]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return ReportExport.objects.none()
        return report_exports_for(self.request.user).select_related("scenario", "requested_by")

    @extend_schema(request=ReportExportRequestSerializer, responses={202: ReportExportSerializer})
    def create(self, request):
        """Queue an Excel or PDF export of a scenario; poll the returned job until it is done."""
        data = ReportExportRequestSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        require_role(request.user, data.validated_data["scenario"].team_id, Role.ANALYST)
        export = report_export_request(requested_by=request.user, **data.validated_data)
        return self._accepted(export)

    @extend_schema(request=None, responses={202: ReportExportSerializer})
    @action(detail=True, methods=["post"])
    def regenerate(self, request, pk=None):
        """Export the same scenario again, in the same format, with the same price date."""
        return self._accepted(report_export_regenerate(export=self.get_object(), requested_by=request.user))

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

    def _accepted(self, export: ReportExport) -> Response:
        body = ReportExportSerializer(export, context=self.get_serializer_context()).data
        location = self.reverse_action("detail", args=[export.pk])
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": location})
