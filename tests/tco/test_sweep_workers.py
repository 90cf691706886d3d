"""Runs are cut and fed for the sweeps worker processes there are, counted as workers come and go."""
from __future__ import annotations

import time

import pytest

from tco.models import RunKind
from tco.services.runs import sweep_run_start
from tco.services.sweep_workers import FORGET_AFTER_S
from tco.services.sweep_workers import sweep_worker_gone
from tco.services.sweep_workers import sweep_worker_here
from tco.services.sweep_workers import sweep_worker_processes
from tests.tco.test_runs_worker import PRICE
from tests.tco.test_runs_worker import start_worker  # noqa: F401
from tests.worker import poll_until


def test_the_processes_of_the_workers_heard_of_are_added_up(settings, monkeypatch):
    settings.SWEEP_WORKER_PROCESSES = 7
    assert sweep_worker_processes() == 7  # none heard of: the setting

    sweep_worker_here("sweeps@a", 3)
    sweep_worker_here("sweeps@b", 2)
    sweep_worker_here("sweeps@b", 2)  # a heartbeat
    assert sweep_worker_processes() == 5

    sweep_worker_gone("sweeps@a")
    assert sweep_worker_processes() == 2

    # Silent for three heartbeats: gone.
    later = time.time() + FORGET_AFTER_S + 1
    monkeypatch.setattr("tco.services.sweep_workers.time.time", lambda: later)
    assert sweep_worker_processes() == 7


def test_without_redis_the_setting_is_the_count(settings):
    settings.SWEEP_WORKER_PROCESSES = 3
    settings.REDIS_URL = ""

    sweep_worker_here("sweeps@a", 8)

    assert sweep_worker_processes() == 3


@pytest.mark.worker
def test_a_run_is_cut_and_fed_for_the_processes_of_the_live_workers(start_worker, run_scenario,  # noqa: F811
                                                                     settings):
    settings.SWEEP_WORKER_PROCESSES = 2
    worker = start_worker(concurrency=3)
    poll_until(lambda: sweep_worker_processes() == 3, "the worker's processes counted", timeout_s=30)

    spec = {"axes": [{"path": PRICE, "low": 20, "high": 90, "count": 120_000}]}
    run = sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP, spec=spec)

    # 120,000 points / (3 processes x 4 chunks each) = 10,000 points a chunk; two a process
    # queued (a chunk counted as done has had its place taken by the next).
    assert (run.chunk_size, run.chunks_total, run.chunks_queued - run.chunks_done) == (10_000, 12, 6)
    worker.stop()
    assert sweep_worker_processes() == 2  # a stopped worker says it is gone
