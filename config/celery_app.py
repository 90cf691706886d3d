"""The Celery application; configuration comes from Django settings (CELERY_*)."""
import logging.config
import os
import sys
from pathlib import Path

from celery import Celery
from celery.signals import after_task_publish
from celery.signals import before_task_publish
from celery.signals import setup_logging
from celery.signals import task_postrun
from celery.signals import task_prerun
from celery.signals import worker_ready
from celery.signals import worker_shutdown
from django_structlog.celery.steps import DjangoStructLogInitStep

from config.settings import COMMAND_LINE_DEFAULT
from core.health import WorkerHeartbeat

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
# What a worker does for sweep runs as it starts (heartbeat, warm-up) is tco's own:
# tco/runs/worker_steps.py, installed by tco's AppConfig.
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
# On the filesystem broker, the heartbeat /healthz counts workers by.
app.steps["worker"].add(WorkerHeartbeat)


@setup_logging.connect
def use_django_logging(**kwargs):
    """Workers log through the same structured configuration as the web process."""
    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)


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


@worker_ready.connect
@worker_shutdown.connect
def forget_worker_status(**kwargs):
    """A worker came or went: the next /healthz pings instead of reading the kept status."""
    from django.core.cache import cache

    from core.health import WORKER_STATUS_KEY

    cache.delete(WORKER_STATUS_KEY)
