"""Report exports: one job row per requested Excel or PDF file, with what it was built from."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from core.jobs import RecoverableJob
from reports.choices import ExportStatus
from reports.choices import FailureType
from reports.choices import PaperSize
from reports.choices import ReportFormat


def export_upload_to(export: ReportExport, filename: str) -> str:
    """reports/<export id>/<file name>: one folder per export, so a rebuild replaces its own file."""
    return f"reports/{export.pk}/{filename}"


class ReportExport(RecoverableJob):
    """A requested report file: its status, the file once built, and the inputs it recorded."""

    scenario = models.ForeignKey("tco.Scenario", on_delete=models.CASCADE, related_name="report_exports")
    format = models.CharField(max_length=8, choices=ReportFormat.choices)
    paper_size = models.CharField(max_length=8, choices=PaperSize.choices, default=PaperSize.A4)
    status = models.CharField(max_length=8, choices=ExportStatus.choices, default=ExportStatus.PENDING)
    file = models.FileField(upload_to=export_upload_to, blank=True, max_length=300)
    size_bytes = models.PositiveBigIntegerField(null=True, blank=True)
    failure_type = models.CharField(max_length=8, choices=FailureType.choices, blank=True)
    error = models.TextField(
        blank=True, help_text="Why the export failed, in words the requester can act on."
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="report_exports",
    )
    # What the report was built from, so it can be traced and regenerated with the same figures.
    prices_as_of = models.DateField(help_text="Catalog prices in force on this date were used.")
    scenario_updated_at = models.DateTimeField(help_text="The scenario version: when it was last saved.")
    engine_version = models.CharField(max_length=32, blank=True)
    price_snapshot = models.JSONField(
        default=list, blank=True, help_text="The catalog price points the evaluation used."
    )
    key_figures = models.JSONField(
        default=dict,
        blank=True,
        help_text="Totals, NPVs and breakevens, to the cent, as the report shows them.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    build_seconds = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["scenario", "-created_at"])]
        constraints = [
            models.CheckConstraint(
                condition=Q(format__in=ReportFormat.values), name="report_export_format_known"
            ),
            models.CheckConstraint(
                condition=Q(paper_size__in=PaperSize.values), name="report_export_paper_known"
            ),
            models.CheckConstraint(
                condition=Q(status__in=ExportStatus.values), name="report_export_status_known"
            ),
            # Only a finished export offers a file, and a failed one always says why.
            models.CheckConstraint(
                condition=Q(status=ExportStatus.DONE) | Q(file=""), name="report_export_file_only_when_done"
            ),
            models.CheckConstraint(
                condition=~Q(status=ExportStatus.FAILED) | ~Q(failure_type=""),
                name="report_export_failure_classified",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_format_display()} of {self.scenario} ({self.get_status_display()})"

    @property
    def is_finished(self) -> bool:
        """Done or failed: the job will not change any more."""
        return self.status in {ExportStatus.DONE, ExportStatus.FAILED}
