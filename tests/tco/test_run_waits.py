"""A client waiting for a run is woken by the run's committed changes (PostgreSQL LISTEN/NOTIFY,
migration 0031), not by polling: the waits here would otherwise last until their timeout.

The run's row is changed from another thread, on its own connection, as a worker would."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.db import OperationalError
from django.db import connection
from django.db import transaction
from django.utils import timezone

from tco.models import RunKind
from tco.models import RunStatus
from tco.models import SweepRun
from tco.services import run_waits
from tco.services.run_waits import sweep_run_wait

pytestmark = pytest.mark.django_db(transaction=True)

# A wait that was not woken reads the row again only at this timeout.
TIMEOUT_S = 20.0


@pytest.fixture
def never_read_again(monkeypatch):
    """Without a notification the row would not be read again before the wait's timeout."""
    monkeypatch.setattr(run_waits, "LISTEN_AT_MOST_S", 3 * TIMEOUT_S)


@contextmanager
def woken() -> Iterator[None]:
    """Fails if the wait in the block ran to its timeout (so no notification woke it)."""
    start = time.monotonic()
    yield
    assert time.monotonic() - start < TIMEOUT_S / 2, "the wait ran to its timeout: nothing woke it"


@pytest.fixture
def run(run_scenario) -> SweepRun:
    """A pending run of 3 chunks that no worker computes: the tests move it by hand."""
    now = timezone.now()
    return SweepRun.objects.create(
        scenario=run_scenario, kind=RunKind.SWEEP, spec={}, engine_inputs={}, points_total=3,
        chunk_size=1, chunks_total=3, progressed_at=now, deadline_at=now + timedelta(hours=1))


def later(*steps: Callable[[], object], pause_s: float = 0.2) -> threading.Thread:
    """Run ``steps`` one after the other on another thread and connection, ``pause_s`` apart."""
    def work():
        try:
            for step in steps:
                time.sleep(pause_s)
                step()
        finally:
            connection.close()

    thread = threading.Thread(target=work)
    thread.start()
    return thread


def update(run: SweepRun, **fields) -> Callable[[], int]:
    return lambda: SweepRun.objects.filter(pk=run.pk).update(**fields)


def test_a_client_is_woken_when_the_run_ends(run, never_read_again):
    thread = later(update(run, status=RunStatus.DONE, progress=100))
    with woken():
        ended = sweep_run_wait(run, timeout_s=TIMEOUT_S)
    thread.join()
    assert (ended.status, ended.progress) == (RunStatus.DONE, 100)


def test_a_client_sees_each_chunk_counted_then_the_end(run, never_read_again):
    seen = []
    thread = later(*(update(run, status=RunStatus.RUNNING, chunks_done=done) for done in (1, 2, 3)),
                   update(run, status=RunStatus.FINISHING), update(run, status=RunStatus.DONE))
    with woken():
        sweep_run_wait(run, timeout_s=TIMEOUT_S, on_change=lambda r: seen.append((r.status, r.chunks_done)))
    thread.join()
    assert seen == [(RunStatus.PENDING, 0), (RunStatus.RUNNING, 1), (RunStatus.RUNNING, 2),
                    (RunStatus.RUNNING, 3), (RunStatus.FINISHING, 3), (RunStatus.DONE, 3)]


def test_a_change_of_other_fields_wakes_no_one(run):
    with connection.cursor() as cursor:
        cursor.execute(f"LISTEN tco_run_{run.pk}")
    SweepRun.objects.filter(pk=run.pk).update(progressed_at=timezone.now(), worker="w@host")
    assert list(connection.connection.notifies(timeout=0.5)) == []
    SweepRun.objects.filter(pk=run.pk).update(chunks_done=1)
    assert [note.channel for note in connection.connection.notifies(timeout=5, stop_after=1)] == [
        f"tco_run_{run.pk}"]


def test_a_wait_that_times_out_returns_the_run_still_active(run):
    waited = sweep_run_wait(run, timeout_s=0.3)
    assert waited.status == RunStatus.PENDING and waited.is_active


def test_a_client_waiting_for_a_run_that_is_deleted_is_told_so(run, never_read_again):
    thread = later(lambda: SweepRun.objects.filter(pk=run.pk).delete())
    with woken(), pytest.raises(SweepRun.DoesNotExist):
        sweep_run_wait(run, timeout_s=TIMEOUT_S)
    thread.join()


def test_inside_a_transaction_the_client_reads_the_row_as_it_polls(run, monkeypatch):
    # LISTEN would take effect only when the transaction commits: the wait polls instead.
    monkeypatch.setattr(run_waits, "POLL_EVERY_S", 0.05)
    thread = later(update(run, status=RunStatus.CANCELLED))
    with woken(), transaction.atomic():
        ended = sweep_run_wait(run, timeout_s=TIMEOUT_S)
    thread.join()
    assert ended.status == RunStatus.CANCELLED


def test_a_client_whose_database_connection_drops_gets_the_database_error(run, never_read_again):
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (backend,) = cursor.fetchone()

    def terminate():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [backend])

    thread = later(terminate)
    with woken(), pytest.raises(OperationalError):
        sweep_run_wait(run, timeout_s=TIMEOUT_S)
    thread.join()
    connection.close()  # the next test's queries open a new one
