"""/healthz: database, broker and worker reachability as JSON, for load balancers and compose.

The page is public: it says what failed (the exception's type) and how many workers answer,
never host names, addresses or error messages; those go to the log.
"""
from __future__ import annotations

import logging

from django.db import connection
from django.http import JsonResponse
from django.views.decorators.http import require_GET

from config.celery_app import app as celery_app

PING_TIMEOUT_S = 1.0

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


def _workers() -> dict:
    try:
        replies = celery_app.control.ping(timeout=PING_TIMEOUT_S) or []
    except Exception as exc:
        return {"ok": False, "count": 0, "error": _failure("worker ping", exc)}
    count = sum(len(reply) for reply in replies)
    return {"ok": bool(count), "count": count}


@require_GET
def healthz(request):
    """200 when the database and broker answer; workers are reported but do not fail the check,
    so a web container stays up while workers restart."""
    report = {"database": _database(), "broker": _broker(), "workers": _workers()}
    healthy = report["database"]["ok"] and report["broker"]["ok"]
    report["status"] = "ok" if healthy else "unavailable"
    return JsonResponse(report, status=200 if healthy else 503)
