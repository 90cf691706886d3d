"""/healthz: database, broker and worker reachability as JSON, for load balancers and compose."""
from __future__ import annotations

from django.db import connection
from django.http import JsonResponse
from django.views.decorators.http import require_GET

from config.celery_app import app as celery_app

PING_TIMEOUT_S = 1.0


def _database() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return {"ok": True, "vendor": connection.vendor}
    except Exception as exc:  # any failure is the answer we report
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}


def _broker() -> dict:
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=PING_TIMEOUT_S)
            return {"ok": True, "transport": conn.transport_cls}
    except Exception as exc:
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}


def _workers() -> dict:
    try:
        replies = celery_app.control.ping(timeout=PING_TIMEOUT_S) or []
    except Exception as exc:
        return {"ok": False, "count": 0, "error": f"{type(exc).__name__}: {exc}"}
    names = sorted(name for reply in replies for name in reply)
    return {"ok": bool(names), "count": len(names), "names": names}


@require_GET
def healthz(request):
    """200 when the database and broker answer; workers are reported but do not fail the check,
    so a web container stays up while workers restart."""
    report = {"database": _database(), "broker": _broker(), "workers": _workers()}
    healthy = report["database"]["ok"] and report["broker"]["ok"]
    report["status"] = "ok" if healthy else "unavailable"
    return JsonResponse(report, status=200 if healthy else 503)
