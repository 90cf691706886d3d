"""Fault-test fixtures: a private Redis to stop and start, workers and gunicorn on it, and, from
other folders, the scenarios and the local HTTP server."""
from __future__ import annotations

import pytest

from tests.catalog.pricefeeds.conftest import local_server  # noqa: F401
from tests.faults.outages import PrivateRedis
from tests.faults.outages import broker
from tests.faults.webserver import Gunicorn
from tests.reports.conftest import scenario  # noqa: F401
from tests.tco.conftest import planner  # noqa: F401
from tests.tco.conftest import run_scenario  # noqa: F401
from tests.worker import REPO_ROOT
from tests.worker import WorkerProcess


@pytest.fixture
def private_redis(tmp_path):
    """A Redis server of the test's own, which the test may shut down and start again."""
    server = PrivateRedis(tmp_path / "redis").start()
    yield server
    server.stop()


@pytest.fixture
def start_worker(transactional_db, live_celery, settings, tmp_path, private_redis):
    """Start workers on the private Redis, to which this process sends its tasks too; every one
    started is stopped after the test."""
    settings.MEDIA_ROOT = tmp_path / "media"
    workers: list[WorkerProcess] = []

    def start() -> WorkerProcess:
        worker = WorkerProcess(broker_env={
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "REDIS_URL": private_redis.url,
            "DJANGO_MEDIA_ROOT": str(settings.MEDIA_ROOT),
            "PRICE_FEED_HOSTS": "127.0.0.1",  # the local feed server of the refresh tests
        }).start()
        workers.append(worker)
        return worker

    with broker(live_celery, private_redis.url):
        yield start
        for worker in workers:
            worker.stop()


@pytest.fixture
def web(transactional_db, catalog, private_redis, request):
    """gunicorn with production settings on the private Redis, limiting the API to the test
    module's ``RATE_LIMIT`` requests a minute; its log is test-artifacts/gunicorn-<test>.log."""
    server = Gunicorn(redis_url=private_redis.url, API_RATE_LIMIT=f"{request.module.RATE_LIMIT}/min",
                      log_path=REPO_ROOT / "test-artifacts" / f"gunicorn-{request.node.name}.log").start()
    yield server
    server.stop()
