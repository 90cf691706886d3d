"""The worker processes on the sweeps queue, counted as they come and go.

Each worker of the sweeps queue says, from its start and then every ``HEARTBEAT_S``, how many
pool processes it has (tco/runs/worker_steps.py); one not heard of for ``FORGET_AFTER_S`` is gone
(stopped, killed or cut off), and one that stops says so. Runs are cut into chunks and fed to
the queue for the processes there are (``tco.runs.limits``), so a deployment that adds
machines, or an autoscaler, needs no setting changed. Without Redis (the filesystem broker of
``make run``), or while no worker has said anything, ``SWEEP_WORKER_PROCESSES`` is the count.
"""
from __future__ import annotations

import logging
import time
from functools import lru_cache

import redis
from django.conf import settings

from tco.runs.limits import chunks_in_flight

logger = logging.getLogger(__name__)

HEARTBEAT_S = 15
# Three heartbeats missed: the worker is gone.
FORGET_AFTER_S = 3 * HEARTBEAT_S
# Hostname -> when it is forgotten (epoch seconds), and hostname -> its pool processes.
SEEN_KEY = "sweeps:workers:seen"
PROCESSES_KEY = "sweeps:workers:processes"


def sweep_worker_processes() -> int:
    """The pool processes of the live sweeps workers over all machines (at least 1), or
    ``SWEEP_WORKER_PROCESSES`` when none is known."""
    client = _client()
    if client is None:
        return settings.SWEEP_WORKER_PROCESSES
    try:
        pipe = client.pipeline()
        pipe.zrangebyscore(SEEN_KEY, time.time(), "+inf")
        pipe.hgetall(PROCESSES_KEY)
        live, processes = pipe.execute()
    except redis.RedisError as exc:
        logger.warning("sweeps workers not counted (%s): %s assumed", exc, settings.SWEEP_WORKER_PROCESSES)
        return settings.SWEEP_WORKER_PROCESSES
    counted = sum(int(processes.get(hostname, 0)) for hostname in live)
    return counted or settings.SWEEP_WORKER_PROCESSES


def chunk_places() -> int:
    """Chunks queued at once, for one run and for a team's runs (``chunks_in_flight``), with the
    sweeps worker processes there are now."""
    return chunks_in_flight(sweep_worker_processes())


def sweep_worker_here(hostname: str, processes: int) -> None:
    """Say that worker ``hostname`` serves the sweeps queue with ``processes`` pool processes
    (at its start and at each heartbeat); workers gone silent are forgotten here."""
    client = _client()
    if client is None:
        return
    now = time.time()
    try:
        gone = client.zrangebyscore(SEEN_KEY, "-inf", now)
        pipe = client.pipeline()
        pipe.zadd(SEEN_KEY, {hostname: now + FORGET_AFTER_S})
        pipe.hset(PROCESSES_KEY, hostname, processes)
        if gone:
            pipe.zrem(SEEN_KEY, *gone)
            pipe.hdel(PROCESSES_KEY, *gone)
        pipe.execute()
    except redis.RedisError as exc:  # the next heartbeat says it again
        logger.warning("could not say that %s serves the sweeps queue (%s)", hostname, exc)


def sweep_worker_gone(hostname: str) -> None:
    """Forget worker ``hostname`` (it is stopping; if this fails, it is forgotten once silent)."""
    client = _client()
    if client is None:
        return
    try:
        client.pipeline().zrem(SEEN_KEY, hostname).hdel(PROCESSES_KEY, hostname).execute()
    except redis.RedisError as exc:
        logger.warning("could not forget sweeps worker %s (%s)", hostname, exc)


def _client() -> redis.Redis | None:
    return _redis(settings.REDIS_URL) if settings.REDIS_URL else None


@lru_cache(maxsize=4)
def _redis(url: str) -> redis.Redis:
    # One pool per process (redis-py opens new connections in a forked child).
    return redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5, decode_responses=True)
