"""Issue 14's figures on real processes: the probes' 5xx and worker timeouts against gunicorn with
production settings, the rate-limit overshoot under 20 concurrent clients, and how long each job
kind takes to recover after its worker is killed.

    pytest -s tests/faults/measure_recovery_and_rate_limits.py

A measurement, not a test (``make test`` does not collect it: its name does not start with
``test_``): it prints figures. Recovery is timed from the SIGKILL to the job done again, with a
new worker started at once (as a supervisor would) and the reapers called every second; in
production beat calls them every 60 s, which adds up to a minute.
"""
from __future__ import annotations

import json
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
import requests
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.utils import timezone
from knox.models import AuthToken

from catalog.models import PriceRefreshJob
from catalog.models import QuoteImport
from catalog.models import RefreshStatus
from catalog.quote_imports import quote_import_request
from catalog.quote_imports import quote_imports_reap
from catalog.refresh.recovery import refresh_jobs_reap
from catalog.tasks import refresh_prices_task
from core.queues import Queue
from reports.choices import ExportStatus
from reports.services import report_export_request
from reports.services import report_exports_reap
from tco.models import PlanStatus
from tco.models import RunKind
from tco.models import SweepChunk
from tco.services.plans import plan_create
from tco.services.plans import plans_reap
from tco.services.runs import sweep_run_start
from tco.services.runs import sweep_runs_reap
from tests.catalog.quote_files import offering_rows
from tests.faults.outages import kill
from tests.faults.test_database_outage import gated_feed  # noqa: F401
from tests.faults.webserver import Gunicorn
from tests.tco.scenario_body import p5
from tests.tco.scenario_body import scenario_body
from tests.tco.test_plans_worker import SPEC as PLAN_SPEC
from tests.tco.test_runs_worker import PRICE
from tests.worker import poll_until

pytestmark = pytest.mark.worker

WAIT_S = 300
RATE_LIMIT = 60
CLIENTS = 20


def wait_for(condition, what: str):
    return poll_until(condition, what, timeout_s=WAIT_S, poll_s=0.01)


def fresh(row):
    row.refresh_from_db()
    return row


def recover(kind: str, worker, private_redis, start_worker, reap, done) -> None:
    """Kill ``worker``, start another, call ``reap`` every second until ``done()``; print the time."""
    killed = time.monotonic()
    kill(worker, private_redis)
    start_worker()
    while not done():
        reap()
        time.sleep(1)
        assert time.monotonic() - killed < WAIT_S, f"{kind} not recovered"
    print(f"RECOVERY {kind:<28} {time.monotonic() - killed:6.1f} s from SIGKILL to done")


def test_recovery_after_a_killed_worker(start_worker, private_redis, run_scenario, scenario,
                                        gated_feed):  # noqa: F811
    worker = start_worker()
    export = report_export_request(scenario=scenario, format="pdf")
    wait_for(lambda: fresh(export).status == ExportStatus.RUNNING, "export building")
    recover("PDF export", worker, private_redis, start_worker, report_exports_reap,
            lambda: fresh(export).is_finished)
    assert export.status == ExportStatus.DONE

    worker = start_worker()
    plan = plan_create(scenario=run_scenario, name="growth", spec={**PLAN_SPEC, "uncertainty": None})
    wait_for(lambda: fresh(plan).status == PlanStatus.SOLVING, "plan solving")
    recover("procurement plan solve", worker, private_redis, start_worker, plans_reap,
            lambda: fresh(plan).status == PlanStatus.DONE)

    location, gate = gated_feed
    worker = start_worker()
    refresh_prices_task.apply_async(kwargs={"provider": "lambda", "location": location}, queue=Queue.REFRESH)
    wait_for(lambda: PriceRefreshJob.objects.filter(status=RefreshStatus.RUNNING).exists(), "refresh running")
    gate.set()
    recover("price refresh", worker, private_redis, start_worker, refresh_jobs_reap,
            lambda: PriceRefreshJob.objects.filter(status=RefreshStatus.SUCCEEDED).exists())

    worker = start_worker()
    spec = {"axes": [{"path": "utilisation", "low": 0.05, "high": 1, "count": 192},
                     {"path": PRICE, "low": 20, "high": 100, "count": 1_024},
                     {"path": "finance.horizon_months", "values": [120]}]}
    run = sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP, spec=spec, chunk_size=65_536)
    wait_for(lambda: SweepChunk.objects.filter(run=run, index=1, status="running").exists(), "chunk 1")
    recover("sweep (3 chunks of 65,536)", worker, private_redis, start_worker, sweep_runs_reap,
            lambda: not fresh(run).is_active)

    worker = start_worker()
    # 20,000 rows (2 MB): 2,000 are imported too fast for the kill to land before the import ends.
    job = quote_import_request(file_name="q.csv", content=offering_rows(20_000), team=None)
    wait_for(lambda: fresh(job).status == "running" and job.rows_checked > 0, "import checking rows")
    print(f"killed at {job.rows_checked:,} of {job.rows_total:,} rows checked")
    recover("quote import (20,000 rows)", worker, private_redis, start_worker, quote_imports_reap,
            lambda: fresh(job).status in ("done", "failed"))
    print(f"quote import: {job.status}, {job.prices_created:,} prices, attempts {job.attempts}")


def admin_session(web: Gunicorn) -> dict[str, str]:
    """Cookie and CSRF headers of a superuser signed in to the admin (secure cookies sent over http)."""
    # Hashed as production checks it (the test settings hash with MD5, which production refuses).
    admin = get_user_model().objects.create_superuser("probe-admin", password=None)
    admin.password = PBKDF2PasswordHasher().encode("probe-password-1", "probesalt123")
    admin.save(update_fields=["password"])
    login = requests.get(f"{web.url}/admin/login/", timeout=60)
    csrf = login.cookies["csrftoken"]
    signed_in = requests.post(f"{web.url}/admin/login/?next=/admin/", timeout=60, allow_redirects=False,
                              data={"username": "probe-admin", "password": "probe-password-1",
                                    "csrfmiddlewaretoken": csrf},
                              headers={"Cookie": f"csrftoken={csrf}"})
    return {"Cookie": f"csrftoken={csrf}; sessionid={signed_in.cookies['sessionid']}", "X-CSRFToken": csrf}


def test_the_issues_probes_against_gunicorn(web, start_worker, run_scenario, planner):
    start_worker()
    _, key = AuthToken.objects.create(user=planner)
    api = {"Authorization": f"Token {key}", "Content-Type": "application/json"}
    options = [{"name": f"option {i}", "offering": p5().pk, "price_usd_per_instance_hour": "50"}
               for i in range(3_000)]
    probes = {
        "evaluate, 3,000 rent options": ("/api/v1/evaluate/", scenario_body(rent_options=options)),
        "sensitivity, 100,000 paths": ("/api/v1/runs/", {"scenario": run_scenario.pk, "kind": "sensitivity",
                                                         "spec": {"paths": ["utilisation"] * 100_000}}),
        "sweep step 5e-324": ("/api/v1/runs/", {"scenario": run_scenario.pk, "kind": "sweep", "spec": {
            "axes": [{"path": "utilisation", "start": 0.1, "stop": 0.9, "step": 5e-324}]}}),
        "JSON nested 1,000 deep": ("/api/v1/evaluate/", None),
    }
    answers = []
    for label, (path, body) in probes.items():
        data = json.dumps(body) if body is not None else '{"a":' * 1_000 + "1" + "}" * 1_000
        started = time.monotonic()
        response = requests.post(web.url + path, data=data, headers=api, timeout=120)
        answers.append(response.status_code)
        print(f"PROBE {label:<34} {response.status_code} in {time.monotonic() - started:5.2f} s")
    upload = {"file": ("quote.csv", offering_rows(2_000), "text/csv")}
    started = time.monotonic()
    response = requests.post(f"{web.url}/admin/catalog/pricepoint/import/", files=upload, timeout=120,
                             headers=admin_session(web), allow_redirects=False)
    answers.append(response.status_code)
    print(f"PROBE {'admin upload, 2,000-row CSV':<34} {response.status_code} in "
          f"{time.monotonic() - started:5.2f} s -> {response.headers.get('Location')}")
    job = QuoteImport.objects.get()
    wait_for(lambda: fresh(job).status in ("done", "failed"), "imported")
    print(f"      import job {job.status}: {job.prices_created:,} prices, worker took "
          f"{(job.finished_at - job.started_at).total_seconds():.2f} s after "
          f"{(job.started_at - job.created_at).total_seconds():.2f} s queued")
    log = web.log()
    print(f"5xx answers: {sum(code >= 500 for code in answers)} of {len(answers)}; "
          f"gunicorn WORKER TIMEOUT lines: {len(re.findall('WORKER TIMEOUT', log))}")


def test_rate_limit_overshoot_under_20_concurrent_clients(web, planner):
    _, key = AuthToken.objects.create(user=planner)
    headers = {"Authorization": f"Token {key}"}
    lock = threading.Lock()
    counts = {200: 0, 429: 0}

    def call(_: int) -> None:
        code = requests.get(f"{web.url}/api/v1/accelerators/", headers=headers, timeout=60).status_code
        with lock:
            counts[code] = counts.get(code, 0) + 1

    started = timezone.now()
    with ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(call, range(5 * RATE_LIMIT)))
    took = timezone.now() - started
    accepted, refused = counts.get(200, 0), counts.get(429, 0)
    print(f"RATE LIMIT {RATE_LIMIT}/min, {CLIENTS} clients, {5 * RATE_LIMIT} requests in "
          f"{took / timedelta(seconds=1):.1f} s: {accepted} accepted, {refused} refused, "
          f"overshoot {accepted - RATE_LIMIT}")
