"""User text stays text: inert in CSV downloads, literal in chart labels; a deleted run's file goes."""
from __future__ import annotations

import csv
import io

import pytest
from django.core.files.storage import default_storage

from core.csv_cells import inert
from tco.models import SweepRun
from tco.services.runs import run_part_names

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media")]

PRICE = "rent.0.price_usd_per_instance_hour"


def finished_sweep(api, scenario, django_capture_on_commit_callbacks) -> dict:
    body = {"scenario": scenario.pk, "kind": "sweep", "spec": {"axes": [{"path": PRICE, "values": [1, 500]}]}}
    with django_capture_on_commit_callbacks(execute=True):
        started = api.post("/api/v1/runs/", body, content_type="application/json")
    return api.get(started["Location"]).json()


@pytest.mark.parametrize(("text", "expected"), [
    ("=SUM(A1:A9)", "'=SUM(A1:A9)"), ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
    ("-2+3", "'-2+3"), ("@SUM(1)", "'@SUM(1)"), ("\t=1", "'\t=1"), ("p5 on demand", "p5 on demand"),
])
def test_text_a_spreadsheet_would_run_gets_a_leading_quote(text, expected):
    assert inert(text) == expected


def test_rent_option_names_in_the_sweep_csv_are_inert(api, run_scenario, django_capture_on_commit_callbacks):
    run_scenario.rent_options.update(name="+cmd|' /C calc'!A0")
    run = finished_sweep(api, run_scenario, django_capture_on_commit_callbacks)

    download = api.get(run["result_csv_url"])
    rows = list(csv.reader(io.StringIO(b"".join(download.streaming_content).decode())))

    header = rows[0]
    assert "'+cmd|' /C calc'!A0: breakeven_month" in header
    assert not [name for name in header if name.startswith(("=", "+", "-", "@"))]
    winners = [row[header.index("winner")] for row in rows[1:]]
    assert winners == ["'+cmd|' /C calc'!A0", "buy"]


def test_deleting_a_run_deletes_its_stored_parts(api, run_scenario, django_capture_on_commit_callbacks):
    finished_sweep(api, run_scenario, django_capture_on_commit_callbacks)
    run = SweepRun.objects.get()
    folder = f"runs/{run.pk}"
    parts = run_part_names(run)
    assert parts and all(default_storage.exists(name) for name in parts)

    with django_capture_on_commit_callbacks(execute=True):
        run.delete()

    assert not SweepRun.objects.exists()
    assert not any(default_storage.exists(name) for name in parts)
    assert default_storage.listdir(folder) == ([], [])


def test_a_dollar_sign_pair_in_a_name_is_drawn_as_text_on_the_scenario_page(client, planner, run_scenario):
    run_scenario.rent_options.update(name=r"Spot $\left(x$ deal")
    client.force_login(planner)

    page = client.get(f"/admin/tco/scenario/{run_scenario.pk}/change/")

    assert page.status_code == 200
    assert r"Spot $\left(x$ deal" in page.content.decode()
