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
