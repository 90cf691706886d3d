"""The runs API: start (202) and poll, refusals before anything is queued, cancel, summary, files."""
from __future__ import annotations

import csv
import io

import pandas as pd
import pytest
from django.contrib.auth import get_user_model

from tco.models import RunStatus
from tco.models import SweepRun

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media")]

PRICE = "rent.0.price_usd_per_instance_hour"
URL = "/api/v1/runs/"


def post(api, body):
    return api.post(URL, body, content_type="application/json")


def sweep_body(scenario, **spec):
    return {"scenario": scenario.pk, "kind": "sweep",
            "spec": spec or {"axes": [{"path": PRICE, "values": [20, 50]},
                                      {"path": "electricity_usd_per_kwh", "values": [0.1, 0.2]}]}}


def test_it_starts_a_sweep_with_202_and_the_client_polls_it_to_done(api, run_scenario,
                                                                      django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = post(api, sweep_body(run_scenario))

    assert response.status_code == 202, response.json()
    assert response["Location"].endswith(f"{URL}{response.json()['id']}/")
    assert response.json()["points_total"] == 4
    polled = api.get(response["Location"]).json()
    assert (polled["status"], polled["progress"], polled["chunks_done"]) == ("done", 100, 1)
    summary = api.get(polled["summary_url"]).json()
    # Breakeven months by hand: see test_runs_services (29, 31, 12, 12).
    assert summary["options"]["p5 on demand"]["breakeven_month"]["max"] == 31


def test_the_full_result_downloads_as_parquet_and_as_csv(api, run_scenario,
                                                         django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        started = post(api, sweep_body(run_scenario))
    run = api.get(started["Location"]).json()

    parquet = api.get(run["result_parquet_url"])
    as_csv = api.get(run["result_csv_url"])

    assert parquet.status_code == 200
    assert parquet["Content-Type"] == "application/vnd.apache.parquet"
    frame = pd.read_parquet(io.BytesIO(b"".join(parquet.streaming_content)))
    assert list(frame["p5 on demand: breakeven_month"]) == [29, 31, 12, 12]
    assert as_csv["Content-Type"] == "text/csv"
    rows = list(csv.DictReader(io.StringIO(b"".join(as_csv.streaming_content).decode())))
    assert [row["p5 on demand: breakeven_month"] for row in rows] == ["29.0", "31.0", "12.0", "12.0"]
    assert rows[3][PRICE] == "50.0"


@pytest.mark.parametrize(("body", "errors"), [
    ({"kind": "sweep", "spec": {"axes": [{"path": "workload.gpus", "values": [1]}]}},
     {"spec": {"axes[0].path": ["'workload.gpus' is not a numeric input of this scenario "
                                "(not a numeric input)"]}}),
    ({"kind": "sweep", "spec": {"axes": [{"path": "rent.0.pricing_model", "values": [1]}]}},
     {"spec": {"axes[0].path": ["'rent.0.pricing_model' is not a numeric input of this scenario "
                                "(not a numeric input)"]}}),
    ({"kind": "sweep", "spec": {"axes": [{"path": "utilisation", "low": 0.0001, "high": 1, "count": 2000},
                                         {"path": PRICE, "low": 1, "high": 100, "count": 2500}]}},
     {"spec": {"axes": ["the grid has 5,000,000 points (2,000 x 2,500); the limit is 1,000,000"]}}),
    ({"kind": "monte_carlo", "spec": {"samples": 100, "distributions": [
        {"path": "utilisation", "kind": "uniform", "low": 0.9, "high": 0.2}]}},
     {"spec": {"distributions[0].low": ["low (0.9) must be below high (0.2)"]}}),
    ({"kind": "monte_carlo", "spec": {"samples": 100, "distributions": [
        {"path": "utilisation", "kind": "normal", "mean": 0.5, "sd": -0.1, "low": 0, "high": 1}]}},
     {"spec": {"distributions[0].sd": ["the standard deviation must be positive, got -0.1"]}}),
    ({"kind": "monte_carlo", "chunk_size": 1000, "spec": {"samples": 100, "distributions": [
        {"path": "utilisation", "kind": "uniform", "low": 0.2, "high": 0.9}]}},
     {"chunk_size": ["must be a multiple of 8,192 (one RNG block) for Monte Carlo"]}),
])
def test_it_refuses_a_run_that_cannot_run_before_anything_is_queued(api, run_scenario, body, errors,
                                                                     django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as queued:
        response = post(api, {"scenario": run_scenario.pk, **body})

    assert response.status_code == 400
    assert response.json() == errors
    assert SweepRun.objects.count() == 0
    assert queued == []


def test_it_refuses_a_run_on_another_users_scenario(client, run_scenario):
    client.force_login(get_user_model().objects.create_user("someone-else", password="pw"))

    response = post(client, sweep_body(run_scenario))

    assert response.status_code == 400
    assert "scenario" in response.json()
    assert SweepRun.objects.count() == 0


def test_it_cancels_an_active_run_once(api, run_scenario, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks():  # queued but no worker has run it
        run = post(api, sweep_body(run_scenario)).json()

    cancelled = api.post(f"{run['url']}cancel/")
    again = api.post(f"{run['url']}cancel/")

    assert cancelled.status_code == 202
    assert cancelled.json()["status"] == "cancelled"
    assert again.status_code == 409
    assert SweepRun.objects.get(pk=run["id"]).status == RunStatus.CANCELLED


def test_the_summary_and_files_of_an_unfinished_run_answer_409(api, run_scenario,
                                                               django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks():
        run = post(api, sweep_body(run_scenario)).json()

    assert run["summary_url"] is None
    assert api.get(f"{run['url']}summary/").status_code == 409
    for name in ("result.parquet", "result.csv"):
        refused = api.get(f"{run['url']}{name}/")
        assert (refused.status_code, refused["Content-Type"]) == (409, "application/json"), name
        assert refused.json() == {"detail": "the run is pending, not done"}


def test_runs_list_only_the_users_own_and_filter_by_scenario(api, run_scenario, client,
                                                             django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks():
        post(api, sweep_body(run_scenario))
        post(api, sweep_body(run_scenario))

    mine = api.get(URL, {"scenario_id": run_scenario.pk}).json()
    none = api.get(URL, {"scenario_id": run_scenario.pk + 1}).json()

    assert (mine["count"], none["count"]) == (2, 0)
    client.force_login(get_user_model().objects.create_user("someone-else", password="pw"))
    assert client.get(URL).json()["count"] == 0


def test_anonymous_clients_cannot_start_runs(client, run_scenario):
    assert post(client, sweep_body(run_scenario)).status_code == 401
