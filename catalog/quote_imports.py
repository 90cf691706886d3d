"""Quote files imported as a job: the upload answers at once, a worker checks and writes.

    job = quote_import_request(file_name="q.csv", content=data, team=team, uploaded_by=user)

1. ``quote_import_request()`` refuses a file by its name, size or container at once
   (QuoteFileRejected: not text, not a zip, a zip bomb, macros), else saves a QuoteImport
   (PENDING) holding the file and queues ``quote_import_task`` on commit; the admin shows
   the job's page, the API lists it.
2. The task calls ``quote_import_run()`` (core/file_imports.py): the file is parsed and every
   row's references checked; a refused file ends FAILED with each bad row's number, column and
   reason in ``errors``, and nothing is written.
3. A checked file is written in batches of ``IMPORT_BATCH_ROWS`` rows, each committed on its own
   with the job's counts, without locking the catalog's revision row; the revision moves once,
   when the last batch has committed.

While it writes, a reader sees the prices of the batches committed so far: a scenario evaluated
then is priced with some of the file's prices, as if the quote had arrived in two mails, and is
evaluated again once more arrive (the evaluation cache's key counts prices). That is acceptable
because the whole file was checked before the first batch, so the rest follows unless the worker
dies, and then the reaper sends the import again: a price already recorded counts unchanged, so
the re-run writes the rest and nothing twice, and the job's counts (moved in each batch's
transaction) stay true.
"""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import Any

from django.db import transaction
from django.db.models import F
from django.db.models import Value

from catalog.importers import parse_quote_file
from catalog.importers import quote_file_screen
from catalog.models import QuoteImport
from catalog.services import quote_rows_check
from catalog.signals import bump_catalog_revision
from catalog.signals import revision_once
from core import jobs
from core.file_imports import CheckedFile
from core.file_imports import file_import_jobs
from core.file_imports import file_import_run
from core.file_imports import queued
from core.queues import Queue
from teams.models import Team


def quote_import_request(*, file_name: str, content: bytes, team: Team | None,
                         uploaded_by: Any = None) -> QuoteImport:
    """Save the file as an import job and queue it; QuoteFileRejected (nothing saved) when its
    name, size or container refuse it (``quote_file_screen``)."""
    quote_file_screen(file_name=file_name, content=content)
    job = QuoteImport.objects.create(file_name=file_name, content=content, team=team,
                                     uploaded_by=uploaded_by, **queued())
    transaction.on_commit(partial(_send, job.pk))
    return job


def quote_import_run(*, import_id: int) -> None:
    """Check one import's file, then write it in batches (a finished import returns at once)."""
    file_import_run(QUOTE_IMPORT_JOBS, import_id, _quotes_check)


def _quotes_check(job: QuoteImport, progress: Callable[[int], Any]) -> CheckedFile:
    parsed, errors = parse_quote_file(file_name=job.file_name, content=bytes(job.content))
    rows = len(parsed)
    QuoteImport.objects.filter(pk=job.pk).update(
        rows_total=rows + len({error.row for error in errors if error.row}))
    quotes = quote_rows_check(rows=parsed, errors=errors, team=job.team, imported_by=job.uploaded_by,
                              progress=progress)

    def finish() -> dict[str, Any]:
        # Once for the whole file, deferred by revision_once() to the end of the last batch. Its
        # new sources and offerings may have been written by an attempt that died.
        bump_catalog_revision()
        return {"prices_unchanged": Value(rows) - F("prices_created")}

    return CheckedFile(rows=rows, write=quotes.write, finish=finish, writing=revision_once)


def quote_imports_reap(*, now: datetime | None = None) -> jobs.Reaped:
    """Send again, or fail, the imports whose worker died or whose message was lost."""
    return jobs.reap(QUOTE_IMPORT_JOBS, now=now)


def _send(import_id: int) -> None:
    from catalog.tasks import quote_import_task  # the tasks module imports this one

    jobs.send(quote_import_task, (import_id,), queue=Queue.DEFAULT)


QUOTE_IMPORT_JOBS = file_import_jobs(QuoteImport, _send)
