"""The NetBox import on a worker."""
from __future__ import annotations

from typing import Any

from celery import Task
from celery import shared_task

from core import jobs
from core.jobs import REAP_DELIVERY
from core.task_retries import transient_retries
from sites.netbox import NETBOX_IMPORT_JOBS
from sites.netbox import NETBOX_IMPORT_SOFT_TIME_LIMIT_S
from sites.netbox import NETBOX_IMPORT_TIME_LIMIT_S
from sites.netbox import netbox_import_run
from sites.netbox import netbox_imports_reap


class NetBoxImportTask(Task):
    """When the task gives up (transient errors past their retries), its import is failed."""

    def on_failure(self, exc: Exception, task_id: str, args: tuple, kwargs: dict, einfo: Any) -> None:
        jobs.fail(NETBOX_IMPORT_JOBS, kwargs.get("import_id", args[0] if args else None),
                  f"Nothing was imported: the import stopped ({type(exc).__name__}).")


# Idempotent: rows are matched by their NetBox id, so running it again changes nothing more.
@shared_task(base=NetBoxImportTask, acks_late=True, reject_on_worker_lost=True, **transient_retries(),
             soft_time_limit=NETBOX_IMPORT_SOFT_TIME_LIMIT_S, time_limit=NETBOX_IMPORT_TIME_LIMIT_S)
def netbox_import_task(import_id: int) -> None:
    """Import the sites, racks, panels and feeds one job names from NetBox, all or nothing."""
    netbox_import_run(import_id=import_id)


# Beat sends it to the default queue every minute (sites/migrations/0002_i27_schedule_reaper.py).
@shared_task(**REAP_DELIVERY)
def netbox_imports_reap_task() -> None:
    """Try again, or fail, the NetBox imports whose worker died or whose message was lost (periodic)."""
    netbox_imports_reap()
