"""Report export serializers: what a client sends to request one, and the job row it polls."""

from __future__ import annotations

from rest_framework import serializers
from rest_framework.reverse import reverse

from reports.choices import ExportStatus
from reports.choices import PaperSize
from reports.choices import ReportFormat
from reports.models import ReportExport
from tco.models import Scenario
from tco.selectors import scenarios_for


class TeamScenarioField(serializers.PrimaryKeyRelatedField):
    """A scenario of the requesting user's teams (others do not exist for them, as in the
    scenarios API)."""

    def get_queryset(self):
        request = self.context.get("request")  # none when the schema is generated
        return scenarios_for(request.user) if request else Scenario.objects.none()


class ReportExportRequestSerializer(serializers.Serializer):
    """Which scenario to export, in which format and on which paper."""

    scenario = TeamScenarioField(queryset=Scenario.objects.all())
    format = serializers.ChoiceField(choices=ReportFormat.choices)
    paper_size = serializers.ChoiceField(choices=PaperSize.choices, default=PaperSize.A4)


class ReportExportSerializer(serializers.ModelSerializer):
    """An export job: its status, why it failed, what it was built from, and its file once done."""

    scenario_name = serializers.CharField(source="scenario.name", read_only=True)
    requested_by = serializers.StringRelatedField(read_only=True)
    download_url = serializers.SerializerMethodField()

    class Meta:
        model = ReportExport
        fields = [
            "id",
            "scenario",
            "scenario_name",
            "format",
            "paper_size",
            "status",
            "failure_type",
            "error",
            "download_url",
            "size_bytes",
            "engine_version",
            "prices_as_of",
            "scenario_updated_at",
            "price_snapshot",
            "key_figures",
            "requested_by",
            "created_at",
            "started_at",
            "finished_at",
            "build_seconds",
        ]
        read_only_fields = fields

    def get_download_url(self, export: ReportExport) -> str | None:
        """Where to fetch the file; null until the export is done."""
        if export.status != ExportStatus.DONE:
            return None
        return reverse("report-export-download", args=[export.pk], request=self.context.get("request"))
