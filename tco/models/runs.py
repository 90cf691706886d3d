"""Job rows of sweeps, Monte Carlo and sensitivity runs, and of the chunks they are split into.

Clients poll these rows; nobody reads Celery results. Counters move only through conditional
UPDATEs (see tco/services/runs.py), and the database refuses a run counting more chunks than
it has.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F
from django.db.models import Q

from tco.choices import ChunkStatus
from tco.choices import FailureType
from tco.choices import RunKind
from tco.choices import RunStatus
from tco.models.scenario import Scenario

ACTIVE_STATUSES = (RunStatus.PENDING, RunStatus.RUNNING, RunStatus.FINISHING)


def _result_path(run: SweepRun, filename: str) -> str:
    """Where the assembled result file was stored (named by migration 0002; runs keep parts now)."""
    return f"runs/{run.pk}/{filename}"


class SweepRun(models.Model):
    """A sweep, Monte Carlo or sensitivity run over one scenario, computed in chunks.

    On PostgreSQL a trigger (migration 0031) notifies channel ``tco_run_<id>`` when its status or
    counted chunks change, or it is deleted: clients wait on that (``sweep_run_wait``).
    """

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="runs")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL,
                                   null=True, blank=True, related_name="+")
    kind = models.CharField(max_length=16, choices=RunKind.choices)
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.PENDING)
    progress = models.PositiveSmallIntegerField(default=0, help_text="0-100; 100 only when done.")
    spec = models.JSONField(help_text="Axes, distributions or sensitivity step, as parsed.")
    seed = models.BigIntegerField(null=True, blank=True, help_text="Monte Carlo seed.")
    engine_inputs = models.JSONField(
        help_text="The scenario's engine inputs when the run started; every chunk uses these.")
    points_total = models.PositiveIntegerField()
    chunk_size = models.PositiveIntegerField()
    chunks_total = models.PositiveIntegerField()
    chunks_queued = models.PositiveIntegerField(default=0)
    chunks_done = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    progressed_at = models.DateTimeField(help_text="When the run started or a chunk last finished.")
    requeued_at = models.DateTimeField(null=True, blank=True)
    # The finisher assembling the result (core/jobs.py): sent again when its worker died or
    # its message was lost.
    finish_attempts = models.PositiveSmallIntegerField(default=0, help_text="Times its finisher was sent.")
    worker = models.CharField(max_length=200, blank=True, help_text="The worker assembling its result.")
    task_id = models.CharField(max_length=64, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    deadline_at = models.DateTimeField(help_text="Still unfinished by then: failed as timed out.")
    failure_type = models.CharField(max_length=8, choices=FailureType.choices, blank=True)
    error = models.TextField(blank=True)
    result_bytes = models.BigIntegerField(
        default=0, help_text="Stored size of the result's parts, counted in the team's quota [bytes].")
    summary = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "deadline_at"], name="tco_run_status_deadline")]
        constraints = [
            models.CheckConstraint(condition=Q(progress__lte=100), name="tco_run_progress_0_100"),
            models.CheckConstraint(condition=Q(chunks_done__lte=F("chunks_total")),
                                   name="tco_run_chunks_done_within_total"),
            models.CheckConstraint(condition=Q(chunks_queued__lte=F("chunks_total")),
                                   name="tco_run_chunks_queued_within_total"),
            models.CheckConstraint(condition=Q(kind__in=RunKind.values), name="tco_run_kind_known"),
            models.CheckConstraint(condition=Q(status__in=RunStatus.values), name="tco_run_status_known"),
            models.CheckConstraint(
                condition=Q(status=RunStatus.FAILED, failure_type__in=FailureType.values)
                | (~Q(status=RunStatus.FAILED) & Q(failure_type="")),
                name="tco_run_failure_type_iff_failed"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk} of {self.scenario}"

    @property
    def is_active(self) -> bool:
        """Still pending, computing or assembling."""
        return self.status in ACTIVE_STATUSES


class SweepChunk(models.Model):
    """One slice of a run's points; its result is one Parquet object in storage (tco/runs/results.py).

    Rows are created a few at a time, as chunks are queued, not one per chunk when the run starts.
    """

    run = models.ForeignKey(SweepRun, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    start = models.PositiveIntegerField(help_text="First point (flat index) of the slice.")
    stop = models.PositiveIntegerField(help_text="One past the last point of the slice.")
    status = models.CharField(max_length=8, choices=ChunkStatus.choices, default=ChunkStatus.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0, help_text="Times a worker began it.")
    queued_at = models.DateTimeField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True, help_text="The worker computing it.")
    task_id = models.CharField(max_length=64, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    result_name = models.CharField(max_length=255, blank=True,
                                   help_text="Storage name of the slice's result part; set once, when done.")
    result_bytes = models.BigIntegerField(default=0, help_text="Size of that part [bytes].")
    tally = models.JSONField(null=True, blank=True, help_text=(
        "A sweep chunk's counts for the run's summary (tco/runs/summaries.py), made by its worker "
        "so that the finisher reads no result."))

    class Meta:
        ordering = ["run", "index"]
        constraints = [
            models.UniqueConstraint(fields=["run", "index"], name="tco_chunk_one_per_index"),
            models.CheckConstraint(condition=Q(stop__gt=F("start")), name="tco_chunk_not_empty"),
            models.CheckConstraint(condition=Q(status__in=ChunkStatus.values),
                                   name="tco_chunk_status_known"),
        ]

    def __str__(self) -> str:
        return f"chunk {self.index} of run {self.run_id}"
