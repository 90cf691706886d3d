"""A real Celery worker process for the tests that exercise tasks end to end."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.conf import settings

from benchmarks import worker_process
from benchmarks.worker_process import REPO_ROOT
from core.queues import Queue

__all__ = ["REPO_ROOT", "WorkerProcess", "database_url", "poll_until"]


def database_url() -> str:
    """The URL of the database the test run is using (pytest-django's test_ database)."""
    db = settings.DATABASES["default"]
    user = db.get("USER") or "postgres"
    return f"postgres://{user}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


class WorkerProcess(worker_process.WorkerProcess):
    """`celery worker` in a child process, pointed at the test database and the given broker."""

    def __init__(self, *, broker_env: dict[str, str], concurrency: int = 1,
                 queues=tuple(Queue)) -> None:
        super().__init__(env={"DJANGO_SETTINGS_MODULE": "config.settings.test",
                              "DATABASE_URL": database_url(), **broker_env},
                         concurrency=concurrency, queues=queues,
                         log_dir=REPO_ROOT / "test-artifacts")


def poll_until(condition: Callable[[], Any], what: str, *, timeout_s: float, poll_s: float = 0.05) -> Any:
    """What ``condition`` returns once it is true (a worker's effect showing up); fails the test
    with ``what`` if that takes longer than ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(poll_s)
    raise AssertionError(f"no {what} within {timeout_s}s")
