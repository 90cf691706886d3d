"""Every job kind recovered after its worker is killed or its message is lost, on real processes.

Workers and this process use a private redis-server (tests/faults/outages.py): a restart of it
keeps nothing, so every queued message is lost, as on the machine's Redis. A SIGKILLed worker
acknowledges nothing, and Redis would hand its message out again only after the one-hour
visibility timeout; the reapers (core/jobs.py), called here as beat calls them every minute,
ask the worker named on each running job whether it still holds it, and send again what no
live worker holds or what waited past ``JOBS_RESEND_PENDING_AFTER_S``.

Sweeps: a killed chunk and a lost finisher are here; queued chunks lost to a restart and a
chunk finishing while Redis is down are in tests/faults/test_redis_restart.py.
"""
from __future__ import annotations

import time

import pytest

from catalog.models import PriceRefreshJob
from catalog.models import RefreshStatus
from catalog.refresh.recovery import refresh_jobs_reap
from catalog.refresh.services import price_refresh_run
from catalog.tasks import refresh_prices_task
from core.queues import Queue
from reports.choices import ExportStatus
from reports.services import report_export_request
from reports.services import report_exports_reap
from tco.models import PlanStatus
from tco.models import RepriceJob
from tco.models import RepriceStatus
from tco.models import RunKind
from tco.models import RunStatus
from tco.models import SweepChunk
from tco.services.plans import plan_create
from tco.services.plans import plans_reap
from tco.services.repricing import reprice_jobs_reap
from tco.services.runs import sweep_chunk_compute
from tco.services.runs import sweep_run_start
from tco.services.runs import sweep_runs_reap
from tests.catalog.test_refresh import FEED_SETTINGS
from tests.catalog.test_refresh import lambda_payload
from tests.faults.outages import kill
from tests.faults.test_database_outage import SAMPLE_PRICES
from tests.faults.test_database_outage import gated_feed  # noqa: F401
from tests.tco.test_plans_worker import SPEC as PLAN_SPEC
from tests.tco.test_runs_worker import PRICE
from tests.worker import poll_until

pytestmark = pytest.mark.worker

WAIT_S = 60
POLL_S = 0.01


@pytest.fixture(autouse=True)
def quick_reapers(settings):
    """The reapers run in this process: a worker has 1 s to say which jobs it holds, and a job
    still waiting is sent again at the next pass."""
    settings.JOBS_WORKER_REPLY_TIMEOUT_S = 1.0
    settings.JOBS_RESEND_PENDING_AFTER_S = 0


def wait_for(condition, what: str):
    return poll_until(condition, what, timeout_s=WAIT_S, poll_s=POLL_S)


def fresh(row):
    row.refresh_from_db()
    return row


def test_an_export_whose_worker_is_killed_mid_pdf_is_built_by_the_next_worker(
    start_worker, private_redis, scenario
):
    worker = start_worker()
    export = report_export_request(scenario=scenario, format="pdf")
    wait_for(lambda: fresh(export).status == ExportStatus.RUNNING, "building")
    assert export.worker == worker.name

    kill(worker, private_redis)
    assert fresh(export).status == ExportStatus.RUNNING  # and would stay so: nothing else re-queues it
    assert report_exports_reap().resent == [export.pk]
    start_worker()

    wait_for(lambda: fresh(export).is_finished, "finished")
    assert (export.status, export.attempts, export.error) == (ExportStatus.DONE, 2, "")
    assert export.file.read(5) == b"%PDF-"


def test_an_export_whose_message_a_redis_restart_lost_is_sent_again(start_worker, private_redis, scenario):
    export = report_export_request(scenario=scenario, format="xlsx")  # no worker yet
    private_redis.shutdown()
    private_redis.start()
    start_worker()
    time.sleep(1)
    assert fresh(export).status == ExportStatus.PENDING  # its message is gone

    assert report_exports_reap().resent == [export.pk]

    wait_for(lambda: fresh(export).is_finished, "finished")
    assert (export.status, export.attempts) == (ExportStatus.DONE, 2)


def test_a_plan_whose_worker_is_killed_while_solving_is_solved_by_the_next_worker(
    start_worker, private_redis, run_scenario
):
    worker = start_worker()
    plan = plan_create(scenario=run_scenario, name="growth", spec={**PLAN_SPEC, "uncertainty": None})
    wait_for(lambda: fresh(plan).status == PlanStatus.SOLVING, "solving")

    kill(worker, private_redis)
    assert fresh(plan).status == PlanStatus.SOLVING
    assert plans_reap().resent == [plan.pk]
    assert fresh(plan).status == PlanStatus.PENDING
    start_worker()

    wait_for(lambda: fresh(plan).status in (PlanStatus.DONE, PlanStatus.FAILED), "finished")
    assert (plan.status, plan.attempts, plan.error) == (PlanStatus.DONE, 2, "")
    assert plan.result["feasible"] is True


def test_a_refresh_whose_worker_is_killed_is_tried_again_as_a_new_job(
    start_worker, private_redis, catalog, gated_feed  # noqa: F811
):
    location, gate = gated_feed
    worker = start_worker()
    refresh_prices_task.apply_async(kwargs={"provider": "lambda", "location": location}, queue=Queue.REFRESH)
    first = wait_for(lambda: PriceRefreshJob.objects.filter(status=RefreshStatus.RUNNING).first(), "running")

    kill(worker, private_redis)  # while it waits for the feed
    gate.set()
    assert refresh_jobs_reap().resent == [first.pk]
    start_worker()

    second = wait_for(lambda: PriceRefreshJob.objects.exclude(pk=first.pk).filter(
        status=RefreshStatus.SUCCEEDED).first(), "a second job succeeded")
    first.refresh_from_db()
    assert (first.status, first.error_code, first.attempt) == (RefreshStatus.FAILED, "worker_lost", 1)
    assert first.error == "Its worker stopped before it finished (try 1 of 3); it was queued again."
    assert (second.attempt, second.location, second.prices_new) == (2, location, SAMPLE_PRICES)


def test_a_repricing_whose_message_a_redis_restart_lost_is_sent_again(
    start_worker, private_redis, catalog, tmp_path
):
    # The refresh runs here, as a worker would; it writes prices and queues their re-pricing.
    job = price_refresh_run(provider="lambda", location=str(lambda_payload(tmp_path / "day1.json")),
                            feed_settings=FEED_SETTINGS)
    assert job.prices_new == SAMPLE_PRICES
    reprice = RepriceJob.objects.get(refresh_job=job)
    private_redis.shutdown()
    private_redis.start()
    start_worker()

    assert reprice_jobs_reap().resent == [reprice.pk]

    wait_for(lambda: fresh(reprice).status == RepriceStatus.DONE, "re-priced")
    assert reprice.attempts == 2


def test_a_sweep_whose_summarising_was_lost_is_finished_by_a_resend(
    start_worker, private_redis, run_scenario, monkeypatch
):
    spec = {"axes": [{"path": PRICE, "low": 20, "high": 100, "count": 400}]}
    run = sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP, spec=spec, chunk_size=100)
    for index in range(3):  # computed here, as a worker would
        sweep_chunk_compute(run_id=run.pk, index=index)

    def died(*args):
        raise SystemExit("the worker stopped while it summarised the run")

    # The task that counts the last chunk summarises the run: it stops while doing so.
    monkeypatch.setattr("tco.services.runs._summary", died)
    with pytest.raises(SystemExit):
        sweep_chunk_compute(run_id=run.pk, index=3)
    assert fresh(run).status == RunStatus.FINISHING
    private_redis.shutdown()  # the spare chunk messages are lost with it
    private_redis.start()
    start_worker()
    time.sleep(1)
    assert fresh(run).status == RunStatus.FINISHING

    assert sweep_runs_reap().finishers == [run.pk]

    wait_for(lambda: not fresh(run).is_active, "finished")
    assert (run.status, run.finish_attempts, run.summary is not None) == (RunStatus.DONE, 2, True)
    assert not SweepChunk.objects.filter(run=run).exclude(status="done").exists()


def test_a_sweep_chunk_whose_worker_is_killed_is_queued_again_at_the_next_pass(
    start_worker, private_redis, run_scenario
):
    worker = start_worker()
    # 192 x 1,024 x 1 = 196,608 points at 120 months: 3 chunks of 65,536, about a second each.
    spec = {"axes": [{"path": "utilisation", "low": 0.05, "high": 1, "count": 192},
                     {"path": PRICE, "low": 20, "high": 100, "count": 1_024},
                     {"path": "finance.horizon_months", "values": [120]}]}
    run = sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP, spec=spec, chunk_size=65_536)
    chunk = wait_for(lambda: SweepChunk.objects.filter(run=run, index=1, status="running").first(),
                     "computing chunk 1")
    assert chunk.worker == worker.name

    kill(worker, private_redis)
    # Not stalled long enough for the run's own rule (REQUEUE_STALLED_AFTER_S): the dead
    # worker's chunk alone is queued again, at once.
    assert sweep_runs_reap().requeued == {run.pk: [1]}
    start_worker()

    wait_for(lambda: not fresh(run).is_active, "finished")
    assert (run.status, run.chunks_done, run.chunks_total) == (RunStatus.DONE, 3, 3)
    assert SweepChunk.objects.get(run=run, index=1).attempts == 2
