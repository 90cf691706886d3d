"""The strategies' Monte Carlo over price paths on real Celery workers, started and polled through
the API: 12,000 paths in three chunks on two worker processes give exactly what the engine gives
in one go with the same seed (path p is the same draw in whatever chunk it is), and a request that
cannot run is refused naming its field, saving nothing."""
from __future__ import annotations

import datetime
import time

import pytest
import redis
from django.conf import settings

from catalog.models import Accelerator
from catalog.rental_curves import import_rental_curve
from core.queues import Queue
from costmodel.price_paths import strategy_monte_carlo
from tco.models import RunStatus
from tco.models import StrategyRun
from tco.services.evaluation import scenario_evaluate
from tco.services.strategies import curve_fit
from tco.services.strategies import scenario_strategies
from tco.services.strategy_runs import StrategyRunError
from tco.services.strategy_runs import strategy_run_start
from tests.worker import WorkerProcess

pytestmark = pytest.mark.worker

WAIT_S = 180
# Three on-demand dates to fit the drift on; 12 months on the latest.
CURVE = """date,term,price,source
2026-05-01,on demand,2.50,GPU rental index
2026-07-01,on demand,2.80,GPU rental index
2026-10-01,on demand,2.50,GPU rental index
2026-10-01,12,2.00,Broker quote sheet
"""


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


def _curve(today) -> None:
    import_rental_curve(accelerator=Accelerator.objects.get(slug="h100-sxm-80gb"), text=CURVE, today=today)


def test_a_run_on_two_workers_equals_the_engine_in_one_go(worker, run_scenario, api):
    _curve(datetime.date.today())
    started = api.post("/api/v1/strategy-runs/", {"scenario": run_scenario.pk, "paths": 12_000, "seed": 48},
                       content_type="application/json")
    assert started.status_code == 202, started.json()
    run = started.json()
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline and run["status"] not in (RunStatus.DONE, RunStatus.FAILED):
        time.sleep(0.2)
        run = api.get(started["Location"]).json()

    assert run["status"] == RunStatus.DONE, run["error"]
    assert (run["chunks_done"], run["chunks_total"]) == (3, 3)  # 5,000 + 5,000 + 2,000 paths
    found = scenario_strategies(run_scenario, scenario_evaluate(scenario=run_scenario))
    fit = curve_fit(run_scenario)
    alone = strategy_monte_carlo(found.inputs, fit.model(), paths=12_000, seed=48, chunk_paths=12_000)
    assert run["result"] == {"fit": fit.to_dict(), **alone.to_dict()}
    # Buying does not move with rental prices: its NPV is the same $426,805.60 on every path.
    buy = next(row for row in run["result"]["strategies"] if row["key"] == "buy_now")
    assert buy["npv_p10_usd"] == buy["npv_p90_usd"] == pytest.approx(426_805.60)
    assert sum(row["probability_cheapest"] for row in run["result"]["strategies"]) == pytest.approx(1.0)


@pytest.mark.django_db
def test_a_run_that_cannot_start_is_refused_naming_the_field(run_scenario):
    with pytest.raises(StrategyRunError) as no_curve:
        strategy_run_start(scenario=run_scenario, paths=100, seed=1)
    assert no_curve.value.field == "scenario" and "No rental curve" in no_curve.value.message
    _curve(datetime.date.today())
    with pytest.raises(StrategyRunError) as too_many:
        strategy_run_start(scenario=run_scenario, paths=2_000_000, seed=1)
    assert (too_many.value.field, too_many.value.message) == (
        "paths", "must be a whole number from 1 to 1,000,000")
    with pytest.raises(StrategyRunError) as seed:
        strategy_run_start(scenario=run_scenario, paths=100, seed=-1)
    assert seed.value.field == "seed"
    assert not StrategyRun.objects.exists()


@pytest.mark.django_db
def test_the_api_refuses_a_run_naming_the_field_and_saves_nothing(run_scenario, api):
    def start(**body):
        answer = api.post("/api/v1/strategy-runs/", body, content_type="application/json")
        assert answer.status_code == 400
        return answer.json()

    assert "No rental curve" in start(scenario=run_scenario.pk, paths=100)["scenario"][0]
    _curve(datetime.date.today())
    assert list(start(scenario=run_scenario.pk, paths=2_000_000)) == ["paths"]
    assert list(start(scenario=run_scenario.pk, paths=100, seed=-1)) == ["seed"]
    assert list(start(scenario=run_scenario.pk, paths=100, chunks=4)) == ["chunks"]  # unknown field
    assert list(start(scenario=10**9, paths=100)) == ["scenario"]  # missing, or another team's
    assert not StrategyRun.objects.exists()
