"""A checked quote file is written in batches, each committed on its own: every row lands, the
catalog's revision moves once at the end and its row is never held, a refused file writes
nothing, and a re-run after a crash mid-batches ends with the same prices, none twice.

Transactional: the batches really commit, and another connection looks in between them. A job is
saved as the upload saves it (whose send would run the task at once here, outside any transaction)
and run in the test, as its worker would."""
from __future__ import annotations

from datetime import timedelta

import psycopg
import pytest
from django.db import connection
from django.utils import timezone

from catalog.importers import quote_file_screen
from catalog.models import CatalogRevision
from catalog.models import PricePoint
from catalog.models import QuoteImport
from catalog.quote_imports import quote_import_run
from catalog.quote_imports import quote_imports_reap
from catalog.services import QuotesToWrite
from core.file_imports import FILE_IMPORT_TIME_LIMIT_S
from core.file_imports import queued
from tests.catalog.quote_files import offering_rows

ROWS, BATCH = 30, 7  # batches of 7, 7, 7, 7 and 2 rows


@pytest.fixture
def batches_of_seven(settings, transactional_db, catalog):
    settings.IMPORT_BATCH_ROWS = BATCH


def quote_prices():
    return PricePoint.objects.filter(offering__instance_type="p9.quote")


def revision() -> int:
    """The catalog's revision; 0 while its row is missing, as after another test's flush (a bump
    creates it at 1)."""
    row = CatalogRevision.objects.filter(pk=CatalogRevision.ROW).first()
    return row.revision if row else 0


def other_connection() -> psycopg.Connection:
    params = connection.get_connection_params()
    return psycopg.connect(**{key: params[key] for key in ("dbname", "host", "port", "user", "password")
                              if key in params}, autocommit=True)


def test_every_batch_commits_on_its_own_the_revision_row_stays_free_and_moves_once(
        batches_of_seven, monkeypatch):
    before = revision()
    job = uploaded(of_rows())
    seen = []  # what another connection reads as each batch begins
    write = QuotesToWrite.write

    def look_then_write(self, start, stop):
        with other_connection() as other, other.transaction():
            prices = other.execute(f"SELECT count(*) FROM {PricePoint._meta.db_table} WHERE offering_id IN "
                                   "(SELECT id FROM catalog_cloudoffering WHERE instance_type = 'p9.quote')")
            # An exchange rate's save takes the revision row: it is free between the batches.
            other.execute(f"SELECT revision FROM {CatalogRevision._meta.db_table} WHERE id = %s "
                          "FOR UPDATE NOWAIT", [CatalogRevision.ROW])
            seen.append((start, prices.fetchone()[0]))
        return write(self, start, stop)

    monkeypatch.setattr(QuotesToWrite, "write", look_then_write)
    quote_import_run(import_id=job.pk)

    job.refresh_from_db()
    assert seen == [(0, 0), (7, 7), (14, 14), (21, 21), (28, 28)]
    assert (job.status, job.rows_checked, job.rows_written, job.prices_created, job.prices_unchanged,
            job.offerings_created) == ("done", ROWS, ROWS, ROWS, 0, 1)
    assert quote_prices().count() == ROWS
    assert revision() == before + 1


def test_a_refused_file_writes_no_batch(batches_of_seven):
    before = revision()
    job = uploaded(of_rows(bad_rows={25: "-1"}))

    quote_import_run(import_id=job.pk)

    job.refresh_from_db()
    assert (job.status, job.rows_written) == ("failed", 0)
    assert job.errors == [{"row": 25, "field": "amount", "reason": "must be greater than zero"}]
    assert not quote_prices().exists() and revision() == before


def test_a_rerun_after_a_crash_mid_batches_ends_with_every_price_once(batches_of_seven, monkeypatch):
    job = uploaded(of_rows())
    write = QuotesToWrite.write

    def crash_in_the_third_batch(self, start, stop):
        if start == 2 * BATCH:
            raise RuntimeError("the worker was killed")
        return write(self, start, stop)

    monkeypatch.setattr(QuotesToWrite, "write", crash_in_the_third_batch)
    with pytest.raises(RuntimeError):
        quote_import_run(import_id=job.pk)
    job.refresh_from_db()
    assert (job.status, job.rows_written, job.prices_created, quote_prices().count()) == (
        "running", 14, 14, 14)  # two batches committed, the third rolled back

    monkeypatch.setattr(QuotesToWrite, "write", write)
    # The reaper finds the job's run lost (inline, past the hard limit) and sends it again; the
    # task runs inline here.
    later = timezone.now() + timedelta(seconds=FILE_IMPORT_TIME_LIMIT_S + 1)
    assert quote_imports_reap(now=later).resent == [job.pk]

    job.refresh_from_db()
    assert (job.status, job.attempts, job.rows_written) == ("done", 2, ROWS)
    # The counts moved with each batch's commit: the second attempt found 14 prices recorded.
    assert (job.prices_created, job.prices_unchanged, job.offerings_created) == (ROWS, 0, 1)
    assert quote_prices().count() == ROWS
    assert len(set(quote_prices().values_list("as_of", "amount", "source_id"))) == ROWS
    assert QuoteImport.objects.count() == 1


def of_rows(**kwargs) -> bytes:
    return offering_rows(ROWS, **kwargs)


def uploaded(content: bytes) -> QuoteImport:
    quote_file_screen(file_name="q.csv", content=content)
    return QuoteImport.objects.create(file_name="q.csv", content=content, **queued())
