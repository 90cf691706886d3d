"""A real Celery worker process for the tests that exercise tasks end to end."""
from __future__ import annotations

from django.conf import settings

from config import worker_process
from config.queues import Queue
from config.worker_process import REPO_ROOT

__all__ = ["REPO_ROOT", "WorkerProcess", "database_url"]


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
