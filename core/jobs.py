"""Background jobs that outlive a lost message or a dead worker: the reaper's side of every job kind.

A job row records the worker that took it and the Celery task id it ran under (``claim()``,
read from the running task). The reaper of each job kind (exports, plans, refreshes,
re-prices, run chunks) then decides with these rules:

- a job a worker has taken is lost when that worker no longer reports the task id as active
  or reserved (the worker was killed, or restarted and forgot it) or does not answer at all;
  Redis would only hand its unacknowledged message out again after the one-hour visibility
  timeout. A job run outside a worker (inline) is lost once older than its hard time limit;
- a job still waiting for a worker ``JOBS_RESEND_PENDING_AFTER_S`` after it was sent lost its
  message (a Redis restart keeps no queue) or waits behind a long queue: it is sent again,
  which is harmless because every job task is idempotent;
- a job still waiting that was sent before the broker last started is sent again at once
  (Redis keeps no queue across a restart), so after a Redis restart jobs come back at the
  reaper's next pass, within a minute, not ``JOBS_RESEND_PENDING_AFTER_S`` later; so is one
  sent before PostgreSQL last started (its task may have given up while it was down).

Every send counts an attempt; a job sent ``JOBS_MAX_ATTEMPTS`` times is failed with a
sentence saying so instead of being sent again. Sending never fails the caller: when the
broker stays down past Celery's publish retries (``CELERY_TASK_PUBLISH_RETRY_POLICY``), the
job stays waiting and the reaper sends it once the broker is back.
"""
from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from datetime import datetime
from datetime import timedelta
from functools import lru_cache
from functools import partial
from typing import Any
from typing import TypeVar

import kombu.exceptions
import redis
from celery import Task
from celery import current_app as celery_app
from celery import current_task
from django.conf import settings
from django.db import connection
from django.db import models
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core.shown_errors import without_paths
from core.task_retries import RETRIES

logger = logging.getLogger(__name__)

Key = TypeVar("Key")

# Redis reports its uptime in whole seconds.
UPTIME_RESOLUTION_S = 1

# A reaper pass reads a few rows and asks the workers holding them: a minute is plenty.
REAP_DELIVERY = {"acks_late": True, "soft_time_limit": 60, "time_limit": 90, **RETRIES}


@dataclass(frozen=True)
class Claim:
    """Who runs a job: the worker's name and the task id ("" for both when run inline)."""

    worker: str = ""
    task_id: str = ""


def claim() -> Claim:
    """The worker and task id of the task running now (an empty claim outside a worker)."""
    request = getattr(current_task, "request", None)
    if request is None or request.called_directly or request.is_eager:
        return Claim()
    return Claim(worker=request.hostname or "", task_id=request.id or "")


def claim_fields(prefix: str = "") -> dict[str, str]:
    """The claim of the task running now as model field values (``worker``, ``task_id``)."""
    held = claim()
    return {f"{prefix}worker": held.worker, f"{prefix}task_id": held.task_id}


def max_attempts() -> int:
    """How many times a job is sent before it is failed instead."""
    return settings.JOBS_MAX_ATTEMPTS


def resend_before(now: datetime) -> datetime:
    """Jobs still waiting that were sent before this moment are sent again (their message is
    lost, or they waited ``JOBS_RESEND_PENDING_AFTER_S``)."""
    return sent_before_messages_lost(now, settings.JOBS_RESEND_PENDING_AFTER_S)


def broker_started_at() -> datetime | None:
    """When the broker (Redis) last started, or None (the filesystem broker keeps its queue, or
    the broker does not answer).

    Redis keeps nothing across a restart: every message sent before it started is gone, so a
    job still waiting that was sent before then is sent again at once.

    Redis counts its uptime in whole seconds between whole-second clock readings, so
    ``now - uptime`` may fall up to a second before the real start, and a job sent in that last
    second before a restart would be taken as sent after it and wait ``JOBS_RESEND_PENDING_AFTER_S``.
    The latest moment Redis may have started is taken instead: a job sent in the second after a
    start is sent once more, which is harmless (every job task is idempotent).
    """
    url = celery_app.conf.broker_url or ""
    if not url.startswith(("redis://", "rediss://")):
        return None
    try:
        with redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5) as client:
            uptime_s = client.info("server")["uptime_in_seconds"]
    except redis.RedisError:
        return None
    return timezone.now() - timedelta(seconds=uptime_s - UPTIME_RESOLUTION_S)


def database_started_at() -> datetime | None:
    """When PostgreSQL last started (None on another database), on this process's clock.

    A task that found the database down gave up after its retries (2 s doubling, about a
    minute) and left its job waiting: a job sent before the database last started is sent
    again at once, so after a long outage jobs come back at the reaper's next pass.
    """
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT now() - pg_postmaster_start_time()")
        (uptime,) = cursor.fetchone()
    return timezone.now() - uptime


def last_started_at() -> datetime | None:
    """When the broker or the database last started, the later of the two (None when neither
    says): a job still waiting that was sent before then lost its message, or its task gave up."""
    return max((started for started in (broker_started_at(), database_started_at()) if started is not None),
               default=None)


def sent_before_messages_lost(now: datetime, wait_s: float) -> datetime:
    """Jobs still waiting that were sent before this moment lost their message: sent more than
    ``wait_s`` ago, or before the broker or the database last started."""
    waited, started = now - timedelta(seconds=wait_s), last_started_at()
    return max(waited, started) if started else waited


def lost_jobs(claims: Mapping[Key, Claim], *, started: Mapping[Key, datetime | None], hard_limit_s: float,
              now: datetime) -> set[Key]:
    """The jobs among ``claims`` that no live worker is running.

    Each named worker is asked once which of its task ids it still holds; a worker that does
    not answer within ``JOBS_WORKER_REPLY_TIMEOUT_S`` holds none. A job with an empty claim
    (run inline) is lost once it started more than ``hard_limit_s`` ago (never, without a start).
    """
    by_worker: dict[str, list[Key]] = defaultdict(list)
    lost: set[Key] = set()
    for key, held in claims.items():
        if held.worker and held.task_id:
            by_worker[held.worker].append(key)
        elif started[key] is not None and started[key] < now - timedelta(seconds=hard_limit_s):
            lost.add(key)
    for worker, keys in by_worker.items():
        held_ids = _task_ids_held(worker, {claims[key].task_id for key in keys})
        lost.update(key for key in keys if claims[key].task_id not in held_ids)
    return lost


def _task_ids_held(worker: str, task_ids: Iterable[str]) -> set[str]:
    inspector = celery_app.control.inspect(destination=[worker], timeout=settings.JOBS_WORKER_REPLY_TIMEOUT_S)
    replies = inspector.query_task(*task_ids) or {}
    return set(replies.get(worker, {}))


@dataclass
class Reaped:
    """What one reaper pass did: jobs sent again and jobs failed, by id."""

    resent: list = field(default_factory=list)
    failed: list = field(default_factory=list)


LOST_WORKER = "the worker running it stopped {attempts} times (restarted or out of memory)"
NO_WORKER = "no worker took it in {attempts} tries (is a worker consuming the {queue} queue?)"


class RecoverableJob(models.Model):
    """What the reaper reads and writes on a job row besides its ``status``: why it failed, and
    when and where it was sent."""

    error = models.TextField(blank=True)
    attempts = models.PositiveSmallIntegerField(default=0, help_text="Times it was sent to a worker.")
    queued_at = models.DateTimeField(null=True, blank=True, help_text="When it was last sent to a worker.")
    worker = models.CharField(max_length=200, blank=True, help_text="The worker running it.")
    task_id = models.CharField(max_length=64, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True


@dataclass(frozen=True)
class JobKind:
    """How the reaper treats one kind of job row (a ``RecoverableJob`` with a ``status``).

    ``running`` is the status of a job a worker has taken and ``done`` that of a finished one;
    ``requeue_as`` maps each status the reaper may send a job again from to the status it then
    gets; ``send(pk)`` queues the job as its status says; ``failed`` holds the field values of a
    failed job besides its error.
    """

    model: type[RecoverableJob]
    running: str
    done: str
    requeue_as: Mapping[str, str]
    hard_limit_s: float
    queue: str
    send: Callable[[int], Any]
    failed: Mapping[str, Any]


def reap(kind: JobKind, *, now: datetime | None = None) -> Reaped:
    """Send again the jobs of ``kind`` whose worker died or whose message was lost, or fail them."""
    now = now or timezone.now()
    reaped = Reaped()
    running = {pk: (Claim(worker, task_id), started, attempts) for pk, worker, task_id, started, attempts
               in kind.model.objects.filter(status=kind.running).values_list(
                   "pk", "worker", "task_id", "started_at", "attempts")}
    lost = lost_jobs({pk: row[0] for pk, row in running.items()},
                     started={pk: row[1] for pk, row in running.items()},
                     hard_limit_s=kind.hard_limit_s, now=now)
    waiting = kind.model.objects.filter(
        status__in=set(kind.requeue_as) - {kind.running},
        queued_at__lt=resend_before(now))
    stuck = [(pk, kind.running, running[pk][2], LOST_WORKER) for pk in sorted(lost)] + [
        (pk, status, attempts, NO_WORKER)
        for pk, status, attempts in waiting.values_list("pk", "status", "attempts")]
    for pk, status, attempts, reason in stuck:
        rows = kind.model.objects.filter(pk=pk, status=status, attempts=attempts)
        if attempts >= max_attempts():
            error = "Not finished: " + reason.format(attempts=attempts, queue=kind.queue) + "."
            if rows.update(**kind.failed, error=error, finished_at=now):
                reaped.failed.append(pk)
            continue
        with transaction.atomic():
            if rows.update(status=kind.requeue_as[status], attempts=F("attempts") + 1, queued_at=now,
                           worker="", task_id=""):
                reaped.resent.append(pk)
                transaction.on_commit(partial(kind.send, pk))
    return reaped


def fail(kind: JobKind, pk: int, error: str) -> None:
    """Fail the job ``pk`` of ``kind`` with ``error`` (its task gave up), unless it is done."""
    kind.model.objects.filter(pk=pk).exclude(status=kind.done).update(
        **kind.failed, error=error[:10_000], finished_at=timezone.now())


class JobTask(Task):
    """A task working on one job row: when it gives up (an error past its retries, a time
    limit), the job is failed with a message its users may read (no server paths).

    A task names the argument holding its job's id and its kind of job rows in its decorator
    (``job_argument="plan_id", jobs=PLAN_JOBS``); a job whose failure records more overrides
    ``fail``.
    """

    job_argument = ""
    jobs: JobKind
    failure_message = "{name}: {error}"

    def on_failure(self, exc: Exception, task_id: str, args: tuple, kwargs: dict, einfo: Any) -> None:
        self.fail(kwargs.get(self.job_argument, args[0] if args else None), exc)

    def fail(self, job_id: int, exc: Exception) -> None:
        fail(self.jobs, job_id, self.message(exc))

    def message(self, exc: Exception) -> str:
        return without_paths(self.failure_message.format(name=type(exc).__name__, error=exc))


def send(task: Task, args: tuple = (), kwargs: dict[str, Any] | None = None, *, queue: str,
         task_id: str | None = None) -> bool:
    """Queue ``task``; False (logged) when the broker stayed down through the publish retries.

    The job row keeps saying it waits, so the reaper sends it again later: an outage of the
    broker delays jobs but never fails the request or task that asked for them.
    """
    try:
        task.apply_async(args, kwargs, queue=queue, task_id=task_id)
    except kombu.exceptions.OperationalError as exc:
        logger.warning("could not queue %s%s on %s (%s); the reaper sends it again later",
                       task.name, args or kwargs, queue, exc)
        return False
    return True


def waiting(queues: Collection[str]) -> int | None:
    """Messages on ``queues`` that no worker has taken yet; None without a Redis broker, or when it
    does not answer within a second. (Every job is sent without a priority: one Redis list.)"""
    client = _broker_client(celery_app.conf.broker_url or "")
    if client is None:
        return None
    try:
        pipe = client.pipeline(transaction=False)
        for queue in queues:
            pipe.llen(queue)
        return sum(pipe.execute())
    except redis.RedisError as exc:
        logger.warning("could not read how many messages wait on %s (%s)", ", ".join(sorted(queues)), exc)
        return None


def queues_served() -> set[str]:
    """The queues this process takes messages from: its worker's (``-Q``), or the default queue
    in a process that is no worker."""
    return set(celery_app.amqp.queues.consume_from)


@lru_cache(maxsize=4)
def _broker_client(url: str) -> redis.Redis | None:
    # One connection pool per process and broker (redis-py opens new connections in a forked child).
    if not url.startswith(("redis://", "rediss://")):
        return None
    return redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
