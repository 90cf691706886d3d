"""Shared fixtures. Tests run against real PostgreSQL and Redis (make test checks they are up)."""
from __future__ import annotations

import pytest
import redis
from django.conf import settings
from django.db import connection
from django.db import transaction

from config.celery_app import app as celery_app
from tco.services.sweep_workers import PROCESSES_KEY
from tco.services.sweep_workers import SEEN_KEY
from tests.worker import WorkerProcess


def pytest_configure(config):
    url = settings.REDIS_URL
    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.exceptions.ConnectionError as exc:
        raise pytest.UsageError(
            f"Redis is not reachable at {url} ({exc}). Start it (make test does) or install it: "
            "apt-get install redis-server"
        ) from exc


@pytest.fixture(autouse=True)
def no_sweeps_worker_known():
    """No sweeps worker is known when a test starts (a killed worker of an earlier test would be
    for a while): runs are cut and fed for SWEEP_WORKER_PROCESSES until a test's own worker
    says how many processes it has."""
    redis.Redis.from_url(settings.REDIS_URL).delete(SEEN_KEY, PROCESSES_KEY)


@pytest.fixture
def live_celery(settings):
    """Send tasks to the broker instead of running them inline (for real-worker tests)."""
    celery_app.conf.task_always_eager = False
    yield celery_app
    celery_app.conf.task_always_eager = True


@pytest.fixture
def redis_worker(transactional_db, live_celery):
    """A real worker process on Redis, sharing the test database; queues purged first."""
    live_celery.control.purge()
    worker = WorkerProcess(broker_env={"REDIS_URL": settings.REDIS_URL}).start()
    yield worker
    worker.stop()


# The rows of the session's catalog, by table, as PostgreSQL's COPY writes them.
_catalog_rows: dict[str, bytes] = {}


def _row_counts(cursor) -> dict[str, int]:
    tables = connection.introspection.table_names(cursor)
    return {table: cursor.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0] for table in tables}


def _load_catalog_once() -> None:
    """Load the catalog once for the session and keep its rows; a transactional test (which
    flushes every table after it) gets the same rows back by COPY, which takes a tenth of a
    second where loading the data files again takes seconds."""
    from catalog.models import Source
    from catalog.services import catalog_load

    if Source.objects.exists():
        return
    with transaction.atomic(), connection.cursor() as cursor:
        if _catalog_rows:
            for table, rows in _catalog_rows.items():
                with cursor.cursor.copy(f'COPY "{table}" FROM STDIN') as copy:
                    copy.write(rows)
            return
        before = _row_counts(cursor)
        catalog_load()
        for table, count in _row_counts(cursor).items():
            if count != before[table]:
                with cursor.cursor.copy(f'COPY "{table}" TO STDOUT') as copy:
                    _catalog_rows[table] = b"".join(copy)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    # Loaded once for the session; tests roll back on top of it. Transactional tests, which
    # pytest-django runs last, flush it, and the catalog fixture puts its rows back.
    with django_db_blocker.unblock():
        _load_catalog_once()


@pytest.fixture
def catalog(db):
    """The real catalog, loaded from catalog/data like `make run` does."""
    _load_catalog_once()


@pytest.fixture
def demo_scenarios(catalog):
    """The three demo scenarios of `load_demo`, on top of the real catalog."""
    from tco.demo import load_demo

    return {scenario.name: scenario for scenario in load_demo()}
