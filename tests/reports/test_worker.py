"""Exports through a real Celery worker process on Redis, on the reports queue.

The worker loads config.settings.base (not the test settings, whose eager mode would run tasks
inline), pointed at the test database, the test Redis database and the test's media folder.
"""

from __future__ import annotations

import datetime as dt
import time

import pytest
from django.conf import settings
from openpyxl import load_workbook

from core.queues import Queue
from reports.choices import ExportStatus
from reports.choices import FailureType
from reports.models import ReportExport
from reports.services import report_export_request
from tests.worker import WorkerProcess

pytestmark = pytest.mark.worker

WAIT_S = 60


@pytest.fixture
def reports_worker(transactional_db, live_celery, media):
    """A worker that listens on the reports queue only, as a deployment's report workers do."""
    live_celery.control.purge()
    worker = WorkerProcess(
        queues=(Queue.REPORTS,),
        broker_env={
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "REDIS_URL": settings.REDIS_URL,
            "DJANGO_MEDIA_ROOT": str(media),
        },
    ).start()
    yield worker
    worker.stop()


def finished(export: ReportExport) -> ReportExport:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        export.refresh_from_db()
        if export.is_finished:
            return export
        time.sleep(0.1)
    raise AssertionError(f"export {export.pk} still {export.status} after {WAIT_S}s")


def test_a_worker_builds_exports_and_fails_the_one_that_cannot_be_evaluated(reports_worker, scenario, media):
    good = report_export_request(scenario=scenario, format="xlsx")
    bad = report_export_request(scenario=scenario, format="pdf", prices_as_of=dt.date(2000, 1, 1))

    good, bad = finished(good), finished(bad)

    assert good.status == ExportStatus.DONE, good.error
    assert good.build_seconds > 0
    assert load_workbook(media / good.file.name)["Summary"]["B4"].value == scenario.name
    assert (bad.status, bad.failure_type, bad.file.name) == (ExportStatus.FAILED, FailureType.USER, "")
    assert "no price for AWS p5.48xlarge (8x H100 SXM5 80 GB)" in bad.error
    assert [path.name for path in media.rglob("*.*")] == [good.file.name.rsplit("/", 1)[-1]]
