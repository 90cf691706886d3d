"""A plan solved and re-evaluated over Monte Carlo draws by a real Celery worker on Redis.

The worker loads config.settings.base pointed at the test database and the test Redis
database (see tests/tco/test_runs_worker.py for why not the test settings).
"""
from __future__ import annotations

import time

import numpy as np
import pytest
import redis
from django.conf import settings

from core.queues import Queue
from costmodel.plan import make_plan
from costmodel.plan.uncertainty import cases_of
from costmodel.plan.uncertainty import reevaluate
from costmodel.plan.uncertainty import summarise
from tco.models import PlanStatus
from tco.services.plans import draw_chunk
from tco.services.plans import plan_create
from tco.services.plans import scenario_plan_inputs
from tco.services.plans import uncertainty_of
from tests.worker import WorkerProcess

pytestmark = pytest.mark.worker

WAIT_S = 120
SPEC = {
    "demand": {"start": 8, "growth_per_month": 0.05, "months": 36},
    "owned": [{"name": "DGX H100", "lead_time_months": 4}],
    "uncertainty": {"draws": 1000, "seed": 2026,
                    "growth_delta_per_month": {"kind": "triangular", "low": -0.03, "mode": 0, "high": 0.03},
                    "rent_price_factor": {"kind": "triangular", "low": 0.7, "mode": 1, "high": 1.1}},
}


@pytest.fixture
def worker(transactional_db, live_celery, tmp_path):
    redis.Redis.from_url(settings.REDIS_URL).delete(*Queue)  # no message left from another test
    process = WorkerProcess(concurrency=2, broker_env={
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "REDIS_URL": settings.REDIS_URL,
        "DJANGO_MEDIA_ROOT": str(tmp_path),
    }).start()
    yield process
    process.stop()


def test_a_plan_and_its_monte_carlo_run_on_a_worker_and_match_the_engine(worker, run_scenario):
    plan = plan_create(scenario=run_scenario, name="growth", spec=SPEC)
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline and plan.status not in (PlanStatus.DONE, PlanStatus.FAILED):
        time.sleep(0.1)
        plan.refresh_from_db()

    assert plan.status == PlanStatus.DONE, plan.error
    assert (plan.chunks_done, plan.chunks_total) == (4, 4)  # 250 draws a chunk
    inputs = scenario_plan_inputs(run_scenario, SPEC)
    direct = make_plan(inputs).figures
    assert plan.result["npv_usd"] == pytest.approx(direct["npv_usd"], abs=0.01)
    _, seed, distributions = uncertainty_of(plan.spec)
    draws = [draw_chunk(distributions, seed, start, start + 250) for start in range(0, 1000, 250)]
    growth = np.concatenate([d[0] for d in draws])
    price = np.concatenate([d[1] for d in draws])
    cases = cases_of(inputs, direct)
    npv, _ = reevaluate(list(cases.values()), growth, price)
    expected = summarise(npv[0], dict(zip(list(cases)[1:], npv[1:], strict=True)), direct["best_baseline"])
    assert plan.uncertainty.keys() == expected.keys()
    for key, value in expected.items():
        assert plan.uncertainty[key] == (pytest.approx(value) if isinstance(value, dict | float) else value)
    assert plan.uncertainty["draws"] == 1000
    assert 0.0 <= plan.uncertainty["probability_loses_to_best_baseline"] <= 1.0
