"""/healthz: database, broker and worker reachability as JSON, for load balancers and compose.

Pinging workers waits for replies for a full second, so /healthz answers from the last
ping kept in the cache and refreshes it in the background once it is older than
``WORKER_STATUS_FRESH_S``. A worker starting or stopping drops the kept status, so the
next call pings afresh (``config.celery_app.forget_worker_status``).

The page is public: it says what failed (the exception's type) and how many workers answer,
never host names, addresses or error messages; those go to the log.

It answers its JSON whatever is down: it runs outside the request's transaction (no database
needed to reach it), the kept status is read from a cache that may be down too (Redis), and
workers are not pinged through a broker that does not answer.

On kombu's filesystem broker (`make run`) a ping's request and reply each wait for a poll of
the folders (a second apart), longer than the ping waits: workers were reported missing while
they worked. There every worker writes a heartbeat file beside the broker's folders
(``WorkerHeartbeat``) and /healthz counts the fresh ones instead of pinging.
"""
from __future__ import annotations

import logging
import re
import threading
import time
from pathlib import Path

from celery import bootsteps
from celery import current_app as celery_app
from django.core.cache import cache
from django.db import connection
from django.db import transaction
from django.http import JsonResponse
from django.views.decorators.http import require_GET

PING_TIMEOUT_S = 1.0
WORKER_STATUS_REFRESHING_KEY = "healthz:workers:refreshing"
WORKER_STATUS_FRESH_S = 30
# Where /healthz keeps the last worker ping; a worker coming or going deletes it.
WORKER_STATUS_KEY = "healthz:workers"

# A worker on the filesystem broker touches its heartbeat file this often; one not touched for
# three of these is gone (killed without its stop step).
WORKER_HEARTBEAT_S = 5.0

logger = logging.getLogger(__name__)


def _failure(part: str, exc: Exception) -> str:
    logger.warning("health check: %s unavailable", part, exc_info=exc)
    return type(exc).__name__


def _database() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return {"ok": True, "vendor": connection.vendor}
    except Exception as exc:  # any failure is the answer we report
        return {"ok": False, "error": _failure("database", exc)}


def _broker() -> dict:
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=PING_TIMEOUT_S)
            return {"ok": True, "transport": conn.transport_cls}
    except Exception as exc:
        return {"ok": False, "error": _failure("broker", exc)}


def _ping_workers() -> dict:
    try:
        replies = celery_app.control.ping(timeout=PING_TIMEOUT_S) or []
    except Exception as exc:
        status = {"ok": False, "count": 0, "error": _failure("worker ping", exc)}
    else:
        count = sum(len(reply) for reply in replies)
        status = {"ok": bool(count), "count": count}
    cache.set(WORKER_STATUS_KEY, status, None)
    return status


def _refresh_in_background() -> None:
    try:
        _ping_workers()
    finally:
        cache.delete(WORKER_STATUS_REFRESHING_KEY)


def heartbeats_folder() -> Path | None:
    """Where workers on the filesystem broker write their heartbeats (beside its control
    folder); None on another broker."""
    control = (celery_app.conf.broker_transport_options or {}).get("control_folder")
    if not str(celery_app.conf.broker_url).startswith("filesystem") or not control:
        return None
    return Path(control).parent / "workers"


class WorkerHeartbeat(bootsteps.StartStopStep):
    """On the filesystem broker, a worker touches ``<broker>/workers/<its name>`` every
    ``WORKER_HEARTBEAT_S`` and removes it when it stops (installed by config/celery_app.py)."""

    requires = {"celery.worker.components:Timer"}

    def __init__(self, worker, **kwargs):
        super().__init__(worker, **kwargs)
        self.beat = None
        self.path: Path | None = None

    def start(self, worker):
        folder = heartbeats_folder()
        if folder is None:
            return
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / re.sub(r"[^\w@.-]", "_", worker.hostname)
        self.path.touch()
        self.beat = worker.timer.call_repeatedly(WORKER_HEARTBEAT_S, self.path.touch)

    def stop(self, worker):
        if self.beat is not None:
            self.beat.cancel()
        if self.path is not None:
            self.path.unlink(missing_ok=True)


def _heartbeats(folder: Path) -> dict:
    """Workers whose heartbeat file is fresh."""
    oldest = time.time() - 3 * WORKER_HEARTBEAT_S
    try:
        count = sum(1 for path in folder.iterdir() if path.stat().st_mtime >= oldest)
    except FileNotFoundError:  # no worker has started yet (or a file went between the two calls)
        count = 0
    return {"ok": bool(count), "count": count}


def _workers(broker: dict) -> dict:
    """The kept worker status; the first call pings, later ones refresh it in the background.
    With the broker down no worker can be reached: that is the answer, without waiting. On the
    filesystem broker, the workers' heartbeats."""
    if not broker["ok"]:
        return {"ok": False, "count": 0, "error": "broker unavailable"}
    folder = heartbeats_folder()
    if folder is not None:
        return _heartbeats(folder)
    try:
        status = cache.get(WORKER_STATUS_KEY)
        if status is None:
            return _ping_workers()
        # add() is atomic: one refresh at a time, at most every WORKER_STATUS_FRESH_S seconds.
        if cache.add(WORKER_STATUS_REFRESHING_KEY, True, WORKER_STATUS_FRESH_S):
            threading.Thread(target=_refresh_in_background, daemon=True).start()
    except Exception as exc:  # the cache (Redis) is down: report it, as the broker's part
        return {"ok": False, "count": 0, "error": _failure("worker status", exc)}
    return status


@require_GET
@transaction.non_atomic_requests
def healthz(request):
    """200 when the database and broker answer; workers are reported but do not fail the check,
    so a web container stays up while workers restart."""
    broker = _broker()
    report = {"database": _database(), "broker": broker, "workers": _workers(broker)}
    healthy = report["database"]["ok"] and report["broker"]["ok"]
    report["status"] = "ok" if healthy else "unavailable"
    return JsonResponse(report, status=200 if healthy else 503)
