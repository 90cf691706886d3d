"""Celery tasks of runs: ids in, one service call; the delivery contract is in the decorators.

Chunk and finish tasks are idempotent (tco/services/runs.py), so they acknowledge late and are
handed out again when their worker dies; their time limits stay far below the Redis
visibility timeout (3,600 s). They retry only on transient broker and database errors, and run
on their own queue so a big sweep never starves report or price-refresh jobs.
"""
from __future__ import annotations

from celery import shared_task
from django.db import reset_queries

from core.jobs import REAP_DELIVERY
from core.jobs import JobTask
from core.task_retries import RETRIES
from tco.runs.limits import CHUNK_SOFT_TIME_LIMIT_S
from tco.runs.limits import CHUNK_TIME_LIMIT_S
from tco.runs.limits import FINISH_SOFT_TIME_LIMIT_S
from tco.runs.limits import FINISH_TIME_LIMIT_S
from tco.services.plans import PLAN_JOBS
from tco.services.plans import PLAN_SOFT_TIME_LIMIT_S
from tco.services.plans import PLAN_TIME_LIMIT_S
from tco.services.plans import plan_draws_compute
from tco.services.plans import plan_solve
from tco.services.plans import plans_reap
from tco.services.repricing import REPRICE_JOBS
from tco.services.repricing import REPRICE_SOFT_TIME_LIMIT_S
from tco.services.repricing import REPRICE_TIME_LIMIT_S
from tco.services.repricing import reprice_job_run
from tco.services.repricing import reprice_jobs_reap
from tco.services.runs import failure_type_of
from tco.services.runs import sweep_chunk_compute
from tco.services.runs import sweep_run_fail
from tco.services.runs import sweep_run_finish
from tco.services.runs import sweep_runs_reap
from tco.services.strategy_runs import strategy_run_chunk_compute


class RunTask(JobTask):
    """A task of one run: when it gives up, the run is failed with a failure type."""

    job_argument = "run_id"

    def before_start(self, task_id: str, args: tuple, kwargs: dict) -> None:
        # With DEBUG on (local development) Django keeps the last 9,000 queries of a worker
        # process, and each chunk's UPDATE carries its Parquet bytes: ~6 MB a chunk, never freed.
        reset_queries()

    def fail(self, job_id: int, exc: Exception) -> None:
        sweep_run_fail(run_id=job_id, failure_type=failure_type_of(exc), error=self.message(exc))


# Sent to Queue.SWEEPS by tco/services/runs.py (Celery 5.7 deprecates a queue on the task).
RUN_DELIVERY = {"base": RunTask, "acks_late": True, "reject_on_worker_lost": True, **RETRIES}


@shared_task(**RUN_DELIVERY, soft_time_limit=CHUNK_SOFT_TIME_LIMIT_S, time_limit=CHUNK_TIME_LIMIT_S)
def sweep_chunk_task(run_id: int, index: int) -> None:
    """Compute one chunk of a run (a redelivered, finished chunk returns at once)."""
    sweep_chunk_compute(run_id=run_id, index=index)


@shared_task(**RUN_DELIVERY, soft_time_limit=FINISH_SOFT_TIME_LIMIT_S, time_limit=FINISH_TIME_LIMIT_S)
def sweep_run_finish_task(run_id: int) -> None:
    """Summarise a complete run whose summarising was lost (sent again by the reaper; the task that
    counts a run's last chunk summarises it otherwise)."""
    sweep_run_finish(run_id=run_id)


# Beat sends it to the default queue every minute (tco/migrations/0017_job_recovery.py).
@shared_task(**REAP_DELIVERY)
def sweep_runs_reap_task() -> None:
    """Fail runs past their deadline and queue again the chunks of stalled runs (periodic)."""
    sweep_runs_reap()


@shared_task(**REAP_DELIVERY)
def jobs_reap_task() -> None:
    """Send again, or fail, the plans and re-pricings whose worker died or message was lost (periodic)."""
    plans_reap()
    reprice_jobs_reap()


# Idempotent: a second run finds the new snapshots and nothing more to alert on.
@shared_task(base=JobTask, job_argument="reprice_id", jobs=REPRICE_JOBS, acks_late=True,
             reject_on_worker_lost=True, **RETRIES,
             soft_time_limit=REPRICE_SOFT_TIME_LIMIT_S, time_limit=REPRICE_TIME_LIMIT_S)
def scenarios_reprice_task(reprice_id: int) -> None:
    """Re-evaluate the saved scenarios whose prices a refresh changed; alert on large moves."""
    reprice_job_run(reprice_id=reprice_id)


@shared_task(base=JobTask, job_argument="plan_id", jobs=PLAN_JOBS, acks_late=True,
             reject_on_worker_lost=True, **RETRIES,
             soft_time_limit=PLAN_SOFT_TIME_LIMIT_S, time_limit=PLAN_TIME_LIMIT_S)
def plan_solve_task(plan_id: int) -> None:
    """Solve a procurement plan (a redelivered, already claimed plan returns at once)."""
    plan_solve(plan_id=plan_id)


@shared_task(base=JobTask, job_argument="plan_id", jobs=PLAN_JOBS, acks_late=True,
             reject_on_worker_lost=True, **RETRIES,
             soft_time_limit=PLAN_SOFT_TIME_LIMIT_S, time_limit=PLAN_TIME_LIMIT_S)
def plan_draws_task(plan_id: int, index: int) -> None:
    """Re-evaluate a plan over one chunk of its Monte Carlo draws."""
    plan_draws_compute(plan_id=plan_id, index=index)


# Idempotent: a redelivered chunk finds itself done and returns.
@shared_task(acks_late=True, reject_on_worker_lost=True, **RETRIES,
             soft_time_limit=CHUNK_SOFT_TIME_LIMIT_S, time_limit=CHUNK_TIME_LIMIT_S)
def strategy_run_chunk_task(run_id: int, index: int) -> None:
    """Cost one chunk of a strategies run's price paths."""
    strategy_run_chunk_compute(run_id=run_id, index=index)
