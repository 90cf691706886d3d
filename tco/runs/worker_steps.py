"""What a Celery worker does for sweep runs as it starts, lives and stops: installed by
``TcoConfig.ready`` (tco/apps.py), which a worker runs before its own start (Celery's Django
fixup sets Django up first), so the Celery app itself (config/celery_app.py) knows no app."""
from __future__ import annotations

import os

from celery import bootsteps
from celery import current_app
from celery.signals import worker_init
from celery.signals import worker_process_init

from core.queues import Queue


class SweepsHeartbeat(bootsteps.StartStopStep):
    """A worker of the sweeps queue says again every few seconds how many processes it has (the
    first time at worker_init, ``load_chunk_code``), and that it is gone when it stops: runs are
    cut and fed for the processes there are (tco/services/sweep_workers.py)."""

    requires = {"celery.worker.components:Timer"}

    def __init__(self, worker, **kwargs):
        super().__init__(worker, **kwargs)
        self.beat = None

    def start(self, worker):
        from tco.services.sweep_workers import HEARTBEAT_S
        from tco.services.sweep_workers import sweep_worker_here

        # The first time is said at worker_init, before any chunk is taken.
        if _serves_sweeps():
            self.beat = worker.timer.call_repeatedly(
                HEARTBEAT_S, sweep_worker_here, (worker.hostname, worker.concurrency))

    def stop(self, worker):
        from tco.services.sweep_workers import sweep_worker_gone

        if self.beat is not None:
            self.beat.cancel()
            sweep_worker_gone(worker.hostname)


def load_chunk_code(sender=None, **kwargs):
    """In the worker's main process, before it forks its pool: compute one small chunk of nothing,
    so that every pool process has the engine's compiled kernel and the tally loops loaded
    (tco/runs/rehearsal.py); a worker of the sweeps queue also says how many processes it has
    (tco/services/sweep_workers.py), keeps a chunk's freed memory for
    the next chunk (core/heap.py), which other workers would only hold on to, and encodes its
    chunks' parts on a thread of their own when it has fewer processes than the machine has
    cores (tco/runs/results.py)."""
    from core.heap import keep_freed_heap
    from tco.runs.limits import CHUNK_MEMORY_BUDGET_BYTES
    from tco.runs.rehearsal import rehearse_chunk
    from tco.runs.results import PartEncoder
    from tco.services.sweep_workers import sweep_worker_here

    if _serves_sweeps():
        sweep_worker_here(sender.hostname, sender.concurrency)
        keep_freed_heap(CHUNK_MEMORY_BUDGET_BYTES)
        PartEncoder.alongside_by_default = sender.concurrency < len(os.sched_getaffinity(0))
    rehearse_chunk(8_192)


def grow_heap_to_a_chunk(**kwargs):
    """Each pool process of a sweeps worker computes one largest chunk of nothing as it starts
    (~0.2 s), so its heap holds a chunk's memory before its first real chunk."""
    from tco.runs.limits import MAX_CHUNK_POINTS
    from tco.runs.rehearsal import rehearse_chunk

    if _serves_sweeps():
        rehearse_chunk(MAX_CHUNK_POINTS)


def _serves_sweeps() -> bool:
    return Queue.SWEEPS.value in current_app.amqp.queues.consume_from


def install() -> None:
    """Adds the heartbeat to the worker's steps and connects the start-up receivers; installing
    twice changes nothing (the steps are a set, the receivers have their uids)."""
    current_app.steps["worker"].add(SweepsHeartbeat)
    worker_init.connect(load_chunk_code, dispatch_uid="tco.runs.worker_steps.load_chunk_code")
    worker_process_init.connect(grow_heap_to_a_chunk,
                                dispatch_uid="tco.runs.worker_steps.grow_heap_to_a_chunk")
