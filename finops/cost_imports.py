"""FOCUS cost files imported as a job: the upload answers at once, a worker checks and writes.

    job = cost_import_request(team=team, file_name="aws-2027-03.csv", content=data, user=user)

1. ``cost_import_request()`` refuses a file by its name, size or container at once
   (``focus_file_screen``: FileRefused), else saves a CostImport (PENDING) holding the file and
   queues ``cost_import_task`` on commit; the API answers 202 with the job, the admin shows its
   page.
2. The task calls ``cost_import_run()`` (core/file_imports.py): every row is read and checked,
   its money converted into the team's reporting currency (finops/focus_import.py); a refused
   file ends FAILED with each bad row's number, column and reason in ``errors``, nothing written.
3. A checked file is written in batches of ``IMPORT_BATCH_ROWS`` rows, each committed on its
   own. Until the job is DONE its rows count nowhere (the variance reads done imports only), so
   no reader sees half a file. Once done, each of the team's targets is compared again and a
   month newly beyond its threshold writes a variance alert and tells the subscribers.

A worker that dies mid-batches leaves its job to the reaper, which sends it again: the batches
commit in file order, so the rows already written are the file's first ones, and the re-run
writes from the next row on (no row twice).
"""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from functools import partial
from typing import Any

from django.db import transaction

from core import jobs
from core.file_imports import CheckedFile
from core.file_imports import file_import_jobs
from core.file_imports import file_import_run
from core.file_imports import queued
from core.queues import Queue
from finops.focus_import import focus_file_screen
from finops.focus_import import read_focus_file
from finops.models import ActualCost
from finops.models import CostImport
from finops.models import CostTarget
from finops.services import variance_alerts_write
from tco.services.exchange_rates import rate_book
from teams.models import Team


def cost_import_request(*, team: Team, file_name: str, content: bytes, user: Any = None) -> CostImport:
    """Save the file as an import job of ``team`` and queue it; FileRefused (nothing saved) when its
    name, size or container refuse it."""
    focus_file_screen(file_name, content)
    job = CostImport.objects.create(team=team, file_name=file_name[:255], content=content,
                                    imported_by=user, currency=team.reporting_currency, **queued())
    transaction.on_commit(partial(_send, job.pk))
    return job


def cost_import_run(*, import_id: int) -> None:
    """Check one import's file, then write it in batches (a finished import returns at once)."""
    file_import_run(COST_IMPORT_JOBS, import_id, _costs_check)


def _costs_check(job: CostImport, progress: Callable[[int], Any]) -> CheckedFile:
    team = job.team
    rows = read_focus_file(job.file_name, bytes(job.content), currency=job.currency,
                           rates=rate_book([team.pk]), progress=progress)
    CostImport.objects.filter(pk=job.pk).update(rows_total=len(rows))

    def write(start: int, stop: int) -> dict[str, int]:
        ActualCost.objects.bulk_create(
            ActualCost(cost_import=job, team=team, month=row.month,
                       charge_period_start=row.charge_period_start, billed_cost=row.billed,
                       effective_cost=row.effective, charge_category=row.charge_category,
                       provider=row.provider, service_name=row.service_name, sku_id=row.sku_id,
                       resource_id=row.resource_id, option=row.option)
            for row in rows[start:stop])
        return {}

    def alert() -> None:
        for target in CostTarget.objects.filter(team=team).select_related("scenario", "plan__scenario"):
            variance_alerts_write(target)

    return CheckedFile(rows=len(rows), write=write, written=job.costs.count(), then=alert,
                       finish=lambda: {"billed_usd": sum((row.billed for row in rows), Decimal(0))})


def cost_imports_reap(*, now: datetime | None = None) -> jobs.Reaped:
    """Send again, or fail, the imports whose worker died or whose message was lost."""
    return jobs.reap(COST_IMPORT_JOBS, now=now)


def _send(import_id: int) -> None:
    from finops.tasks import cost_import_task  # the tasks module imports this one

    jobs.send(cost_import_task, (import_id,), queue=Queue.DEFAULT)


COST_IMPORT_JOBS = file_import_jobs(CostImport, _send)
