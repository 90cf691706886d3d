"""Runs through real Celery worker processes on Redis: results, a killed worker, a cancel.

The workers load config.settings.base (not the test settings, whose eager mode would make a
worker run the chunks it queues inline instead of sending them through Redis), pointed at the
test database, the test Redis database and a temporary media folder.
"""
from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from datetime import timedelta
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import redis
from django.conf import settings
from django.utils import timezone
from numpy.testing import assert_allclose
from numpy.testing import assert_array_equal

import costmodel as engine
from core.queues import Queue
from tco.models import ChunkStatus
from tco.models import RunKind
from tco.models import RunStatus
from tco.models import SweepChunk
from tco.models import SweepRun
from tco.runs.compute import monte_carlo_chunk_table
from tco.runs.limits import REQUEUE_STALLED_AFTER_S
from tco.runs.limits import chunks_in_flight
from tco.services.run_waits import sweep_run_wait
from tco.services.runs import run_inputs
from tco.services.runs import run_spec
from tco.services.runs import sweep_run_cancel
from tco.services.runs import sweep_run_start
from tco.services.runs import sweep_runs_reap
from tests.tco.run_results import result_frame
from tests.worker import WorkerProcess

# Chunks queued at once per run and per team, with the default 2 sweeps worker processes: 4.
PLACES = chunks_in_flight(2)

pytestmark = pytest.mark.worker

PRICE = "rent.0.price_usd_per_instance_hour"
SAVING = "p5 on demand: npv_saving_usd"
BREAKEVEN = "p5 on demand: breakeven_month"
WAIT_S = 60


@pytest.fixture
def start_worker(transactional_db, live_celery, settings, tmp_path):
    """Start worker processes on demand; all of them are stopped at the end."""
    settings.MEDIA_ROOT = tmp_path
    redis.Redis.from_url(settings.REDIS_URL).delete(*Queue)  # no message left from another test
    workers: list[WorkerProcess] = []

    def start(concurrency: int = 1) -> WorkerProcess:
        worker = WorkerProcess(broker_env={
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "REDIS_URL": settings.REDIS_URL,
            "DJANGO_MEDIA_ROOT": str(tmp_path),
        }, concurrency=concurrency).start()
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        worker.stop()


def wait_for(run: SweepRun, condition, what: str) -> SweepRun:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if condition(run):
            return run
        time.sleep(0.05)
    raise AssertionError(f"run {run.pk} did not reach '{what}' in {WAIT_S}s: {run.status}, "
                         f"{run.chunks_done}/{run.chunks_total} chunks, {run.error}")


def finished(run: SweepRun) -> SweepRun:
    """The run once it ended, as a client waits for it (woken by its changes)."""
    run = sweep_run_wait(run, timeout_s=WAIT_S)
    if run.is_active:
        raise AssertionError(f"run {run.pk} did not finish in {WAIT_S}s: {run.status}, "
                             f"{run.chunks_done}/{run.chunks_total} chunks")
    return run


def sweep_grid(run: SweepRun) -> dict[str, np.ndarray]:
    spec = run_spec(run.kind, run.spec, run_inputs(run))
    return spec.overrides(0, spec.points_total)


def test_a_sweep_through_a_worker_matches_the_engine_called_directly(start_worker, run_scenario):
    start_worker()
    spec = {"axes": [{"path": "utilisation", "start": 0.1, "stop": 1, "step": 0.01},
                     {"path": PRICE, "low": 20, "high": 100, "count": 50}]}

    run = finished(sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP, spec=spec, chunk_size=500))

    assert (run.status, run.progress, run.chunks_done, run.chunks_total) == (RunStatus.DONE, 100, 10, 10)
    frame = result_frame(run)
    direct = engine.evaluate(engine.with_overrides(run_inputs(run), sweep_grid(run)), detail=False)
    assert_array_equal(frame["point"], np.arange(4_550))  # 91 x 50 grid points, in order
    assert_allclose(frame[SAVING], direct.rent[0].npv_saving_usd)
    assert_allclose(frame[BREAKEVEN], direct.rent[0].breakeven_month)


def test_a_worker_logs_each_task_it_queues_once(start_worker, run_scenario):
    # Two chunks more than the places, and a second run of the team that waits for a place: the
    # worker queues the second run's chunk as the first chunk is stored, and then the first
    # run's two last chunks (a task goes on with its run's next chunk only when no other run's
    # chunk waits on the queue).
    first, second = (sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP, chunk_size=1,
                                     spec={"axes": [{"path": PRICE, "values": list(range(20, 20 + chunks))}]})
                     for chunks in (PLACES + 2, 1))
    worker = start_worker()
    finished(first), finished(second)

    entries = [json.loads(line) for line in worker.log_path.read_text().splitlines() if line.startswith("{")]
    queued = [entry["child_task_id"] for entry in entries if entry["event"] == "task_enqueued"]
    assert len(queued) == 3
    assert len(set(queued)) == 3
    computed = SweepChunk.objects.filter(run__in=[first, second]).values_list("task_id", flat=True)
    assert set(queued) <= set(computed)


def test_a_monte_carlo_through_a_worker_matches_the_engine_on_the_same_draws(start_worker, run_scenario):
    start_worker()
    spec = {"samples": 20_000, "distributions": [
        {"path": "utilisation", "kind": "triangular", "low": 0.3, "mode": 0.6, "high": 1},
        {"path": "electricity_usd_per_kwh", "kind": "lognormal", "median": 0.1, "sigma": 0.3},
        {"path": PRICE, "kind": "normal", "mean": 50, "sd": 10, "low": 20, "high": 90}]}

    run = finished(sweep_run_start(scenario=run_scenario, kind=RunKind.MONTE_CARLO, spec=spec, seed=2024,
                                   chunk_size=8_192))

    assert (run.status, run.chunks_total) == (RunStatus.DONE, 3)
    parsed = run_spec(run.kind, run.spec, run_inputs(run))
    # One call, no chunks.
    expected = monte_carlo_chunk_table(run_inputs(run), parsed, 2024, 0, 20_000).frame()
    pd.testing.assert_frame_equal(result_frame(run), expected)
    saving = expected[SAVING].to_numpy()
    option = run.summary["options"]["p5 on demand"]
    assert option["buy_wins_probability"] == np.mean(saving > 0)
    assert_allclose([option["npv_saving_usd"][p] for p in ("p10", "p50", "p90")],
                    np.percentile(saving, [10, 50, 90]))


def test_a_run_whose_worker_is_killed_still_finishes_with_the_same_result(start_worker, run_scenario):
    worker = start_worker()
    spec = {"axes": [{"path": "utilisation", "low": 0.05, "high": 1, "count": 200},
                     {"path": PRICE, "low": 20, "high": 100, "count": 100}]}
    run = sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP, spec=spec, chunk_size=1_000)
    wait_for(run, lambda r: r.chunks_done >= 3, "3 chunks done")

    worker.kill()
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING
    assert run.chunks_done < run.chunks_total
    # A SIGKILLed worker acknowledges nothing; Redis would hand its message out again only
    # after the one-hour visibility timeout. The reaper does it once the run has stalled.
    report = sweep_runs_reap(now=timezone.now() + timedelta(seconds=REQUEUE_STALLED_AFTER_S + 1))
    assert report.requeued[run.pk]
    redis.Redis.from_url(settings.REDIS_URL).delete("unacked", "unacked_index")  # the dead worker's
    start_worker()

    run = finished(run)
    assert (run.status, run.chunks_done, run.chunks_total) == (RunStatus.DONE, 20, 20)
    frame = result_frame(run)
    assert_array_equal(frame["point"], np.arange(20_000))  # every point once
    direct = engine.evaluate(engine.with_overrides(run_inputs(run), sweep_grid(run)), detail=False)
    assert_allclose(frame[SAVING], direct.rent[0].npv_saving_usd)
    assert_allclose(frame[BREAKEVEN], direct.rent[0].breakeven_month)
    assert not SweepChunk.objects.filter(run=run).exclude(status=ChunkStatus.DONE).exists()


def test_a_task_goes_on_with_its_runs_next_chunks_while_nothing_else_waits(start_worker, run_scenario):
    start_worker()
    # Two chunks more than the places; the one process takes chunk 0 while 1 to 3 wait.
    spec = {"axes": [{"path": PRICE, "values": list(range(20, 20 + PLACES + 2))}]}

    run = finished(sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP, spec=spec, chunk_size=1))

    assert (run.status, run.chunks_done) == (RunStatus.DONE, PLACES + 2)
    claims = dict(SweepChunk.objects.filter(run=run).values_list("index", "task_id"))
    # Chunk 0's task stored it and, only the run's own chunks waiting, went on with the two
    # chunks it freed places for: no message, no claim of their own.
    assert claims[PLACES] == claims[PLACES + 1] == claims[0]
    assert len({claims[index] for index in range(PLACES)}) == PLACES  # each from its own message
    assert set(SweepChunk.objects.filter(run=run).values_list("attempts", flat=True)) == {1}


def test_a_chunk_a_task_went_on_with_is_computed_again_when_its_message_is_handed_out_again(
        start_worker, run_scenario):
    worker = start_worker()
    # 384 x 1,024 x 1 = 393,216 points at 120 months: 6 chunks of 65,536, 0.5 to 1 s each.
    spec = {"axes": [{"path": "utilisation", "low": 0.05, "high": 1, "count": 384},
                     {"path": PRICE, "low": 20, "high": 100, "count": 1_024},
                     {"path": "finance.horizon_months", "values": [120]}]}
    run = sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP, spec=spec, chunk_size=65_536)
    wait_for(run, lambda r: r.chunks.filter(index=PLACES, status=ChunkStatus.RUNNING).exists(),
             "computing chunk 4")
    task_id = SweepChunk.objects.get(run=run, index=0).task_id

    # The pool process dies (out of memory, say): its worker hands the message of chunk 0 out
    # again, with the same task id, to the process it starts in its place.
    os.kill(pool_processes(worker)[0], signal.SIGKILL)

    run = finished(run)
    assert (run.status, run.chunks_done) == (RunStatus.DONE, 6)
    chunk = SweepChunk.objects.get(run=run, index=PLACES)
    assert (chunk.task_id, chunk.attempts) == (task_id, 2)  # taken up again by the same task
    assert SweepChunk.objects.get(run=run, index=0).attempts == 1  # counted: not computed again
    frame = result_frame(run)
    assert_array_equal(frame["point"], np.arange(393_216))  # every point once


def pool_processes(worker: WorkerProcess) -> list[int]:
    """The process ids of a worker's pool (the children of its main process)."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == worker.process.pid:
                children.append(int(stat.parent.name))
    return children


def test_a_cancelled_run_stops_queuing_chunks_on_a_live_worker(start_worker, run_scenario):
    start_worker()
    spec = {"axes": [{"path": "utilisation", "low": 0.05, "high": 1, "count": 200},
                     {"path": PRICE, "low": 20, "high": 100, "count": 100}]}
    run = sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP, spec=spec, chunk_size=1_000)
    wait_for(run, lambda r: r.chunks_done >= 2, "2 chunks done")

    sweep_run_cancel(run=run)
    queued_at_cancel = run.chunks_queued
    time.sleep(2)  # the chunks already queued are delivered and return at once

    run.refresh_from_db()
    assert run.status == RunStatus.CANCELLED
    assert run.chunks_queued == queued_at_cancel
    assert queued_at_cancel <= run.chunks_done + PLACES < run.chunks_total
    assert not SweepChunk.objects.filter(run=run, index__gte=queued_at_cancel).exists()
    assert not SweepChunk.objects.filter(run=run, status=ChunkStatus.PENDING).exists()
    assert run.summary is None
