"""Lists of runs, plans and quote imports give summaries; each job carries its details (issue 25,
finding 1: a list that serialised every stored detail took 26 s and 156 MB for 15 scenarios).

A run's spec may list 10^6 axis values, a plan's spec, result and draws grow with months x
choices, a refused import names every bad row: none of them is in a list (core/limits.py).
"""
from __future__ import annotations

import pytest

from catalog.quote_imports import quote_import_request
from catalog.quote_imports import quote_import_run
from tco.models import RunKind
from tco.services.plans import plan_create
from tco.services.runs import sweep_run_start
from tests.catalog.quote_files import offering_rows
from tests.tco.test_plans_admin import SPEC as PLAN_SPEC
from tests.tco.test_runs_worker import PRICE

pytestmark = pytest.mark.django_db

VALUES = list(range(20, 20_020))  # 20,000 listed prices: 160 kB of spec


def test_the_run_list_leaves_out_the_spec_the_run_has(api, run_scenario):
    run = sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP,
                          spec={"axes": [{"path": PRICE, "values": VALUES}]})

    listed = api.get("/api/v1/runs/")
    detail = api.get(f"/api/v1/runs/{run.pk}/")

    row = listed.json()["results"][0]
    assert (row["id"], row["points_total"], row["status"]) == (run.pk, 20_000, "pending")
    assert "spec" not in row and len(listed.content) < 2_000
    assert detail.json()["spec"]["axes"][0]["values"][-1] == 20_019


def test_the_plan_list_leaves_out_spec_result_and_draws_the_plan_has(
        api, run_scenario, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        plan = plan_create(scenario=run_scenario, name="growth", spec=PLAN_SPEC)

    listed = api.get("/api/v1/plans/")
    detail = api.get(f"/api/v1/plans/{plan.pk}/").json()

    row = listed.json()["results"][0]
    assert (row["id"], row["status"], row["draws_total"]) == (plan.pk, "done", 300)
    assert not {"spec", "result", "uncertainty"} & set(row) and len(listed.content) < 2_000
    assert detail["result"]["feasible"] and detail["uncertainty"] and detail["spec"] == PLAN_SPEC


def test_the_import_list_leaves_out_each_bad_row_the_import_names(admin_client, catalog):
    bad = {row: "-1" for row in range(2, 2_002)}  # every row refused (row 1 is the header): 2,000 errors
    job = quote_import_request(file_name="q.csv", content=offering_rows(2_000, bad_rows=bad), team=None)
    quote_import_run(import_id=job.pk)

    listed = admin_client.get("/api/v1/quote-imports/")
    detail = admin_client.get(f"/api/v1/quote-imports/{job.pk}/").json()

    row = listed.json()["results"][0]
    assert (row["status"], row["error"]) == (
        "failed", "Nothing was imported: 2,000 bad rows (first: row 2, amount: must be greater than zero).")
    assert "errors" not in row and len(listed.content) < 2_000
    assert len(detail["errors"]) == 2_000
