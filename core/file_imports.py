"""Uploaded files imported as jobs that commit in batches: what quote imports (catalog) and FOCUS
cost imports (finops) share.

    job = Model.objects.create(..., **queued())             # the upload, after its screen
    transaction.on_commit(partial(send, job.pk))
    file_import_run(JOBS, import_id, check)                  # the task, on a worker

1. The upload refuses a file by its name, size and container at once (``FileRefused``); else it
   saves a ``FileImport`` row (PENDING) holding the file and queues its task on commit.
2. ``file_import_run`` claims the job and calls ``check(job, progress)``: the file is parsed and
   every row checked before anything is written (``rows_checked`` moves as it goes). A refused
   file ends FAILED with each bad row's number, column and reason in ``errors``: nothing written.
3. The checked rows are then written ``IMPORT_BATCH_ROWS`` at a time, each batch in a
   transaction of its own that also moves the job's counters, so no transaction lasts the
   import and no lock is held across it (a single transaction of 100,000 rows held the catalog
   for minutes). ``finish()`` gives the DONE job's fields in the last transaction; ``then()``
   runs after it (alerts). ``writing()`` wraps the whole write (a revision moved once, at its end).
4. A worker that dies mid-batches, or a message a Redis restart lost, is sent again by the
   reaper (core/jobs.py). Each kind's writes are idempotent, so the re-run ends with the same rows
   and no duplicates: it skips the ``written`` rows its ``check`` finds already committed, or
   counts a row already recorded as unchanged. Each batch first locks the job row and checks the
   claim, so a worker the reaper took for lost stops before writing a batch twice.
"""
from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from collections.abc import Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any
from typing import NoReturn
from typing import cast

from django.conf import settings
from django.db import models
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core import jobs
from core.queues import Queue

# Room for the largest file the upload limits let through on a busy 2-core machine: a 100,000-row
# quote file and a 200,000-row FOCUS file each import well within it (benchmarks/imports.py).
FILE_IMPORT_SOFT_TIME_LIMIT_S = 300
FILE_IMPORT_TIME_LIMIT_S = 330
# Text needs no control character but tab, line feed and carriage return.
BINARY_IN_TEXT = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class ImportStatus(models.TextChoices):
    """Where a file import is."""

    PENDING = "pending", "Queued"
    RUNNING = "running", "Checking and writing"
    DONE = "done", "Imported"
    FAILED = "failed", "Refused"


@dataclass(frozen=True)
class RowError:
    """One reason a file is refused: the spreadsheet row (None for the whole file), the column
    and what is wrong."""

    row: int | None
    field: str
    reason: str

    def __str__(self) -> str:
        if self.row is None:
            return f"{self.field}: {self.reason}"
        return f"row {self.row}, {self.field}: {self.reason}"


class FileRefused(Exception):
    """The file cannot be imported; ``errors`` says where and why. Nothing from it is written."""

    def __init__(self, errors: list[RowError]):
        self.errors = sorted(errors, key=lambda e: (e.row or 0, e.field))
        super().__init__("; ".join(str(e) for e in self.errors))


def refuse(reason: str, field: str = "file") -> NoReturn:
    """Refuse the whole file for ``reason``."""
    raise FileRefused([RowError(None, field, reason)])


def csv_text(content: bytes) -> str:
    """The file as text; FileRefused when it is no UTF-8 text or holds binary data."""
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileRefused([RowError(None, "file", f"not a readable CSV file ({exc})")]) from exc
    binary = BINARY_IN_TEXT.search(text)
    if binary:
        refuse(f"not a CSV text file: it holds binary data ({binary.group()!r} at character "
               f"{binary.start()})")
    return text


class FileImport(jobs.RecoverableJob):
    """An uploaded file imported on a worker: the file, its progress, and each bad row of a
    refused one. Each kind adds what it wrote and whose it is."""

    file_name = models.CharField(max_length=255)
    content = models.BinaryField(help_text="The uploaded file, as received.")
    status = models.CharField(max_length=8, choices=ImportStatus.choices, default=ImportStatus.PENDING)
    rows_total = models.PositiveIntegerField(null=True, blank=True, help_text="Rows in the file.")
    rows_checked = models.PositiveIntegerField(default=0, help_text="Rows checked so far.")
    rows_written = models.PositiveIntegerField(
        default=0, help_text="Rows written so far, in batches that each commit on their own.")
    errors = models.JSONField(default=list, blank=True, help_text="Each bad row: row, field and reason.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True

    @property
    def progress_percent(self) -> int:
        """Rows checked and then written out of twice the file's rows, 0-100 (100 only once
        imported)."""
        if self.status == ImportStatus.DONE:
            return 100
        if not self.rows_total:
            return 0
        return min(99, 100 * (self.rows_checked + self.rows_written) // (2 * self.rows_total))


def queued() -> dict[str, Any]:
    """The field values of a job sent to a worker for the first time."""
    return {"attempts": 1, "queued_at": timezone.now()}


def batch_rows() -> int:
    """How many rows each transaction of an import writes (``IMPORT_BATCH_ROWS``)."""
    return settings.IMPORT_BATCH_ROWS


Counts = Mapping[str, int]


@dataclass
class CheckedFile:
    """A file every row of which was checked, and how to write it.

    ``write(start, stop)`` writes rows ``start`` to ``stop`` (0-based, in file order) inside the
    transaction the runner opens and returns the counters to add to the job; ``written`` rows are
    already committed (an earlier attempt's) and skipped; ``finish()`` gives the DONE job's other
    fields in the last transaction; ``then()`` runs once the job is DONE.
    """

    rows: int
    write: Callable[[int, int], Counts]
    written: int = 0
    finish: Callable[[], Mapping[str, Any]] = dict
    then: Callable[[], None] = lambda: None
    writing: Callable[[], AbstractContextManager[Any]] = contextlib.nullcontext


Check = Callable[[Any, Callable[[int], Any]], CheckedFile]


class _TakenOver(Exception):
    """The job is no longer this run's: the reaper sent it again, or failed it."""


def file_import_jobs(model: type[jobs.RecoverableJob], send: Callable[[int], None]) -> jobs.JobKind:
    """The job kind of a file import (core/jobs.py): a lost one is sent again as pending, up to
    the attempts allowed, then failed."""
    return jobs.JobKind(
        model=model, running=ImportStatus.RUNNING, done=ImportStatus.DONE,
        hard_limit_s=FILE_IMPORT_TIME_LIMIT_S, queue=Queue.DEFAULT, send=send,
        failed={"status": ImportStatus.FAILED},
        requeue_as={ImportStatus.RUNNING: ImportStatus.PENDING, ImportStatus.PENDING: ImportStatus.PENDING})


def file_import_run(kind: jobs.JobKind, import_id: int, check: Check) -> None:
    """Check and write one import's file, batch by batch (a finished import returns at once)."""
    rows = cast("type[FileImport]", kind.model)._default_manager
    held = jobs.claim()
    if not rows.filter(pk=import_id, status__in=(ImportStatus.PENDING, ImportStatus.RUNNING)).update(
            status=ImportStatus.RUNNING, started_at=timezone.now(), rows_checked=0, rows_written=0,
            worker=held.worker, task_id=held.task_id):
        return
    ours = rows.filter(pk=import_id, status=ImportStatus.RUNNING, worker=held.worker, task_id=held.task_id)
    job = rows.get(pk=import_id)
    try:
        checked = check(job, lambda rows_checked: ours.update(rows_checked=rows_checked))
    except FileRefused as exc:
        ours.update(status=ImportStatus.FAILED, finished_at=timezone.now(), error=refusal_summary(exc),
                    errors=[{"row": e.row, "field": e.field, "reason": e.reason} for e in exc.errors])
        return
    ours.update(rows_checked=checked.rows, rows_written=checked.written)
    try:
        with checked.writing():
            for start in range(checked.written, checked.rows, batch_rows()):
                stop = min(start + batch_rows(), checked.rows)
                with transaction.atomic():
                    _hold(ours)
                    counts = checked.write(start, stop)
                    ours.update(rows_written=stop, **{name: F(name) + n for name, n in counts.items()})
            with transaction.atomic():
                _hold(ours)
                ours.update(status=ImportStatus.DONE, finished_at=timezone.now(), **checked.finish())
    except _TakenOver:
        return
    checked.then()


def _hold(ours: models.QuerySet) -> None:
    """Lock the job row for the batch's transaction, if it is still this run's."""
    if not list(ours.select_for_update().values_list("pk", flat=True)):
        raise _TakenOver


def refusal_summary(exc: FileRefused) -> str:
    """One sentence for a refused file: how many rows are bad and the first reason."""
    rows = {error.row for error in exc.errors if error.row is not None}
    what = f"{len(rows):,} bad row{'s' if len(rows) != 1 else ''}" if rows else "the file is unusable"
    return f"Nothing was imported: {what} (first: {exc.errors[0]})."

