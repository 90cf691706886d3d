"""PostgreSQL unreachable for a moment during a price refresh on a real worker.

The worker reaches the test database through a TcpProxy that the test cuts (every connection
closed, new ones refused) and restores. The feed is a local HTTP server that holds its answer
until the test releases it, so the outage falls at a known step of the run: while the feed is
read (the job row is RUNNING, its connection idle), or across the write that follows. Either
way the refresh must end SUCCEEDED with the sample's counts, with at most a FAILED attempt
that says why and wrote nothing; no job is left RUNNING.

The Lambda sample lists 4 instance types, one on-demand price each, none of them priced by this
feed before: a successful refresh writes 4 new prices.
"""
from __future__ import annotations

import threading
import time
from typing import Literal

import pytest
from django.conf import settings

from catalog.models import PricePoint
from catalog.models import PriceRefreshJob
from catalog.models import RefreshStatus
from catalog.tasks import refresh_prices_task
from core.queues import Queue
from tests.catalog.pricefeeds.conftest import Reply
from tests.catalog.test_refresh import SAMPLES
from tests.faults.outages import TcpProxy
from tests.worker import WorkerProcess
from tests.worker import poll_until

pytestmark = pytest.mark.worker

FEED_PATH = "/api/v1/instance-types"
SAMPLE_PRICES = 4
OUTAGE_S = 2.5
WAIT_S = 40


@pytest.fixture
def db_proxy():
    database = settings.DATABASES["default"]
    proxy = TcpProxy((database["HOST"], int(database["PORT"]))).start()
    yield proxy
    proxy.cut()


@pytest.fixture
def worker(transactional_db, live_celery, db_proxy):
    """A worker whose every database connection goes through ``db_proxy``."""
    live_celery.control.purge()
    database = settings.DATABASES["default"]
    user = database.get("USER") or "postgres"
    process = WorkerProcess(broker_env={
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "REDIS_URL": settings.REDIS_URL,
        "DATABASE_URL": f"postgres://{user}@127.0.0.1:{db_proxy.port}/{database['NAME']}",
        "PRICE_FEED_HOSTS": "127.0.0.1",  # the gated feed below is a local server
    }).start()
    yield process
    process.stop()


@pytest.fixture
def gated_feed(local_server):
    """The Lambda sample on a local URL, answered only once the returned event is set."""
    gate = threading.Event()
    body = (SAMPLES / "lambda-instance-types-sample.json").read_bytes()

    def answer(query: dict[str, str]) -> Reply:
        gate.wait(WAIT_S)
        return Reply(body=body)

    local_server.routes[FEED_PATH] = answer
    yield local_server.url(FEED_PATH), gate
    gate.set()


def wait_for(condition, what: str):
    return poll_until(condition, what, timeout_s=WAIT_S, poll_s=0.05)


def refresh_with_outage(db_proxy: TcpProxy, gated_feed, *,
                        feed_answers: Literal["after", "during"]) -> tuple[list[PriceRefreshJob], int]:
    """Queue the refresh; once its job is RUNNING, cut the database for ``OUTAGE_S`` and let the
    feed answer "after" the outage (it falls while the feed is read) or "during" it (across the
    write that follows). Wait for a success; return the jobs and how many prices were written."""
    location, gate = gated_feed
    before = PricePoint.objects.count()
    refresh_prices_task.apply_async(kwargs={"provider": "lambda", "location": location}, queue=Queue.REFRESH)
    jobs = PriceRefreshJob.objects.filter(location=location)
    wait_for(lambda: jobs.filter(status=RefreshStatus.RUNNING).exists(), "RUNNING job")
    db_proxy.cut()
    if feed_answers == "during":
        gate.set()
    time.sleep(OUTAGE_S)
    db_proxy.restore()
    gate.set()
    wait_for(lambda: jobs.filter(status=RefreshStatus.SUCCEEDED).exists(), "SUCCEEDED job")
    return list(jobs.order_by("pk")), PricePoint.objects.count() - before


def test_a_refresh_whose_connection_dropped_while_reading_the_feed_still_writes_its_prices(
    worker, catalog, db_proxy, gated_feed
):
    jobs, written = refresh_with_outage(db_proxy, gated_feed, feed_answers="after")

    assert db_proxy.connections_cut >= 1  # the worker held a connection when it was cut
    assert [job.status for job in jobs] == [RefreshStatus.SUCCEEDED], [job.error for job in jobs]
    assert (jobs[0].prices_new, jobs[0].prices_changed, jobs[0].prices_unchanged) == (SAMPLE_PRICES, 0, 0)
    assert written == SAMPLE_PRICES


def test_a_refresh_that_cannot_write_records_the_failure_and_succeeds_on_its_retry(
    worker, catalog, db_proxy, gated_feed
):
    jobs, written = refresh_with_outage(db_proxy, gated_feed, feed_answers="during")

    failed, succeeded = jobs
    assert (failed.status, failed.error_code) == (RefreshStatus.FAILED, "internal_error")
    assert failed.error.startswith("OperationalError: ")
    assert failed.written_prices.count() == 0
    assert succeeded.status == RefreshStatus.SUCCEEDED
    assert (succeeded.prices_new, succeeded.prices_changed, succeeded.prices_unchanged) == (
        SAMPLE_PRICES, 0, 0)
    assert written == SAMPLE_PRICES


LONG_OUTAGE_S = 12  # past the 2 tries of 2 and 4 s the refresh had: it was lost, with no job row


def test_a_refresh_sent_while_the_database_is_down_runs_once_it_is_back(
        worker, catalog, db_proxy, gated_feed):
    # Beat sends refreshes with no job row, so no reaper can send one again: the task itself
    # waits the outage out (tries 2, 4 and 8 s apart, then 16 s later, once it is back).
    location, gate = gated_feed
    gate.set()
    before = PricePoint.objects.count()
    db_proxy.cut()
    refresh_prices_task.apply_async(kwargs={"provider": "lambda", "location": location}, queue=Queue.REFRESH)
    time.sleep(LONG_OUTAGE_S)
    assert not PriceRefreshJob.objects.filter(location=location).exists()  # nothing ran meanwhile
    db_proxy.restore()

    jobs = PriceRefreshJob.objects.filter(location=location)
    wait_for(lambda: jobs.filter(status=RefreshStatus.SUCCEEDED).exists(), "SUCCEEDED job")
    assert [job.status for job in jobs] == [RefreshStatus.SUCCEEDED]
    assert PricePoint.objects.count() - before == SAMPLE_PRICES
