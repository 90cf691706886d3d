"""A price refresh through a real Celery worker on Redis, and the re-pricing it queues there.

The worker loads config.settings.base, not the test settings, whose eager mode would make it
run the re-pricing it queues inline instead of sending it through Redis.
"""
from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model

from catalog.models import PriceRefreshJob
from catalog.models import RefreshStatus
from catalog.refresh.services import price_refresh_run
from catalog.tasks import refresh_prices_task
from core.queues import Queue
from tco.models import AlertKind
from tco.models import PriceAlert
from tco.services.evaluation import scenario_evaluate
from tco.services.repricing import scenario_snapshot_save
from tests.catalog.test_refresh import FEED_SETTINGS
from tests.catalog.test_refresh import lambda_payload
from tests.tco.test_repricing import make_scenario
from tests.worker import WorkerProcess
from tests.worker import poll_until

pytestmark = pytest.mark.worker
WAIT_S = 60


@pytest.fixture
def worker(transactional_db, live_celery, settings):
    live_celery.control.purge()
    process = WorkerProcess(broker_env={"DJANGO_SETTINGS_MODULE": "config.settings.base",
                                        "REDIS_URL": settings.REDIS_URL}).start()
    yield process
    process.stop()


def wait_for(condition, what: str):
    return poll_until(condition, what, timeout_s=WAIT_S, poll_s=0.1)


def test_a_refresh_task_on_a_worker_writes_the_changed_price_and_queues_the_alert(worker, catalog, tmp_path):
    # Day 1, here: $55.04 an hour; a scenario evaluated at that price (breakeven month 11).
    day1 = lambda_payload(tmp_path / "day1.json", h100_cents=5504)
    price_refresh_run(provider="lambda", location=str(day1), feed_settings=FEED_SETTINGS)
    scenario = make_scenario(get_user_model().objects.create_user("planner"))
    scenario_snapshot_save(scenario=scenario, evaluation=scenario_evaluate(scenario=scenario))

    # Day 2, on the worker: $27.52 an hour (breakeven month 21).
    day2 = lambda_payload(tmp_path / "day2.json", h100_cents=2752)
    refresh_prices_task.apply_async(kwargs={"provider": "lambda", "location": str(day2)}, queue=Queue.REFRESH)

    job = wait_for(lambda: PriceRefreshJob.objects.filter(location=str(day2)).exclude(
        status=RefreshStatus.RUNNING).first(), "finished refresh job")
    alert = wait_for(lambda: PriceAlert.objects.first(), "price alert")
    assert job.status == RefreshStatus.SUCCEEDED, job.error
    assert (job.prices_changed, job.prices_unchanged) == (1, 3)
    assert (alert.scenario_id, alert.refresh_job_id, alert.kind) == (scenario.pk, job.pk,
                                                                      AlertKind.BREAKEVEN_MOVED)
    assert (alert.old_breakeven_month, alert.new_breakeven_month) == (11, 21)
    assert alert.new_price_usd_per_instance_hour == Decimal("27.52")
