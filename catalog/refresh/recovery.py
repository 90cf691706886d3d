"""Price refreshes whose worker died: failed with why and tried again, a bounded number of times.

A refresh writes its prices in one transaction, so a worker killed mid-run wrote nothing; its
job row would say RUNNING until the next refresh of the provider, hours later, noticed it. The
reaper (``catalog.tasks.refresh_jobs_reap_task``, every minute) asks the worker named on each
running job whether it still holds the job's task (core/jobs.py); a job it does not hold is
failed as ``worker_lost`` and, below ``JOBS_MAX_ATTEMPTS`` tries, queued again as a new job row.
"""
from __future__ import annotations

from datetime import datetime
from functools import partial

from django.db import transaction
from django.utils import timezone

from catalog.models import PriceRefreshJob
from catalog.models import RefreshStatus
from catalog.refresh.feeds import FEED_SOURCES
from catalog.refresh.limits import REFRESH_TIME_LIMIT_S
from core import jobs
from core.queues import Queue

WORKER_LOST = "worker_lost"


def refresh_jobs_reap(*, now: datetime | None = None) -> jobs.Reaped:
    """Fail the running refreshes no live worker holds; queue each again while tries are left."""
    now = now or timezone.now()
    reaped = jobs.Reaped()
    running = {job.pk: job for job in PriceRefreshJob.objects.filter(status=RefreshStatus.RUNNING)}
    lost = jobs.lost_jobs({pk: jobs.Claim(job.worker, job.task_id) for pk, job in running.items()},
                          started={pk: job.started_at for pk, job in running.items()},
                          hard_limit_s=REFRESH_TIME_LIMIT_S, now=now)
    for pk in sorted(lost):
        job = running[pk]
        again = job.attempt < jobs.max_attempts()
        error = (f"Its worker stopped before it finished (try {job.attempt} of {jobs.max_attempts()}); "
                 + ("it was queued again." if again else "it was not tried again."))
        with transaction.atomic():
            if not PriceRefreshJob.objects.filter(pk=pk, status=RefreshStatus.RUNNING).update(
                    status=RefreshStatus.FAILED, finished_at=now, error_code=WORKER_LOST, error=error):
                continue
            if again:
                reaped.resent.append(pk)
                transaction.on_commit(partial(_send, job, job.attempt + 1))
            else:
                reaped.failed.append(pk)
    return reaped


def _send(job: PriceRefreshJob, attempt: int) -> None:
    from catalog.tasks import refresh_prices_task  # the tasks module imports this one

    location = None if job.location == FEED_SOURCES[job.provider].url else job.location
    jobs.send(refresh_prices_task, queue=Queue.REFRESH,
              kwargs={"provider": job.provider, "location": location, "attempt": attempt})
