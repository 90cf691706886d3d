"""Quote files imported as a job: the upload answers at once, the import runs on a worker (inline
here), all or nothing, with progress; the API shows a team's imports to its members only."""
from __future__ import annotations

import pytest
from django.urls import reverse

from catalog.importers import QuoteFileRejected
from catalog.models import PricePoint
from catalog.models import QuoteImport
from catalog.quote_imports import quote_import_request
from catalog.quote_imports import quote_import_run
from tests.catalog.quote_files import offering_rows
from tests.teams.members import member
from tests.teams.members import team


def test_a_2000_row_file_is_imported_whole_in_bulk_with_progress(catalog, django_assert_max_num_queries):
    job = quote_import_request(file_name="q.csv", content=offering_rows(2_000), team=None)

    # 2,000 rows: a few reads, 8 progress updates, 4 bulk inserts of 500 and 6 new sources (each
    # checked and saved); 72 measured. A query per row would be 2,000 (the old import made ~15 a row).
    with django_assert_max_num_queries(100):
        quote_import_run(import_id=job.pk)

    job.refresh_from_db()
    assert (job.status, job.rows_total, job.rows_checked, job.progress_percent) == ("done", 2_000, 2_000, 100)
    assert (job.prices_created, job.prices_unchanged, job.offerings_created) == (2_000, 0, 1)
    prices = PricePoint.objects.filter(offering__instance_type="p9.quote")
    assert prices.count() == 2_000
    assert str(prices.order_by("amount").last().amount) == "69.9900"  # 50.00 + 1,999 cents


def test_importing_the_same_file_again_writes_nothing_new(catalog):
    for _ in range(2):
        job = quote_import_request(file_name="q.csv", content=offering_rows(30), team=None)
        quote_import_run(import_id=job.pk)

    job.refresh_from_db()
    assert (job.prices_created, job.prices_unchanged, job.offerings_created) == (0, 30, 0)
    assert PricePoint.objects.filter(offering__instance_type="p9.quote").count() == 30


def test_a_file_with_bad_rows_writes_nothing_and_names_each_row(catalog):
    content = offering_rows(2_000, bad_rows={17: "-1", 1_999: "ten"})
    job = quote_import_request(file_name="q.csv", content=content, team=None)

    quote_import_run(import_id=job.pk)

    job.refresh_from_db()
    assert job.status == "failed"
    assert job.errors == [{"row": 17, "field": "amount", "reason": "must be greater than zero"},
                          {"row": 1_999, "field": "amount", "reason": "'ten' is not a number"}]
    assert job.error == "Nothing was imported: 2 bad rows (first: row 17, amount: must be greater than zero)."
    assert not PricePoint.objects.filter(offering__instance_type="p9.quote").exists()


def test_a_file_of_the_wrong_kind_is_refused_before_any_job_exists(catalog):
    with pytest.raises(QuoteFileRejected) as refused:
        quote_import_request(file_name="q.xlsx", content=b"kind,slug\n", team=None)

    assert str(refused.value) == ("file: not a readable XLSX file: it is not a zip archive, "
                                  "as every .xlsx file is")
    assert not QuoteImport.objects.exists()


def test_the_api_shows_a_teams_import_to_its_members_only(client, catalog):
    alpha = quote_import_request(file_name="alpha.csv", content=offering_rows(3), team=team("alpha"))
    quote_import_run(import_id=alpha.pk)
    url = reverse("quoteimport-detail", args=[alpha.pk])

    client.force_login(member("alice", of="alpha"))
    shown = client.get(url).json()
    client.force_login(member("bob", of="beta"))
    hidden = client.get(url)

    assert {key: shown[key] for key in ("file_name", "status", "progress_percent", "prices_created")} == {
        "file_name": "alpha.csv", "status": "done", "progress_percent": 100, "prices_created": 3}
    assert hidden.status_code == 404


def test_an_import_leaves_the_catalogs_revision_row_free_and_moves_it_once(transactional_db):
    import psycopg
    from django.db import connection
    from django.db import transaction

    from catalog.importers import parse_quote_file
    from catalog.models import CatalogRevision
    from catalog.services import catalog_load
    from catalog.services import quote_rows_import

    catalog_load()
    before = CatalogRevision.objects.get(pk=CatalogRevision.ROW).revision
    rows, errors = parse_quote_file(file_name="q.csv", content=offering_rows(2_000))  # 6 new sources
    other = psycopg.connect(**{k: v for k, v in connection.get_connection_params().items()
                               if k in ("dbname", "host", "port", "user", "password")}, autocommit=True)
    with transaction.atomic():
        quote_rows_import(rows=rows, errors=errors, team=None)
        # Another writer of the catalog (an exchange rate's save) takes the row while the import's
        # transaction is open; before, the import held it until its commit.
        with other.transaction():
            other.execute(f"SELECT revision FROM {CatalogRevision._meta.db_table} WHERE id = %s "
                          "FOR UPDATE NOWAIT", [CatalogRevision.ROW])
    other.close()
    assert CatalogRevision.objects.get(pk=CatalogRevision.ROW).revision == before + 1
