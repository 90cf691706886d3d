"""Redis restarted in the middle of a sweep on a real worker: the run completes or fails with why.

The worker and this process use a private redis-server (tests/faults/outages.py), never the
machine's. A restart of it keeps nothing, like the machine's (``--save "" --appendonly no``):
every chunk message queued, or held unacknowledged by the worker, is lost.

The sweep has 6 chunks of 0.5 to 1 s each (65,536 points over 120 months); the first 4 are
queued at the start. The worker's one process takes chunk 0 and, as only the run's own chunks
wait on the queue, goes on with chunks 4 and 5 as it stores each chunk before them (no message);
then it takes chunks 1, 2 and 3 from the queue. A restart takes about 30 ms, far less than a
chunk.

A worker killed with SIGKILL in the middle of a sweep is tested in tests/tco/test_runs_worker.py
(test_a_run_whose_worker_is_killed_still_finishes_with_the_same_result).
"""
from __future__ import annotations

import time
from datetime import timedelta

import numpy as np
import pytest
from django.utils import timezone
from numpy.testing import assert_allclose
from numpy.testing import assert_array_equal

import costmodel as engine
from tco.models import ChunkStatus
from tco.models import RunKind
from tco.models import RunStatus
from tco.models import SweepChunk
from tco.models import SweepRun
from tco.runs.limits import REQUEUE_STALLED_AFTER_S
from tco.services.runs import run_inputs
from tco.services.runs import sweep_run_start
from tco.services.runs import sweep_runs_reap
from tests.tco.test_runs_worker import PRICE
from tests.tco.test_runs_worker import SAVING
from tests.tco.test_runs_worker import result_frame
from tests.tco.test_runs_worker import sweep_grid
from tests.worker import poll_until

pytestmark = pytest.mark.worker

WAIT_S = 40
POLL_S = 0.01
CHUNK_POINTS = 65_536
# 384 x 1,024 x 1 = 393,216 points at 120 months: 6 chunks.
SPEC = {"axes": [{"path": "utilisation", "low": 0.05, "high": 1, "count": 384},
                 {"path": PRICE, "low": 20, "high": 100, "count": 1_024},
                 {"path": "finance.horizon_months", "values": [120]}]}
POINTS = 393_216
CHUNKS = 6
# Every 64th point is checked against the engine called directly (all of them at once would
# take the engine about 3 GB).
CHECK_EVERY = 64
# A run has stalled when no chunk is computing and none finished for this long.
QUIET_S = 1.0


def wait_for(condition, what: str):
    return poll_until(condition, what, timeout_s=WAIT_S, poll_s=POLL_S)


def fresh(run: SweepRun) -> SweepRun:
    run.refresh_from_db()
    return run


def computing(run: SweepRun, index: int) -> bool:
    return SweepChunk.objects.filter(run=run, index=index, status=ChunkStatus.RUNNING).exists()


def stalled(run: SweepRun) -> SweepRun:
    """The run once it is still active but no chunk computes and none finished for ``QUIET_S``."""
    def quiet() -> bool:
        done = fresh(run).chunks_done
        time.sleep(QUIET_S)
        return (fresh(run).is_active and run.chunks_done == done
                and not SweepChunk.objects.filter(run=run, status=ChunkStatus.RUNNING).exists())

    wait_for(quiet, "stalled")
    return run


def finished(run: SweepRun) -> SweepRun:
    wait_for(lambda: not fresh(run).is_active, "finished")
    return run


def start_sweep(scenario) -> SweepRun:
    return sweep_run_start(scenario=scenario, kind=RunKind.SWEEP, spec=SPEC, chunk_size=CHUNK_POINTS)


def reap_as_if_stalled_long_enough() -> dict[int, list[int]]:
    """What the periodic reaper queues again once runs have stalled ``REQUEUE_STALLED_AFTER_S``."""
    return sweep_runs_reap(now=timezone.now() + timedelta(seconds=REQUEUE_STALLED_AFTER_S + 1)).requeued


def assert_complete_with_the_engines_result(run: SweepRun) -> None:
    assert (run.status, run.chunks_done, run.chunks_total) == (RunStatus.DONE, CHUNKS, CHUNKS)
    assert not SweepChunk.objects.filter(run=run).exclude(status=ChunkStatus.DONE).exists()
    frame = result_frame(run)
    assert_array_equal(frame["point"], np.arange(POINTS))  # every point once
    sample = {path: values[::CHECK_EVERY] for path, values in sweep_grid(run).items()}
    direct = engine.evaluate(engine.with_overrides(run_inputs(run), sample), detail=False)
    assert_allclose(frame[SAVING].to_numpy()[::CHECK_EVERY], direct.rent[0].npv_saving_usd)


def test_a_restart_while_a_chunk_computes_loses_the_queued_chunks_and_the_reaper_queues_them_again(
    start_worker, private_redis, run_scenario
):
    start_worker()
    run = start_sweep(run_scenario)
    wait_for(lambda: computing(run, 1), "computing chunk 1")
    assert fresh(run).chunks_done == 3  # 0, then 4 and 5, which its task went on with

    # Chunks 2 and 3 (queued at the start) wait in Redis: lost.
    private_redis.shutdown()
    private_redis.start()

    # Chunk 1 is stored (the worker reconnects for its next message); then nothing is left to
    # deliver.
    run = stalled(run)
    assert (run.status, run.chunks_done, run.chunks_queued) == (RunStatus.RUNNING, 4, CHUNKS)
    assert list(SweepChunk.objects.filter(run=run).exclude(status=ChunkStatus.DONE)
                .values_list("index", flat=True).order_by("index")) == [2, 3]
    assert reap_as_if_stalled_long_enough() == {run.pk: [2, 3]}
    assert_complete_with_the_engines_result(finished(run))


def test_a_chunk_that_finishes_while_redis_is_down_leaves_the_run_running_for_the_reaper(
    start_worker, private_redis, run_scenario
):
    worker = start_worker()
    run = start_sweep(run_scenario)
    wait_for(lambda: computing(run, 0), "computing chunk 0")

    private_redis.shutdown()
    # Chunk 0 is stored; with no broker to say what waits, its task does not go on but queues
    # chunk 4, which fails once Celery's publish retries (~10 s) run out and leaves the run as
    # it is instead of failing it.
    wait_for(lambda: "the reaper sends it again later" in worker.log_path.read_text(), "chunk 4 not sent")
    private_redis.start()

    run = stalled(run)
    assert (run.status, run.failure_type, run.error) == (RunStatus.RUNNING, "", "")
    assert (run.chunks_done, run.chunks_queued) == (1, 5)
    assert reap_as_if_stalled_long_enough() == {run.pk: [1, 2, 3, 4]}
    assert_complete_with_the_engines_result(finished(run))


def test_a_pending_run_whose_chunks_a_restart_lost_is_queued_again_by_the_reaper(
    start_worker, private_redis, run_scenario
):
    run = start_sweep(run_scenario)  # no worker yet, as when every worker is busy elsewhere
    private_redis.shutdown()  # its 4 queued chunks: lost
    private_redis.start()
    start_worker()

    run = stalled(run)
    assert (run.status, run.chunks_done, run.chunks_queued) == (RunStatus.PENDING, 0, 4)
    assert reap_as_if_stalled_long_enough() == {run.pk: [0, 1, 2, 3]}
    assert_complete_with_the_engines_result(finished(run))
