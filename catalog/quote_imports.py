"""Quote files imported as a job: the upload answers at once, a worker checks and writes.

    job = quote_import_request(file_name="q.csv", content=data, team=team, uploaded_by=user)

1. ``quote_import_request()`` refuses a file by its name, size or container at once
   (QuoteFileRejected: not text, not a zip, a zip bomb, macros), else saves a QuoteImport
   (PENDING) holding the file and queues ``quote_import_task`` on commit; the admin shows
   the job's page, the API answers 202 with it.
2. The task calls ``quote_import_run()``: the file is parsed, every row's references checked
   (``rows_checked`` counts them, committed as it goes, so the admin and the API show progress),
   then everything is written in bulk in one transaction: all or nothing. A refused file ends
   FAILED with each bad row's number, column and reason in ``errors``; nothing is written.
3. A worker that dies mid-import, or a message a Redis restart lost, is sent again by the
   catalog's reaper (core/jobs.py); writing again is safe, since a price already recorded is
   counted unchanged.
"""
from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Any

from django.db import transaction
from django.utils import timezone

from catalog.choices import QuoteImportStatus
from catalog.importers import QuoteFileRejected
from catalog.importers import parse_quote_file
from catalog.importers import quote_file_screen
from catalog.models import QuoteImport
from catalog.services import quote_rows_import
from core import jobs
from core.queues import Queue
from teams.models import Team

# A 2,000-row file takes about 2 s on a busy 2-core machine; the limits leave room for the
# largest file the upload limit lets through.
QUOTE_IMPORT_SOFT_TIME_LIMIT_S = 300
QUOTE_IMPORT_TIME_LIMIT_S = 330


def quote_import_request(*, file_name: str, content: bytes, team: Team | None,
                         uploaded_by: Any = None) -> QuoteImport:
    """Save the file as an import job and queue it; QuoteFileRejected (nothing saved) when its
    name, size or container refuse it (``quote_file_screen``)."""
    quote_file_screen(file_name=file_name, content=content)
    job = QuoteImport.objects.create(file_name=file_name, content=content, team=team,
                                     uploaded_by=uploaded_by, attempts=1, queued_at=timezone.now())
    transaction.on_commit(partial(_send, job.pk))
    return job


def quote_import_run(*, import_id: int) -> None:
    """Check and write one import's file, all or nothing (a finished import returns at once)."""
    waiting = QuoteImport.objects.filter(
        pk=import_id, status__in=(QuoteImportStatus.PENDING, QuoteImportStatus.RUNNING))
    if not waiting.update(status=QuoteImportStatus.RUNNING, started_at=timezone.now(), rows_checked=0,
                          **jobs.claim_fields()):
        return
    job = QuoteImport.objects.select_related("team", "uploaded_by").get(pk=import_id)
    rows = QuoteImport.objects.filter(pk=import_id, status=QuoteImportStatus.RUNNING)
    try:
        parsed, errors = parse_quote_file(file_name=job.file_name, content=bytes(job.content))
        rows.update(rows_total=len(parsed) + len({error.row for error in errors if error.row}))
        result = quote_rows_import(rows=parsed, errors=errors, team=job.team,
                                   imported_by=job.uploaded_by,
                                   progress=lambda checked: rows.update(rows_checked=checked))
    except QuoteFileRejected as exc:
        rows.update(status=QuoteImportStatus.FAILED, finished_at=timezone.now(),
                    errors=[{"row": e.row, "field": e.field, "reason": e.reason} for e in exc.errors],
                    error=refusal_summary(exc))
        return
    rows.update(status=QuoteImportStatus.DONE, finished_at=timezone.now(), rows_checked=len(parsed),
                prices_created=result.prices_created, prices_unchanged=result.prices_unchanged,
                offerings_created=result.offerings_created)


def refusal_summary(exc: QuoteFileRejected) -> str:
    """One sentence for a refused file: how many rows are bad and the first reason."""
    rows = {error.row for error in exc.errors if error.row is not None}
    what = f"{len(rows):,} bad row{'s' if len(rows) != 1 else ''}" if rows else "the file is unusable"
    return f"Nothing was imported: {what} (first: {exc.errors[0]})."


def quote_imports_reap(*, now: datetime | None = None) -> jobs.Reaped:
    """Send again, or fail, the imports whose worker died or whose message was lost."""
    return jobs.reap(QUOTE_IMPORT_JOBS, now=now)


def _send(import_id: int) -> None:
    from catalog.tasks import quote_import_task  # the tasks module imports this one

    jobs.send(quote_import_task, (import_id,), queue=Queue.DEFAULT)


QUOTE_IMPORT_JOBS = jobs.JobKind(
    model=QuoteImport, running=QuoteImportStatus.RUNNING, done=QuoteImportStatus.DONE,
    hard_limit_s=QUOTE_IMPORT_TIME_LIMIT_S, queue=Queue.DEFAULT, send=_send,
    failed={"status": QuoteImportStatus.FAILED},
    requeue_as={QuoteImportStatus.RUNNING: QuoteImportStatus.PENDING,
                QuoteImportStatus.PENDING: QuoteImportStatus.PENDING})
