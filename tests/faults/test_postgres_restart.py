"""PostgreSQL stopped and started again under gunicorn and a worker (issue 25, outages): a private
cluster (tests/faults/outages.py) holds a copy of the test database, so the machine's PostgreSQL,
shared with other sessions, is never stopped.

An export, a sweep and a plan are queued, PostgreSQL stops at once (``-m immediate``, as a crash)
for a short outage (5 s: inside the tasks' retries, 2 s doubling, 62 s in all) or a long one
(past them: 90 s in production; here 25 s, the worker's retries being at most 4 s apart,
``TASK_RETRY_BACKOFF_MAX_S``, 18 s in all), and starts again. Meanwhile /healthz must answer its
JSON 503 naming the database, and the API a JSON 503 with Retry-After (it answered 500: the
request's transaction could not begin); gunicorn must not time a worker out. Then the reapers run
every 10 s (beat runs them every minute: that changes how soon a job comes back, not whether), and
the time each job takes to be done after PostgreSQL returns is written to
test-artifacts/postgres-restart.txt.
"""
from __future__ import annotations

import contextlib
import time

import pytest
import requests
from django.db import connections

from reports.choices import ExportStatus
from reports.services import report_export_request
from reports.services import report_exports_reap
from tco.models import PlanStatus
from tco.models import RunKind
from tco.models import RunStatus
from tco.services.plans import plan_create
from tco.services.plans import plans_reap
from tco.services.runs import sweep_run_start
from tco.services.runs import sweep_runs_reap
from tests.faults.outages import PrivatePostgres
from tests.faults.outages import broker
from tests.faults.webserver import Gunicorn
from tests.tco.test_plans_worker import SPEC as PLAN_SPEC
from tests.tco.test_runs_worker import PRICE
from tests.worker import REPO_ROOT
from tests.worker import WorkerProcess
from tests.worker import database_url

pytestmark = pytest.mark.worker

NAME = "tco_copy"
SHORT_OUTAGE_S = 5  # inside the tasks' retries
LONG_OUTAGE_S = 25  # past them, which are at most this far apart in that test:
LONG_OUTAGE_RETRY_BACKOFF_MAX_S = 4  # 2, 4, 4, 4 and 4 s, 18 s in all
REAP_EVERY_S = 10  # the reapers' passes (beat's schedule runs them every 60 s)
# Two reaper passes: jobs whose tasks gave up while PostgreSQL was down were sent before it
# started, and are sent again at the next pass (they waited JOBS_RESEND_PENDING_AFTER_S, 300 s,
# before: the probe measured 242 s for the plan, 363 s for the sweep).
BACK_WITHIN_S = 2 * REAP_EVERY_S + 30
PROBE_EVERY_S = 1
REPORT = REPO_ROOT / "test-artifacts" / "postgres-restart.txt"


@contextlib.contextmanager
def this_process_on(postgres: PrivatePostgres):
    """This process's ORM on the private cluster's copy, then back on the test database."""
    connection = connections["default"]
    saved = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict.update(PORT=str(postgres.port), NAME=NAME, HOST="127.0.0.1")
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(saved)


@pytest.fixture
def stack(transactional_db, live_celery, settings, tmp_path, private_redis, scenario, run_scenario, request):
    """The private cluster with a copy of the test database (the scenarios of both fixtures), and
    a worker (its retries at most ``request.param`` seconds apart, when given) and gunicorn on it
    and on the private Redis."""
    settings.MEDIA_ROOT = tmp_path / "media"
    postgres = PrivatePostgres().create()
    url = postgres.copy_database(database_url(), NAME)
    with broker(live_celery, private_redis.url):
        worker = WorkerProcess(broker_env={
            "DJANGO_SETTINGS_MODULE": "config.settings.base", "REDIS_URL": private_redis.url,
            "DATABASE_URL": url, "DJANGO_MEDIA_ROOT": str(settings.MEDIA_ROOT),
            "TASK_RETRY_BACKOFF_MAX_S": str(getattr(request, "param", settings.TASK_RETRY_BACKOFF_MAX_S)),
        }).start()
        web = Gunicorn(redis_url=private_redis.url, DATABASE_URL=url,
                       log_path=REPO_ROOT / "test-artifacts" / f"gunicorn-{request.node.name}.log").start()
        try:
            with this_process_on(postgres):
                yield postgres, web
        finally:
            web.stop()
            worker.stop()
            postgres.remove()


def probe(web: Gunicorn, answers: list[requests.Response]) -> None:
    for path in ("/healthz", "/api/v1/"):
        # No answer in 10 s is counted from gunicorn's log (WORKER TIMEOUT).
        with contextlib.suppress(requests.RequestException):
            answers.append(requests.get(f"{web.url}{path}", timeout=10))


def outage(stack, outage_s: float, scenario, run_scenario) -> dict[str, float]:
    postgres, web = stack
    export = report_export_request(scenario=scenario, format="xlsx")
    run = sweep_run_start(scenario=run_scenario, kind=RunKind.SWEEP, chunk_size=100,
                          spec={"axes": [{"path": PRICE, "low": 20, "high": 100, "count": 400}]})
    plan = plan_create(scenario=run_scenario, name="growth", spec={**PLAN_SPEC, "uncertainty": None})
    jobs = {"export": (export, ExportStatus.DONE), "sweep": (run, RunStatus.DONE),
            "plan": (plan, PlanStatus.DONE)}
    connections["default"].close()
    postgres.stop()
    answers: list[requests.Response] = []
    stopped = time.monotonic()
    while time.monotonic() - stopped < outage_s:
        probe(web, answers)
        time.sleep(PROBE_EVERY_S)
    health = [answer for answer in answers if answer.url.endswith("/healthz")]
    api = [answer for answer in answers if not answer.url.endswith("/healthz")]
    assert api and all(answer.status_code == 503 and answer.json()["database"]["ok"] is False
                       and answer.headers["Retry-After"] == "30" for answer in api)
    assert health and all(answer.status_code == 503 for answer in health)
    assert all(answer.headers["Content-Type"] == "application/json" for answer in health)
    assert all(answer.json()["database"]["ok"] is False for answer in health)
    postgres.start()
    back = time.monotonic()
    recovered: dict[str, float] = {}
    reaped = back
    while len(recovered) < len(jobs) and time.monotonic() - back < BACK_WITHIN_S:
        for kind, (job, done) in jobs.items():
            job.refresh_from_db()
            if kind not in recovered and job.status == done:
                recovered[kind] = time.monotonic() - back
        if time.monotonic() - reaped >= REAP_EVERY_S:
            plans_reap(), report_exports_reap(), sweep_runs_reap()
            reaped = time.monotonic()
        time.sleep(0.5)
    probe(web, answers)
    errors = sum(answer.status_code >= 500 and answer.status_code != 503 for answer in answers)
    timeouts = web.log().count("WORKER TIMEOUT")
    line = (f"PostgreSQL down {outage_s:.0f} s: /healthz {len(health)} x 503 JSON naming the database; "
            f"API {len(api)} x 503 JSON; other 5xx {errors}; gunicorn worker timeouts {timeouts}; "
            "back after it returned: "
            + ", ".join(f"{kind} {recovered.get(kind, float('nan')):.1f} s" for kind in jobs)
            + f" (statuses {[job.status for job, _ in jobs.values()]})")
    REPORT.parent.mkdir(exist_ok=True)
    with REPORT.open("a") as report:
        report.write(line + "\n")
    print(line)
    assert errors == 0 and timeouts == 0
    assert set(recovered) == set(jobs), line
    return recovered


def test_jobs_come_back_after_a_short_postgres_outage(stack, scenario, run_scenario):
    outage(stack, SHORT_OUTAGE_S, scenario, run_scenario)


@pytest.mark.parametrize("stack", [LONG_OUTAGE_RETRY_BACKOFF_MAX_S], indirect=True)
def test_jobs_come_back_after_a_long_postgres_outage(stack, scenario, run_scenario):
    outage(stack, LONG_OUTAGE_S, scenario, run_scenario)
