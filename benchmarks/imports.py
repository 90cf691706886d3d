"""Long imports through their real tasks (issue 44, findings 3 and 5): a 100,000-row quote file
and a 200,000-row FOCUS cost file, each within its task's soft time limit.

``DATABASE_URL=postgres://postgres@127.0.0.1:5432/<scratch> python -m benchmarks.imports``
migrates that database, loads the catalog, uploads each file as a team's import job (the
upload's screen included) and runs its task in this process (``apply``: the task's code, its
failure handling, no broker), then prints rows, seconds and rows/s beside the soft limit.
``--quotes N`` and ``--costs N`` change the sizes. What it wrote is removed at the end.
"""
from __future__ import annotations

import argparse
import os
import time

TEAM = "bench-imports"
INSTANCE_TYPE = "p9.bench"
QUOTE_HEADER = ("kind,provider,instance_type,region,pricing_model,amount,currency,as_of,source,accelerator,"
                "accelerators_per_instance\n")
FOCUS_HEADER = "BilledCost,BillingCurrency,ChargeCategory,ChargePeriodStart,ProviderName,ServiceName,SkuId\n"


def quote_file(rows: int) -> bytes:
    """``rows`` prices of one new offering, a cent apart, one a day; a new source every 336 rows."""
    lines = [f"offering,aws,{INSTANCE_TYPE},us-east-1,on_demand,{50 + i / 100:.2f},USD,"
             f"2026-{1 + i // 28 % 12:02d}-{1 + i % 28:02d},Vendor B quote {i // 336},h100-sxm-80gb,8\n"
             for i in range(rows)]
    return (QUOTE_HEADER + "".join(lines)).encode()


def focus_file(rows: int) -> bytes:
    """``rows`` US-dollar usage rows over 2027, as a cloud bill has them."""
    lines = [f"{1 + i % 9_973 / 100:.2f},USD,Usage,2027-{1 + i % 12:02d}-{1 + i % 28:02d}T00:00:00Z,AWS,"
             f"EC2,sku-{i % 500}\n" for i in range(rows)]
    return (FOCUS_HEADER + "".join(lines)).encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quotes", type=int, default=100_000, help="quote file rows")
    parser.add_argument("--costs", type=int, default=200_000, help="FOCUS file rows")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection

    from core.file_imports import FILE_IMPORT_SOFT_TIME_LIMIT_S
    from teams.models import Team

    if connection.vendor != "postgresql":
        raise SystemExit("point DATABASE_URL at a PostgreSQL database: the figures are PostgreSQL's")
    call_command("migrate", verbosity=0)
    call_command("load_catalog", verbosity=0)
    team, _ = Team.objects.get_or_create(slug=TEAM, defaults={"name": "Bench imports"})
    print(f"batches of {settings.IMPORT_BATCH_ROWS:,} rows; soft time limit "
          f"{FILE_IMPORT_SOFT_TIME_LIMIT_S} s", flush=True)
    try:
        _report("quote file", _quotes(team, args.quotes), FILE_IMPORT_SOFT_TIME_LIMIT_S)
        _report("FOCUS cost file", _costs(team, args.costs), FILE_IMPORT_SOFT_TIME_LIMIT_S)
    finally:
        _clean(team)


def _quotes(team, rows: int):
    from catalog.models import QuoteImport
    from catalog.quote_imports import quote_import_request
    from catalog.tasks import quote_import_task

    content = quote_file(rows)
    job = quote_import_request(file_name="bench-quotes.csv", content=content, team=team)
    return _run(quote_import_task, job, QuoteImport, len(content))


def _costs(team, rows: int):
    from finops.cost_imports import cost_import_request
    from finops.models import CostImport
    from finops.tasks import cost_import_task

    content = focus_file(rows)
    job = cost_import_request(team=team, file_name="bench-costs.csv", content=content)
    return _run(cost_import_task, job, CostImport, len(content))


def _run(task, job, model, size: int):
    started = time.perf_counter()
    task.apply(args=(job.pk,))
    seconds = time.perf_counter() - started
    return model.objects.get(pk=job.pk), seconds, size


def _report(what: str, measured, soft_limit_s: int) -> None:
    job, seconds, size = measured
    verdict = "within" if seconds < soft_limit_s and job.status == "done" else "NOT within"
    why = f" ({job.error})" if job.error else ""
    print(f"{what}: {job.rows_written:,} of {job.rows_total or 0:,} rows ({size / 2**20:.1f} MB) "
          f"{job.status} in {seconds:.1f} s, {job.rows_written / seconds:,.0f} rows/s: {verdict} the "
          f"{soft_limit_s} s soft limit{why}", flush=True)


def _clean(team) -> None:
    from catalog.models import CloudOffering
    from catalog.models import PricePoint
    from catalog.models import QuoteImport
    from catalog.models import Source

    PricePoint.history.filter(team=team).delete()
    PricePoint.objects.filter(team=team).delete()
    CloudOffering.objects.filter(team=team).delete()
    Source.objects.filter(team=team).delete()
    QuoteImport.objects.filter(team=team).delete()
    team.delete()  # its cost imports and their rows with it


if __name__ == "__main__":
    main()
