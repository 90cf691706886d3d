"""The FOCUS cost import on a worker, and its reaper."""
from __future__ import annotations

from celery import shared_task

from core.file_imports import FILE_IMPORT_SOFT_TIME_LIMIT_S
from core.file_imports import FILE_IMPORT_TIME_LIMIT_S
from core.jobs import REAP_DELIVERY
from core.jobs import JobTask
from core.task_retries import transient_retries
from finops.cost_imports import COST_IMPORT_JOBS
from finops.cost_imports import cost_import_run
from finops.cost_imports import cost_imports_reap


# Idempotent: a re-run writes from the first row no batch has committed.
@shared_task(base=JobTask, job_argument="import_id", jobs=COST_IMPORT_JOBS,
             failure_message="Nothing was imported: the import stopped ({name}).", acks_late=True,
             reject_on_worker_lost=True, **transient_retries(),
             soft_time_limit=FILE_IMPORT_SOFT_TIME_LIMIT_S, time_limit=FILE_IMPORT_TIME_LIMIT_S)
def cost_import_task(import_id: int) -> None:
    """Check one uploaded FOCUS cost file, then write it in batches if every row is good, and
    alert on variance (send it to the default queue)."""
    cost_import_run(import_id=import_id)


# Beat sends it to the default queue every minute (finops/migrations/0004_schedule_cost_import_reaper.py).
@shared_task(**REAP_DELIVERY)
def cost_imports_reap_task() -> None:
    """Try again, or fail, the FOCUS cost imports whose worker died or whose message was lost (periodic)."""
    cost_imports_reap()
