"""The reapers' limits: a job is sent at most ``JOBS_MAX_ATTEMPTS`` times, then failed with why;
a job asked for while the broker is down is kept for the reaper instead of failing the caller.

A worker named on a job but not answering is one that was killed: nothing runs under that name.
"""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from catalog.models import PriceRefreshJob
from catalog.models import QuoteImport
from catalog.models import RefreshStatus
from catalog.quote_imports import QUOTE_IMPORT_JOBS
from catalog.refresh.recovery import refresh_jobs_reap
from core import jobs
from core.file_imports import ImportStatus
from reports.choices import ExportStatus
from reports.choices import FailureType
from reports.models import ReportExport
from reports.services import report_export_request
from reports.services import report_exports_reap
from tco.models import ChunkStatus
from tco.models import RunKind
from tco.models import RunStatus
from tco.models import SweepChunk
from tco.services.runs import sweep_run_start
from tco.services.runs import sweep_runs_reap
from tests.faults.outages import broker
from tests.faults.outages import free_port
from tests.tco.test_runs_worker import PRICE

GONE = {"worker": "killed@nowhere", "task_id": "0f0e0d0c-lost"}


@pytest.fixture(autouse=True)
def quick_reaper(settings):
    settings.JOBS_WORKER_REPLY_TIMEOUT_S = 0.2


def running_export(scenario, attempts: int) -> ReportExport:
    export = report_export_request(scenario=scenario, format="pdf")
    ReportExport.objects.filter(pk=export.pk).update(
        status=ExportStatus.RUNNING, started_at=timezone.now(), attempts=attempts, **GONE)
    return export


def test_an_export_whose_worker_is_gone_is_sent_again_while_tries_are_left(scenario):
    export = running_export(scenario, attempts=2)

    assert report_exports_reap().resent == [export.pk]

    export.refresh_from_db()
    assert (export.status, export.attempts) == (ExportStatus.PENDING, 3)
    assert (export.worker, export.task_id) == ("", "")


def test_an_export_whose_worker_died_on_its_third_try_is_failed_with_why(scenario):
    export = running_export(scenario, attempts=3)

    assert report_exports_reap().failed == [export.pk]

    export.refresh_from_db()
    assert (export.status, export.failure_type) == (ExportStatus.FAILED, FailureType.SYSTEM)
    assert export.error == "Not finished: the worker running it stopped 3 times (restarted or out of memory)."


def test_an_export_no_worker_took_in_three_tries_is_failed_naming_the_queue(scenario, settings):
    export = report_export_request(scenario=scenario, format="xlsx")
    ReportExport.objects.filter(pk=export.pk).update(attempts=3)
    later = timezone.now() + timedelta(seconds=settings.JOBS_RESEND_PENDING_AFTER_S + 1)

    assert report_exports_reap(now=timezone.now()).failed == []  # sent just now: it may be queued
    assert report_exports_reap(now=later).failed == [export.pk]

    export.refresh_from_db()
    assert export.error == ("Not finished: no worker took it in 3 tries "
                            "(is a worker consuming the reports queue?).")


def test_a_job_whose_task_gave_up_is_failed_with_why_unless_it_is_done(db):
    waiting = QuoteImport.objects.create(file_name="quotes.csv", content=b"")
    imported = QuoteImport.objects.create(file_name="done.csv", content=b"", status=ImportStatus.DONE)

    for job in (waiting, imported):
        jobs.fail(QUOTE_IMPORT_JOBS, job.pk, "Nothing was imported: the import stopped (OperationalError).")

    waiting.refresh_from_db()
    imported.refresh_from_db()
    assert (waiting.status, waiting.error) == (
        ImportStatus.FAILED, "Nothing was imported: the import stopped (OperationalError).")
    assert waiting.finished_at is not None
    assert (imported.status, imported.error, imported.finished_at) == (ImportStatus.DONE, "", None)


def test_a_refresh_whose_worker_died_on_its_third_try_is_not_tried_again(catalog):
    job = PriceRefreshJob.objects.create(provider="lambda", location="/data/lambda.json",
                                         started_at=timezone.now(), attempt=3, **GONE)

    reaped = refresh_jobs_reap()

    assert (reaped.resent, reaped.failed) == ([], [job.pk])
    job.refresh_from_db()
    assert (job.status, job.error_code) == (RefreshStatus.FAILED, "worker_lost")
    assert job.error == "Its worker stopped before it finished (try 3 of 3); it was not tried again."


def test_a_run_whose_chunk_was_started_three_times_is_failed_with_why(run_scenario):
    spec = {"axes": [{"path": PRICE, "values": [40, 50, 60, 70]}]}
    run = sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP, spec=spec, chunk_size=2)
    SweepChunk.objects.filter(run=run, index=1).update(
        status=ChunkStatus.RUNNING, claimed_at=timezone.now(), attempts=3, **GONE)

    assert sweep_runs_reap().failed == [run.pk]

    run.refresh_from_db()
    assert (run.status, run.failure_type) == (RunStatus.FAILED, "system")
    assert run.error == ("chunk 1 was started 3 times and its worker stopped each time "
                         "(restarted or out of memory)")


def test_an_export_asked_for_while_the_broker_is_down_waits_for_the_reaper(
    transactional_db, live_celery, scenario
):
    saved = live_celery.conf.task_publish_retry_policy
    live_celery.conf.task_publish_retry_policy = {"max_retries": 1, "interval_start": 0}
    try:
        with broker(live_celery, f"redis://127.0.0.1:{free_port()}/0"):  # nothing listens there
            export = report_export_request(scenario=scenario, format="xlsx")
    finally:
        live_celery.conf.task_publish_retry_policy = saved

    export.refresh_from_db()
    assert (export.status, export.attempts) == (ExportStatus.PENDING, 1)
