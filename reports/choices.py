"""Choices of report exports: file format, paper size, job status and failure type."""

from __future__ import annotations

from django.db import models


class ReportFormat(models.TextChoices):
    """File format of an export."""

    XLSX = "xlsx", "Excel workbook"
    PDF = "pdf", "PDF report"


class PaperSize(models.TextChoices):
    """Paper the PDF is laid out on and the workbook is set up to print on."""

    A4 = "a4", "A4"
    LETTER = "letter", "Letter"


class ExportStatus(models.TextChoices):
    """Where an export job is; clients poll it."""

    PENDING = "pending", "Pending"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class FailureType(models.TextChoices):
    """Why an export failed: the scenario (user), the service (system) or its time limit."""

    USER = "user", "Scenario cannot be evaluated"
    SYSTEM = "system", "Service error"
    TIMEOUT = "timeout", "Took too long"
