"""Celery task of report exports: an id in, one service call; the delivery contract is in the decorator.

``report_export_run`` is idempotent (a finished export returns at once, and only one build
stores its file), so the task acknowledges late and is handed out again when its worker dies.
Its time limits stay far below the Redis visibility timeout (3,600 s). It runs on the reports
queue (sent there by reports/services.py), so a big sweep never delays an export.
"""

from __future__ import annotations

from celery import shared_task

from core.jobs import REAP_DELIVERY
from core.jobs import JobTask
from core.task_retries import RETRIES
from reports.choices import FailureType
from reports.services import REPORT_SOFT_TIME_LIMIT_S
from reports.services import REPORT_TIME_LIMIT_S
from reports.services import report_export_fail
from reports.services import report_export_run
from reports.services import report_exports_reap


class ReportExportTask(JobTask):
    """When the task gives up (transient errors past their retries), its export is failed."""

    job_argument = "export_id"
    failure_message = "The report could not be built ({name})."

    def fail(self, job_id: int, exc: Exception) -> None:
        report_export_fail(export_id=job_id, failure_type=FailureType.SYSTEM, error=self.message(exc))


@shared_task(
    base=ReportExportTask,
    acks_late=True,
    reject_on_worker_lost=True,
    **RETRIES,
    soft_time_limit=REPORT_SOFT_TIME_LIMIT_S,
    time_limit=REPORT_TIME_LIMIT_S,
)
def report_export_task(export_id: int) -> None:
    """Build one export's file (a redelivered, finished export returns at once)."""
    report_export_run(export_id=export_id)


# Beat sends it to the default queue every minute (reports/migrations/0002_job_recovery.py).
@shared_task(**REAP_DELIVERY)
def report_exports_reap_task() -> None:
    """Send again, or fail, the exports whose worker died or whose message was lost (periodic)."""
    report_exports_reap()
