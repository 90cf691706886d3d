"""The Celery application; configuration comes from Django settings (CELERY_*)."""
import logging.config
import os
import sys
from pathlib import Path

from celery import Celery
from celery import bootsteps
from celery.signals import after_task_publish
from celery.signals import before_task_publish
from celery.signals import setup_logging
from celery.signals import task_postrun
from celery.signals import task_prerun
from celery.signals import worker_init
from celery.signals import worker_process_init
from celery.signals import worker_ready
from celery.signals import worker_shutdown
from django_structlog.celery.steps import DjangoStructLogInitStep

from config.queues import Queue
from config.settings import COMMAND_LINE_DEFAULT

# A `celery` command (worker, beat) defaults to the settings manage.py defaults to
# (config/settings/__init__.py); the image sets production. Only there: the web server imports
# this module too (through config/__init__.py) and must keep its own default, production.
if Path(sys.argv[0]).name == "celery" or Path(sys.argv[0]).parent.name == "celery":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", COMMAND_LINE_DEFAULT)
# One BLAS thread per worker process: the engine is vectorised already, and several threads
# per process oversubscribe the cores that the worker processes share (measured by benchmarks).
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# The app is the current one only in the thread that made it; a thread of its own (each request
# of `manage.py runserver`) found none and made Celery's fallback app, whose broker is
# amqp://guest@localhost: its jobs were sent there and never reached this app's broker. As the
# default, every thread's shared tasks send through this app.
app.set_default()


class StructLogWorkerStep(DjangoStructLogInitStep):
    """Task ids on every log line of a task (django-structlog). What a process publishes is
    logged already by the app's own receiver (``DJANGO_STRUCTLOG_CELERY_ENABLED``): connected
    here too, every task a worker queued was logged twice."""

    def __init__(self, parent, **kwargs):
        super().__init__(parent, **kwargs)
        before_task_publish.disconnect(self.receiver.receiver_before_task_publish)
        after_task_publish.disconnect(self.receiver.receiver_after_task_publish)


app.steps["worker"].add(StructLogWorkerStep)


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


app.steps["worker"].add(SweepsHeartbeat)


@setup_logging.connect
def use_django_logging(**kwargs):
    """Workers log through the same structured configuration as the web process."""
    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)


@worker_init.connect
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


@worker_process_init.connect
def grow_heap_to_a_chunk(**kwargs):
    """Each pool process of a sweeps worker computes one largest chunk of nothing as it starts
    (~0.2 s), so its heap holds a chunk's memory before its first real chunk."""
    from tco.runs.limits import MAX_CHUNK_POINTS
    from tco.runs.rehearsal import rehearse_chunk

    if _serves_sweeps():
        rehearse_chunk(MAX_CHUNK_POINTS)


def _serves_sweeps() -> bool:
    return Queue.SWEEPS.value in app.amqp.queues.consume_from


@task_prerun.connect
@task_postrun.connect
def close_old_database_connections(task=None, **kwargs):
    """Before and after a task, close the database connection if it is broken or older than
    DATABASE_CONN_MAX_AGE, as Django does around a request; a task run eagerly (in a test's
    transaction) keeps it."""
    if task is not None and task.request.is_eager:
        return
    from django.db import close_old_connections

    close_old_connections()


# Where /healthz keeps the last worker ping (core/health.py).
WORKER_STATUS_KEY = "healthz:workers"


@worker_ready.connect
@worker_shutdown.connect
def forget_worker_status(**kwargs):
    """A worker came or went: the next /healthz pings instead of reading the kept status."""
    from django.core.cache import cache

    cache.delete(WORKER_STATUS_KEY)
