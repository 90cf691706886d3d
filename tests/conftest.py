"""Shared fixtures. Tests run against real PostgreSQL and Redis (make test checks they are up)."""
from __future__ import annotations

import pytest
import redis
from django.conf import settings

from config.celery_app import app as celery_app
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


def _load_catalog_once() -> None:
    from catalog.models import Source
    from catalog.services import catalog_load

    if not Source.objects.exists():
        catalog_load()


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    # Loaded once for the session; tests roll back on top of it. Transactional tests, which
    # pytest-django runs last, flush it, and the catalog fixture loads it again.
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
