"""The retry policy of every Celery task: transient broker and database errors only.

A lost database or broker connection is worth a few more tries after a growing, jittered
wait (2 s doubling, at most ``TASK_RETRY_BACKOFF_MAX_S``, 60 s); any other error would fail the
same way again, so it ends the task.
"""

from __future__ import annotations

from typing import Any

import redis.exceptions
from django.conf import settings
from django.db import InterfaceError
from django.db import OperationalError

TRANSIENT_ERRORS = (OperationalError, InterfaceError, redis.exceptions.ConnectionError)


def transient_retries(max_retries: int = 5) -> dict[str, Any]:
    """``shared_task`` options retrying ``TRANSIENT_ERRORS`` up to ``max_retries`` times."""
    return {
        "autoretry_for": TRANSIENT_ERRORS,
        "retry_backoff": 2,
        "retry_backoff_max": settings.TASK_RETRY_BACKOFF_MAX_S,
        "retry_jitter": True,
        "max_retries": max_retries,
    }


RETRIES = transient_retries()
