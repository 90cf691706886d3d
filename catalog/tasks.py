"""Celery tasks of the catalog: the price refresh of one provider, on the refresh queue.

A refresh is idempotent (a second run adds no price point), so it acknowledges late and is
handed out again if its worker dies. It retries on transient failures only: the database or
broker going away, and a provider that kept failing its HTTP requests (UpstreamHTTPError),
after the HTTP client's own retries. Other feed errors (a truncated or malformed payload, an
unknown currency, an absurd price) will fail again on the same payload, so they end the task;
every attempt leaves its own job row.

A refresh beat sends has no job row until a worker runs it, so the reaper cannot send it again
after a database outage as it does the other jobs (core/jobs.py): its task keeps trying instead,
as long as an outage the other jobs come back from lasts, and runs once PostgreSQL is back.
"""

from __future__ import annotations

from celery import shared_task

from catalog.exchange_rates import ecb
from catalog.exchange_rates.services import refresh_ecb_rates
from catalog.models import RefreshStatus
from catalog.pricefeeds import UpstreamHTTPError
from catalog.quote_imports import QUOTE_IMPORT_JOBS
from catalog.quote_imports import quote_import_run
from catalog.quote_imports import quote_imports_reap
from catalog.refresh.limits import REFRESH_SOFT_TIME_LIMIT_S
from catalog.refresh.limits import REFRESH_TIME_LIMIT_S
from catalog.refresh.recovery import refresh_jobs_reap
from catalog.refresh.services import price_refresh_run
from core.file_imports import FILE_IMPORT_SOFT_TIME_LIMIT_S
from core.file_imports import FILE_IMPORT_TIME_LIMIT_S
from core.jobs import REAP_DELIVERY
from core.jobs import JobTask
from core.task_retries import TRANSIENT_ERRORS
from core.task_retries import transient_retries

# An outage of a provider's price API usually lasts minutes to hours: try again 15 minutes and
# then 30 minutes later, and leave the rest to the next daily run.
UPSTREAM_RETRY_DELAYS_S = (900, 1800)
# The database or broker away: the other tasks' waits (2 s doubling to 60 s), then every minute
# for an hour at most.
OUTAGE_RETRY_DELAYS_S = (2, 4, 8, 16, 32, *(60,) * 60)


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=REFRESH_SOFT_TIME_LIMIT_S,
    time_limit=REFRESH_TIME_LIMIT_S,
    max_retries=None,  # each kind of failure below counts its own tries
)
def refresh_prices_task(self, provider: str, location: str | None = None, attempt: int = 1,
                        upstream_retries: int = 0) -> int:
    """Refresh one provider's prices; returns the job id (send it with ``queue=Queue.REFRESH``).

    ``attempt`` counts the tries the reaper made after workers died (catalog/refresh/recovery.py),
    ``upstream_retries`` those made after the provider failed.
    """
    outage_retries = self.request.retries - upstream_retries
    try:
        job = price_refresh_run(provider=provider, location=location, attempt=attempt)
    except TRANSIENT_ERRORS as exc:
        if outage_retries >= len(OUTAGE_RETRY_DELAYS_S):
            raise
        raise self.retry(exc=exc, countdown=OUTAGE_RETRY_DELAYS_S[outage_retries]) from exc
    upstream_failed = job.status == RefreshStatus.FAILED and job.error_code == UpstreamHTTPError.code
    if upstream_failed and upstream_retries < len(UPSTREAM_RETRY_DELAYS_S):
        raise self.retry(countdown=UPSTREAM_RETRY_DELAYS_S[upstream_retries],
                         kwargs={**self.request.kwargs, "upstream_retries": upstream_retries + 1})
    return job.pk


# Idempotent: a price already recorded is counted unchanged, never written twice.
@shared_task(base=JobTask, job_argument="import_id", jobs=QUOTE_IMPORT_JOBS,
             failure_message="The import stopped ({name}); the batches of prices it had written are "
                             "kept: import the file again to write the rest (a price already "
                             "recorded counts unchanged).",
             acks_late=True, reject_on_worker_lost=True, **transient_retries(),
             soft_time_limit=FILE_IMPORT_SOFT_TIME_LIMIT_S, time_limit=FILE_IMPORT_TIME_LIMIT_S)
def quote_import_task(import_id: int) -> None:
    """Check one uploaded quote file, then write it in batches if every row is good (send it to
    the default queue)."""
    quote_import_run(import_id=import_id)


# Beat sends it to the default queue every minute (catalog/migrations/0007_job_recovery.py).
@shared_task(**REAP_DELIVERY)
def jobs_reap_task() -> None:
    """Try again, or fail, the price refreshes and quote imports whose worker died (periodic)."""
    refresh_jobs_reap()
    quote_imports_reap()


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    **transient_retries(max_retries=len(UPSTREAM_RETRY_DELAYS_S)),
)
def refresh_exchange_rates_task(url: str = ecb.HISTORY_90_DAYS_XML_URL) -> int:
    """Store the ECB's euro reference rates (the last 90 days, so a missed day fills in);
    returns how many rows were new. Send it with ``queue=Queue.REFRESH``."""
    return refresh_ecb_rates(url)
