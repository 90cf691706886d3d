"""The jobs that refresh prices and import quotes, and each price check they make."""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from catalog.choices import Provider
from catalog.models.fields import _known
from catalog.models.prices import PricePoint
from core.file_imports import FileImport
from core.file_imports import ImportStatus


class RefreshStatus(models.TextChoices):
    """Where a price refresh job stands."""

    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


class PriceRefreshJob(models.Model):
    """One run of a provider's price feed: what it found and wrote, or why it wrote nothing.

    A run writes its prices in one transaction; a failed run writes none and says why in
    ``error_code`` (the feed error's code) and ``error``.
    """

    provider = models.CharField(max_length=16, choices=Provider.choices)
    location = models.CharField(
        max_length=1000, blank=True, help_text="URL or local path the feed was read from."
    )
    status = models.CharField(max_length=16, choices=RefreshStatus.choices, default=RefreshStatus.RUNNING)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    prices_new = models.PositiveIntegerField(
        default=0, help_text="First price of an offering from this feed."
    )
    prices_changed = models.PositiveIntegerField(
        default=0, help_text="Price differs from the last one stored."
    )
    prices_unchanged = models.PositiveIntegerField(
        default=0, help_text="Same as the last one; nothing written."
    )
    prices_rejected = models.PositiveIntegerField(
        default=0, help_text="Feed rows that are not prices we store (decoys, unmapped, conflicts)."
    )
    prices_other_terms = models.PositiveIntegerField(
        default=0,
        help_text="Reservation prices of a less preferred purchase option of an offering already priced.",
    )
    offerings_new = models.PositiveIntegerField(default=0)
    source_versions = models.JSONField(
        default=dict, blank=True, help_text="Version read per region (AWS offer files)."
    )
    regions_skipped = models.JSONField(
        default=list, blank=True, help_text="Regions whose feed version had not changed."
    )
    rejections = models.JSONField(
        default=list, blank=True, help_text="Rejected rows: sku, reason and detail."
    )
    warnings = models.JSONField(
        default=list, blank=True,
        help_text="What the refresh left out and why, in sentences (a region missing from a mirror).",
    )
    error_code = models.CharField(max_length=64, blank=True)
    error = models.TextField(blank=True)
    # Recovery after a dead worker (catalog/refresh/recovery.py): each try has its own row.
    attempt = models.PositiveSmallIntegerField(default=1, help_text="Which try of this refresh it is.")
    worker = models.CharField(max_length=200, blank=True, help_text="The worker running it.")
    task_id = models.CharField(max_length=64, blank=True)
    written_prices = models.ManyToManyField(
        PricePoint, blank=True, related_name="refresh_jobs", help_text="Price points this run added."
    )

    class Meta:
        ordering = ["-started_at", "-id"]
        indexes = [models.Index(fields=["provider", "status", "-started_at"], name="catalog_refresh_latest")]
        constraints = [
            _known("status", RefreshStatus, "catalog_refresh_status_known"),
            models.CheckConstraint(
                condition=Q(status=RefreshStatus.RUNNING, finished_at__isnull=True)
                | (~Q(status=RefreshStatus.RUNNING) & Q(finished_at__isnull=False)),
                name="catalog_refresh_finished_when_done",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.provider} refresh {self.started_at:%Y-%m-%d %H:%M} ({self.status})"


class PriceCheck(models.Model):
    """When a price refresh last found a stored price still current; a price's age runs from here."""

    price_point = models.OneToOneField(
        PricePoint, on_delete=models.CASCADE, primary_key=True, related_name="last_check"
    )
    checked_at = models.DateTimeField()
    job = models.ForeignKey(
        PriceRefreshJob, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        verbose_name = "price check"

    def __str__(self) -> str:
        return f"{self.price_point} checked {self.checked_at:%Y-%m-%d}"


class QuoteImport(FileImport):
    """A vendor quote file imported on a worker: its progress, and what it wrote or why not.

    A file with any bad row writes nothing, and ``errors`` names each row, column and reason;
    a checked file is written in batches (core/file_imports.py). The file stays on the row, so a
    worker that dies mid-import leaves something to import again (catalog/quote_imports.py).
    """

    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, null=True, blank=True,
                             related_name="quote_imports",
                             help_text="Whose confidential prices these are; empty for public prices.")
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                    blank=True, related_name="+")
    prices_created = models.PositiveIntegerField(default=0)
    prices_unchanged = models.PositiveIntegerField(default=0,
                                                   help_text="Already recorded: not written again.")
    offerings_created = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            _known("status", ImportStatus, "catalog_quote_import_status_known"),
        ]

    def __str__(self) -> str:
        return f"{self.file_name} ({self.get_status_display()})"
