"""What the admin pages of every file import show: its progress and each bad row of a refused file."""
from __future__ import annotations

from django.contrib import admin
from django.utils.html import format_html
from django.utils.html import format_html_join

from core.file_imports import FileImport
from costmodel.vocabulary import MISSING


class FileImportAdminMixin:
    """``progress`` and ``bad_rows``, to list among a file import admin's read-only fields."""

    @admin.display(description="Progress")
    def progress(self, job: FileImport) -> str:
        if job.rows_total is None:
            return f"{job.progress_percent} %"
        return (f"{job.progress_percent} % ({job.rows_checked:,} of {job.rows_total:,} rows checked, "
                f"{job.rows_written:,} written)")

    @admin.display(description="Bad rows")
    def bad_rows(self, job: FileImport) -> str:
        if not job.errors:
            return MISSING
        return format_html(
            "<table><tr><th>Row</th><th>Column</th><th>Reason</th></tr>{}</table>",
            format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                             ((e["row"] or "file", e["field"], e["reason"]) for e in job.errors)))
