"""Run services with eager Celery: start, chunk idempotency, finishing once, cancel, reaper."""
from __future__ import annotations

from datetime import timedelta

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import redis
from django.conf import settings
from django.core.files.storage import default_storage
from django.utils import timezone
from numpy.testing import assert_allclose
from numpy.testing import assert_array_equal

import costmodel as engine
from core import jobs
from core.queues import Queue
from core.signals import job_finished
from tco.models import ChunkStatus
from tco.models import FailureType
from tco.models import RunKind
from tco.models import RunStatus
from tco.models import SweepChunk
from tco.models import SweepRun
from tco.runs.errors import RunSpecError
from tco.runs.limits import REQUEUE_STALLED_AFTER_S
from tco.runs.limits import RUN_STALL_DEADLINE_S
from tco.runs.limits import chunks_in_flight
from tco.runs.results import part_bytes
from tco.runs.results import part_save
from tco.services.engine_inputs import engine_case
from tco.services.runs import _store_chunk
from tco.services.runs import sweep_chunk_compute
from tco.services.runs import sweep_run_cancel
from tco.services.runs import sweep_run_start
from tco.services.runs import sweep_runs_reap
from tco.tasks import sweep_chunk_task
from tests.tco.run_results import result_frame

# Chunks queued at once per run and per team, with the default 2 sweeps worker processes: 4.
PLACES = chunks_in_flight(2)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media")]

PRICE = "rent.0.price_usd_per_instance_hour"
SAVING = "p5 on demand: npv_saving_usd"
BREAKEVEN = "p5 on demand: breakeven_month"


def start(scenario, kind, spec, **kwargs) -> SweepRun:
    """Start a run and let every queued task run inline, as eager Celery does on commit."""
    from django.test import TestCase

    with TestCase.captureOnCommitCallbacks(execute=True):
        run = sweep_run_start(scenario=scenario, kind=kind, spec=spec, **kwargs)
    run.refresh_from_db()
    return run




def test_a_sweep_runs_to_done_with_hand_checkable_figures(run_scenario):
    spec = {"axes": [{"path": PRICE, "values": [20, 50]},
                     {"path": "electricity_usd_per_kwh", "values": [0.1, 0.2]}]}

    run = start(run_scenario, RunKind.SWEEP, spec, chunk_size=1)

    assert (run.status, run.progress, run.chunks_done, run.chunks_total) == (RunStatus.DONE, 100, 4, 4)
    frame = result_frame(run)
    # At u = 1: buy $400,000 + 10.2 kW x 730 h x e a month; rent 730 h x price a month.
    # Breakeven: first m with 400,000 + 7,446 e m <= 730 price m:
    # $20, $0.1 -> 400,000 / 13,855.4 = 28.9 -> 29; $20, $0.2 -> 400,000 / 13,110.8 = 30.5 -> 31;
    # $50, $0.1 -> 400,000 / 35,755.4 = 11.2 -> 12; $50, $0.2 -> 400,000 / 35,010.8 = 11.4 -> 12.
    assert_array_equal(frame[BREAKEVEN], [29, 31, 12, 12])
    # NPV saving at $50, $0.1, no discounting: 36 x 36,500 - (400,000 + 36 x 744.60) = 887,194.40.
    assert_allclose(frame[SAVING].iloc[2], 887_194.40)
    assert run.summary["options"]["p5 on demand"]["breakeven_month"] == {
        "min": 12.0, "max": 31.0, "never_share": 0.0}
    assert run.summary["heatmap"]["breakeven_month"]["p5 on demand"] == [[29.0, 12.0], [31.0, 12.0]]
    # Each chunk's part is stored once, where it stays: nothing is assembled or copied.
    parts = list(SweepChunk.objects.filter(run=run).order_by("index").values_list("result_name", flat=True))
    assert [default_storage.exists(name) for name in parts] == [True] * 4
    assert run.result_bytes == sum(default_storage.size(name) for name in parts)


def test_a_sweep_matches_the_engine_called_directly(run_scenario):
    spec = {"axes": [{"path": "utilisation", "start": 0.2, "stop": 1, "step": 0.1},
                     {"path": "electricity_usd_per_kwh", "low": 0.05, "high": 0.25, "count": 5}]}

    run = start(run_scenario, RunKind.SWEEP, spec, chunk_size=7)

    frame = result_frame(run)
    utilisation, price = np.meshgrid(0.2 + 0.1 * np.arange(9), np.linspace(0.05, 0.25, 5), indexing="ij")
    grid = {"workload.utilisation": utilisation.ravel(), "facility.electricity_usd_per_kwh": price.ravel()}
    direct = engine.evaluate(engine.with_overrides(engine_case(run_scenario).inputs, grid), detail=False)
    assert run.chunks_total == 7  # 45 points in chunks of 7
    assert_array_equal(frame["point"], np.arange(45))
    assert_allclose(frame[SAVING], direct.rent[0].npv_saving_usd)
    assert_allclose(frame[BREAKEVEN], direct.rent[0].breakeven_month)


def test_the_same_seed_gives_the_same_monte_carlo_whatever_the_chunk_size(run_scenario):
    spec = {"samples": 20_000, "distributions": [
        {"path": "utilisation", "kind": "triangular", "low": 0.3, "mode": 0.6, "high": 1},
        {"path": PRICE, "kind": "normal", "mean": 50, "sd": 10, "low": 20, "high": 90}]}

    one_chunk = start(run_scenario, RunKind.MONTE_CARLO, spec, seed=11, chunk_size=24_576)
    three_chunks = start(run_scenario, RunKind.MONTE_CARLO, spec, seed=11, chunk_size=8_192)

    assert (one_chunk.chunks_total, three_chunks.chunks_total) == (1, 3)
    assert one_chunk.summary == three_chunks.summary
    pd.testing.assert_frame_equal(result_frame(one_chunk), result_frame(three_chunks))
    option = one_chunk.summary["options"]["p5 on demand"]
    saving = result_frame(one_chunk)[SAVING].to_numpy()
    assert option["buy_wins_probability"] == np.mean(saving > 0)
    assert_allclose([option["npv_saving_usd"][p] for p in ("p10", "p50", "p90")],
                    np.percentile(saving, [10, 50, 90]))
    assert sum(option["histogram"]["counts"]) == 20_000


def test_a_monte_carlo_without_a_seed_gets_one_and_stores_it(run_scenario):
    spec = {"samples": 10,
            "distributions": [{"path": "utilisation", "kind": "uniform", "low": 0.5, "high": 1}]}

    run = start(run_scenario, RunKind.MONTE_CARLO, spec)

    assert run.seed is not None
    assert run.summary["seed"] == run.seed


def test_a_sensitivity_run_ranks_inputs_by_swing(run_scenario):
    run = start(run_scenario, RunKind.SENSITIVITY, {"step_share": 0.1, "paths": ["utilisation", PRICE]})

    rows = run.summary["rows"]
    # Utilisation 1 can only move down (to 0.9) while the price moves +/-10 %. The on-demand
    # instance is billed for every hour held (issue 23's default; it was billed for the hours
    # used, when moving u to 0.9 also saved 131,400 of rent), so rent is 36 x 730 x price and the
    # price's swing is 36 x 730 x (55 - 45) = 262,800. Moving u from 1 to 0.9 saves only buying's
    # energy, 36 x 730 h x 0.1 x 7.14 kW x $0.10 = 1,876.39.
    assert [row["path"] for row in rows] == [PRICE, "workload.utilisation"]
    assert_allclose([row["swing_usd"] for row in rows], [262_800, 1_876.392])


def test_it_refuses_a_bad_spec_before_anything_is_written_or_queued(run_scenario):
    from django.test import TestCase

    with TestCase.captureOnCommitCallbacks() as queued, pytest.raises(RunSpecError) as refused:
        sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP,
                        spec={"axes": [{"path": "workload.gpus", "values": [1, 2]}]})

    assert refused.value.field == "axes[0].path"
    assert SweepRun.objects.count() == 0
    assert queued == []


def test_it_refuses_a_chunk_larger_than_a_workers_memory_budget_for_its_rent_options(run_scenario):
    from decimal import Decimal

    from django.test import TestCase

    from tco.models import RentOption

    first = run_scenario.rent_options.get()
    for price in (60, 70):
        RentOption.objects.create(scenario=run_scenario, name=f"p5 at ${price}", offering=first.offering,
                                  price_usd_per_instance_hour=Decimal(price))
    spec = {"axes": [{"path": "utilisation", "low": 0.1, "high": 1, "count": 1_000},
                     {"path": "facility.electricity_usd_per_kwh", "low": 0.05, "high": 0.35, "count": 300}]}

    with TestCase.captureOnCommitCallbacks() as queued, pytest.raises(RunSpecError) as refused:
        sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP, spec=spec, chunk_size=262_144)

    # 268,435,456 B / (512 B + 3 options x 256 B) = 209,715 points.
    assert (refused.value.field, str(refused.value.message)) == (
        "chunk_size", "must be at most 209,715 for 3 rent options (a worker's memory budget for one chunk), "
                      "got 262,144")
    assert SweepRun.objects.count() == 0
    assert queued == []


def test_a_redelivered_chunk_is_written_and_counted_once(run_scenario):
    from django.test import TestCase

    with TestCase.captureOnCommitCallbacks():  # queue nothing: deliver by hand below
        run = sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP,
                              spec={"axes": [{"path": PRICE, "values": [50, 60, 70]}]}, chunk_size=1)
    sweep_chunk_compute(run_id=run.pk, index=0)
    first = SweepChunk.objects.get(run=run, index=0).result_name

    sweep_chunk_compute(run_id=run.pk, index=0)  # the broker hands the same message out again

    run.refresh_from_db()
    chunk = SweepChunk.objects.get(run=run, index=0)
    assert run.chunks_done == 1
    assert chunk.attempts == 1  # the second delivery saw DONE and did not compute
    assert chunk.result_name == first
    assert default_storage.listdir(f"runs/{run.pk}")[1] == [first.rsplit("/", 1)[1]]


def test_a_second_worker_finishing_the_same_chunk_late_changes_nothing(run_scenario):
    from django.test import TestCase

    with TestCase.captureOnCommitCallbacks():
        run = sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP,
                              spec={"axes": [{"path": PRICE, "values": [50, 60]}]}, chunk_size=1)
    sweep_chunk_compute(run_id=run.pk, index=0)
    stored = SweepChunk.objects.get(run=run, index=0).result_name
    # A second worker claimed it before the first one finished.
    second_copy, size = part_save(run.pk, 0, part_bytes(pa.table({"point": [0]})))

    _store_chunk(run.pk, 0, second_copy, size)

    run.refresh_from_db()
    assert run.chunks_done == 1
    assert run.progress == 49  # 1 of 2 chunks x 99 // 2
    assert SweepChunk.objects.get(run=run, index=0).result_name == stored
    assert default_storage.exists(stored)
    assert not default_storage.exists(second_copy)  # the loser deleted its own copy


def test_the_last_chunk_moves_the_run_to_done_exactly_once(run_scenario):
    from django.test import TestCase

    with TestCase.captureOnCommitCallbacks() as queued:
        run = sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP,
                              spec={"axes": [{"path": PRICE, "values": [50, 60]}]}, chunk_size=1)
    finished = []

    def heard(**kwargs):
        finished.append(kwargs["job_id"])

    job_finished.connect(heard)
    try:
        with TestCase.captureOnCommitCallbacks(execute=True) as sent:
            for index in (0, 1, 1, 0):
                sweep_chunk_compute(run_id=run.pk, index=index)
    finally:
        job_finished.disconnect(heard)

    run.refresh_from_db()
    assert len(queued) == 1  # one callback sending both chunks
    # The task that counted the last chunk summarised the run: no finisher was sent, and the run
    # was finished once however many deliveries.
    assert not sent
    assert finished == [run.pk]
    assert (run.status, run.chunks_done, run.progress) == (RunStatus.DONE, 2, 100)


def test_a_cancelled_run_stops_queuing_chunks(run_scenario):
    from django.test import TestCase

    with TestCase.captureOnCommitCallbacks() as first_wave:
        run = sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP,
                              spec={"axes": [{"path": PRICE, "values": list(range(40, 60))}]}, chunk_size=1)
    assert run.chunks_queued == PLACES  # 4 of 20 queued; the rest follow as chunks finish

    sweep_run_cancel(run=run)
    with TestCase.captureOnCommitCallbacks(execute=True) as more:
        for callback in first_wave:
            callback()  # the queued chunk tasks run after the cancel

    run.refresh_from_db()
    assert run.status == RunStatus.CANCELLED
    assert run.chunks_queued == PLACES
    assert run.chunks_done == 0
    assert more == []
    # Issue 25 finding 2: the rows of chunks no worker began are removed with the cancel.
    assert not SweepChunk.objects.filter(run=run).exists()


def test_a_task_that_gives_up_fails_the_run_as_a_system_error(run_scenario):
    from django.test import TestCase

    with TestCase.captureOnCommitCallbacks():
        run = sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP,
                              spec={"axes": [{"path": PRICE, "values": [50]}]})
    SweepChunk.objects.filter(run=run).delete()

    sweep_chunk_task.apply(args=(run.pk, 0), throw=False)

    run.refresh_from_db()
    assert (run.status, run.failure_type) == (RunStatus.FAILED, FailureType.SYSTEM)
    assert run.error.startswith("DoesNotExist")


def test_the_reaper_queues_again_the_chunks_of_a_stalled_run_once_per_stall(run_scenario):
    from django.test import TestCase

    with TestCase.captureOnCommitCallbacks():
        run = sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP,
                              spec={"axes": [{"path": PRICE, "values": [50, 60, 70]}]}, chunk_size=1)
    sweep_chunk_compute(run_id=run.pk, index=0)
    SweepChunk.objects.filter(run=run, index=1).update(status=ChunkStatus.RUNNING)  # its worker died
    later = timezone.now() + timedelta(seconds=REQUEUE_STALLED_AFTER_S + 1)

    with TestCase.captureOnCommitCallbacks() as requeued:
        report = sweep_runs_reap(now=later)
    again = sweep_runs_reap(now=later + timedelta(seconds=1))

    assert report.requeued == {run.pk: [1, 2]}
    assert len(requeued) == 1
    assert again.requeued == {}
    assert SweepChunk.objects.get(run=run, index=1).status == ChunkStatus.PENDING


def test_the_reaper_sends_again_a_chunk_sent_before_postgres_restarted_while_others_progress(run_scenario):
    from django.test import TestCase

    with TestCase.captureOnCommitCallbacks():
        run = sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP,
                              spec={"axes": [{"path": PRICE, "values": [50, 60, 70]}]}, chunk_size=1)
    # Chunk 1's task gave up while PostgreSQL was down; chunk 0 was stored after the restart.
    SweepChunk.objects.filter(run=run, index=1).update(
        queued_at=jobs.database_started_at() - timedelta(minutes=1))
    sweep_chunk_compute(run_id=run.pk, index=0)

    with TestCase.captureOnCommitCallbacks() as sent:
        report = sweep_runs_reap()
    again = sweep_runs_reap()

    assert report.requeued == {run.pk: [1]}
    assert len(sent) == 1
    assert again.requeued == {}
    assert SweepChunk.objects.get(run=run, index=1).status == ChunkStatus.PENDING


def test_the_reaper_finishes_a_run_whose_worker_died_right_after_its_last_chunk(run_scenario):
    from django.test import TestCase

    with TestCase.captureOnCommitCallbacks():
        run = sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP,
                              spec={"axes": [{"path": PRICE, "values": [50]}]})
    SweepRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING)
    name, size = part_save(run.pk, 0, part_bytes(pa.table({"point": [0]})))
    with TestCase.captureOnCommitCallbacks():  # ...and then the worker died before sending the finisher
        _store_chunk(run.pk, 0, name, size)

    with TestCase.captureOnCommitCallbacks() as finisher:
        sweep_runs_reap(now=timezone.now() + timedelta(seconds=REQUEUE_STALLED_AFTER_S + 1))

    run.refresh_from_db()
    assert run.status == RunStatus.FINISHING
    assert len(finisher) == 1


def test_the_reaper_fails_a_run_unfinished_past_its_deadline(run_scenario):
    from django.test import TestCase

    with TestCase.captureOnCommitCallbacks():
        run = sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP,
                              spec={"axes": [{"path": PRICE, "values": [50, 60]}]}, chunk_size=1)
    sweep_chunk_compute(run_id=run.pk, index=0)

    report = sweep_runs_reap(now=timezone.now() + timedelta(seconds=RUN_STALL_DEADLINE_S + 1))

    run.refresh_from_db()
    assert report.failed == [run.pk]
    assert (run.status, run.failure_type) == (RunStatus.FAILED, FailureType.TIMEOUT)
    assert "a worker died and nothing redelivered" in run.error


def test_chunk_tasks_go_to_the_sweeps_queue_so_they_never_starve_other_jobs(run_scenario, live_celery):
    from django.test import TestCase

    broker = redis.Redis.from_url(settings.REDIS_URL)
    broker.delete(Queue.SWEEPS, Queue.DEFAULT)
    try:
        with TestCase.captureOnCommitCallbacks(execute=True):  # sent to Redis: no eager run
            sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP,
                            spec={"axes": [{"path": PRICE, "values": list(range(40, 50))}]}, chunk_size=1)

        assert broker.llen(Queue.SWEEPS) == PLACES
        assert broker.llen(Queue.DEFAULT) == 0
    finally:
        broker.delete(Queue.SWEEPS)


def test_the_reaper_of_every_job_kind_is_scheduled_every_minute():
    from django_celery_beat.models import PeriodicTask

    reapers = PeriodicTask.objects.filter(name__contains="reap").order_by("name")

    assert [(task.name, task.task, task.interval.every, task.interval.period, task.queue, task.enabled)
            for task in reapers] == [
        (name, task, 60, "seconds", "default", True) for name, task in (
            ("catalog: reap lost refreshes and quote imports", "catalog.tasks.jobs_reap_task"),
            ("finops: reap lost cost imports", "finops.tasks.cost_imports_reap_task"),
            ("reports: reap lost exports", "reports.tasks.report_exports_reap_task"),
            ("sites: reap lost NetBox imports", "sites.tasks.netbox_imports_reap_task"),
            ("tco: reap lost plans and re-pricings", "tco.tasks.jobs_reap_task"),
            ("tco: reap stale runs", "tco.tasks.sweep_runs_reap_task"))]


@pytest.mark.parametrize(("waiting", "goes_on"), [(PLACES - 1, True), (PLACES, False)])
def test_counting_a_chunk_and_feeding_its_run_is_one_update_of_the_run(run_scenario, waiting, goes_on):
    from django.db import connection
    from django.test import TestCase
    from django.test.utils import CaptureQueriesContext

    from tco.services.runs import _queue_chunks

    with TestCase.captureOnCommitCallbacks():
        run = sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP, chunk_size=1,
                              spec={"axes": [{"path": PRICE, "values": list(range(20, 28))}]})
    SweepChunk.objects.filter(run=run, index=0).update(status=ChunkStatus.DONE)

    # Chunk 0 is counted with its 100-byte part; chunks 1 to 3 wait for a worker. Only when
    # the messages waiting can all be those three is the freed place's chunk 4 the caller's.
    with TestCase.captureOnCommitCallbacks() as sent, CaptureQueriesContext(connection) as statements:
        counted = _queue_chunks(run.pk, counted_bytes=100, waiting=waiting)

    run.refresh_from_db()
    assert (run.chunks_done, run.chunks_queued, run.result_bytes) == (1, PLACES + 1, 100)
    assert counted.next_index == (PLACES if goes_on else None)
    assert SweepChunk.objects.get(run=run, index=PLACES).status == (
        ChunkStatus.RUNNING if goes_on else ChunkStatus.PENDING)
    assert len(sent) == (0 if goes_on else 1)
    # The runs locked (with their waiting chunks counted), the count and the new place in one
    # UPDATE, the new chunk.
    verbs = [query["sql"].split()[0] for query in statements.captured_queries]
    assert verbs == ["SELECT", "UPDATE", "INSERT"]
