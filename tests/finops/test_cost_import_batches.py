"""A checked FOCUS file is written in batches, each committed on its own, and counts in the
variance only once the import is done; a refused file writes nothing; a re-run after a crash
mid-batches writes from the first row no batch committed, so every row is there once.

Transactional: the batches really commit; the variance is read between them. A job is saved as
the upload saves it (whose send would run the task at once here, outside any transaction) and run
in the test, as its worker would."""
from __future__ import annotations

from datetime import date
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from core.file_imports import FILE_IMPORT_TIME_LIMIT_S
from core.file_imports import queued
from finops.cost_imports import cost_import_run
from finops.cost_imports import cost_imports_reap
from finops.focus_import import focus_file_screen
from finops.models import ActualCost
from finops.models import CostImport
from tests.teams.members import team

ROWS, BATCH = 10, 4  # batches of 4, 4 and 2 rows
HEADER = "BilledCost,BillingCurrency,ChargeCategory,ChargePeriodStart,ProviderName,SkuId\n"


def focus_rows(count: int = ROWS, bad: dict[int, str] | None = None) -> bytes:
    """``count`` US-dollar rows of January 2027: row n (the header is row 1) bills n dollars."""
    lines = [f"{(bad or {}).get(n, f'{n}.00')},USD,Usage,2027-01-{n:02d}T00:00:00Z,AWS,sku-{n}\n"
             for n in range(2, count + 2)]
    return (HEADER + "".join(lines)).encode()


def uploaded(content: bytes) -> CostImport:
    focus_file_screen("bill.csv", content)
    return CostImport.objects.create(team=team("alpha"), file_name="bill.csv", content=content, **queued())


@pytest.fixture
def batches_of_four(settings, transactional_db):
    settings.IMPORT_BATCH_ROWS = BATCH


def imported_costs(job) -> list[tuple[str, Decimal]]:
    return sorted(ActualCost.objects.filter(cost_import=job).values_list("sku_id", "billed_cost"))


def test_the_rows_are_all_written_in_batches_and_count_once_the_import_is_done(batches_of_four, monkeypatch):
    job = uploaded(focus_rows())
    create = ActualCost.objects.bulk_create
    counted = []  # as each batch begins: the file's rows written, and those the variance reads

    def look_then_create(rows, *args, **kwargs):
        counted.append((ActualCost.objects.filter(cost_import=job).count(),
                        ActualCost.objects.filter(team=job.team, cost_import__status="done").count()))
        return create(rows, *args, **kwargs)

    monkeypatch.setattr(ActualCost.objects, "bulk_create", look_then_create)
    cost_import_run(import_id=job.pk)

    job.refresh_from_db()
    assert counted == [(0, 0), (4, 0), (8, 0)]  # written, but counted nowhere until done
    assert (job.status, job.rows_total, job.rows_written, job.progress_percent) == ("done", ROWS, ROWS, 100)
    assert job.billed_usd == sum(range(2, ROWS + 2)) == 65
    assert imported_costs(job) == sorted((f"sku-{n}", Decimal(n)) for n in range(2, ROWS + 2))
    assert ActualCost.objects.filter(month=date(2027, 1, 1), cost_import__status="done").count() == ROWS


def test_a_refused_file_writes_no_batch(batches_of_four):
    job = uploaded(focus_rows(bad={9: "1e30"}))

    cost_import_run(import_id=job.pk)

    job.refresh_from_db()
    assert (job.status, job.rows_written) == ("failed", 0)
    assert job.errors == [{"row": 9, "field": "BilledCost", "reason": "1e30 is more than 1,000,000,000,000"}]
    assert not ActualCost.objects.exists()


def test_a_rerun_after_a_crash_mid_batches_writes_every_row_once(batches_of_four, monkeypatch):
    job = uploaded(focus_rows())
    create = ActualCost.objects.bulk_create
    batches = []

    def crash_in_the_second_batch(rows, *args, **kwargs):
        batches.append(rows)
        if len(batches) == 2:
            raise RuntimeError("the worker was killed")
        return create(rows, *args, **kwargs)

    monkeypatch.setattr(ActualCost.objects, "bulk_create", crash_in_the_second_batch)
    with pytest.raises(RuntimeError):
        cost_import_run(import_id=job.pk)
    job.refresh_from_db()
    assert (job.status, job.rows_written) == ("running", BATCH)
    assert imported_costs(job) == sorted((f"sku-{n}", Decimal(n)) for n in range(2, BATCH + 2))

    monkeypatch.setattr(ActualCost.objects, "bulk_create", create)
    later = timezone.now() + timedelta(seconds=FILE_IMPORT_TIME_LIMIT_S + 1)
    assert cost_imports_reap(now=later).resent == [job.pk]  # the task runs inline here

    job.refresh_from_db()
    assert (job.status, job.attempts, job.rows_written) == ("done", 2, ROWS)
    assert imported_costs(job) == sorted((f"sku-{n}", Decimal(n)) for n in range(2, ROWS + 2))
    assert CostImport.objects.count() == 1
