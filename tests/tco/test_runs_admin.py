"""Runs in the admin (start forms, progress, charts, cancel) and the run_sweep command."""
from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError
from django.core.management import call_command

from tco.models import RunKind
from tco.models import RunStatus
from tco.models import SweepRun

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media")]

PRICE = "rent.0.price_usd_per_instance_hour"


def start_url(scenario, kind):
    return f"/admin/tco/sweeprun/start/{scenario.pk}/{kind}/"


def test_the_scenario_page_links_to_starting_runs(admin_client, run_scenario):
    page = admin_client.get(f"/admin/tco/scenario/{run_scenario.pk}/change/").content.decode()

    for kind in RunKind.values:
        assert start_url(run_scenario, kind) in page
    assert f"/admin/tco/sweeprun/?scenario__id__exact={run_scenario.pk}" in page


def test_the_sweep_form_lists_the_inputs_a_run_can_vary(admin_client, run_scenario):
    page = admin_client.get(start_url(run_scenario, "sweep")).content.decode()

    assert "<code>workload.utilisation</code>" in page
    assert f"<code>{PRICE}</code>" in page
    # Each path beside its label, its value as people read it (a share in percent, no "8.0").
    assert "<td>Utilisation</td><td><code>workload.utilisation</code></td><td class=\"num\">" in page
    utilisation = float(run_scenario.utilisation)
    assert f"<td class=\"num\">{utilisation:.1%}</td>" in page
    assert 'value="Start sweep"' in page
    monte_carlo = admin_client.get(start_url(run_scenario, "monte_carlo")).content.decode()
    assert 'value="Start Monte Carlo"' in monte_carlo


def test_a_sweep_started_in_the_admin_ends_with_a_breakeven_heat_map(admin_client, run_scenario,
                                                                      django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(start_url(run_scenario, "sweep"), {
            "axes": f"{PRICE}=20,50\nelectricity_usd_per_kwh=0.1:0.2@2"})

    run = SweepRun.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/admin/tco/sweeprun/{run.pk}/change/"
    assert run.status == RunStatus.DONE
    page = admin_client.get(response["Location"]).content.decode()
    assert "Breakeven of buying vs p5 on demand" in page  # the heat map's title, in its SVG
    assert page.count('class="run-chart"') == 1  # one rent option, one heat map
    assert "run-progress-bar" in page
    # The share of points where buying never breaks even reads as a percentage.
    never = run.summary["options"]["p5 on demand"]["breakeven_month"]["never_share"]
    assert f"never {never:.1%}" in page and "never (share)" not in page


def test_a_refused_axis_comes_back_on_the_form_and_starts_nothing(admin_client, run_scenario):
    response = admin_client.post(start_url(run_scenario, "sweep"), {"axes": "utilisation=0.5,1.5"})

    assert response.status_code == 200
    assert "workload.utilisation: must be in [0.0, 1.0]" in response.content.decode()
    assert SweepRun.objects.count() == 0


def test_a_monte_carlo_run_shows_a_histogram_and_a_sensitivity_run_a_tornado(admin_client, run_scenario,
                                                                           django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(start_url(run_scenario, "monte_carlo"), {
            "samples": 1000, "seed": 5, "histogram_bins": 20,
            "distributions": "utilisation=triangular(0.4,0.6,0.9)"})
        admin_client.post(start_url(run_scenario, "sensitivity"), {"step_share": 0.1, "paths": ""})

    monte_carlo = SweepRun.objects.get(kind=RunKind.MONTE_CARLO)
    sensitivity = SweepRun.objects.get(kind=RunKind.SENSITIVITY)
    histogram_page = admin_client.get(f"/admin/tco/sweeprun/{monte_carlo.pk}/change/").content.decode()
    assert "P(buying costs less)" in histogram_page
    assert "margin over the next cheapest option (NPV), each draw" in histogram_page
    tornado_page = admin_client.get(f"/admin/tco/sweeprun/{sensitivity.pk}/change/").content.decode()
    # The tornado moves the winner's margin over the next cheapest (issue 46): buying's over p5.
    assert "The margin of Buy over the next cheapest (NPV)" in tornado_page


def test_an_active_run_polls_its_progress_and_can_be_cancelled(admin_client, run_scenario,
                                                               django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks():  # queued, no worker yet
        admin_client.post(start_url(run_scenario, "sweep"), {"axes": f"{PRICE}=20,50"})
    run = SweepRun.objects.get()

    page = admin_client.get(f"/admin/tco/sweeprun/{run.pk}/change/").content.decode()
    progress = admin_client.get(f"/admin/tco/sweeprun/{run.pk}/progress/").json()
    cancelled = admin_client.post(f"/admin/tco/sweeprun/{run.pk}/cancel/")

    assert f"/admin/tco/sweeprun/{run.pk}/progress/" in page  # the page's poll
    assert "Cancel run" in page
    assert progress == {"status": "pending", "status_label": "Pending", "active": True,
                        "progress": 0, "chunks_done": 0, "chunks_total": 1, "error": ""}
    assert cancelled.status_code == 302
    run.refresh_from_db()
    assert run.status == RunStatus.CANCELLED


@pytest.mark.django_db(transaction=True)  # the command waits for the run: its tasks must be sent
def test_run_sweep_prints_the_summary_of_a_finished_sweep(run_scenario):
    out, err = io.StringIO(), io.StringIO()

    call_command("run_sweep", str(run_scenario.pk), "--axis", f"{PRICE}=20,50",
                 "--axis", "electricity_usd_per_kwh=0.1:0.2:0.1", stdout=out, stderr=err)

    summary = json.loads(out.getvalue())
    # Breakeven months 29, 31, 12, 12 (worked out in test_runs_services).
    breakeven = summary["options"]["p5 on demand"]["breakeven_month"]
    assert breakeven == {"min": 12.0, "max": 31.0, "never_share": 0.0}
    assert "4 points in 1 chunks" in err.getvalue()


def test_run_sweep_refuses_an_axis_over_an_unknown_input(run_scenario):
    with pytest.raises(CommandError, match="refused: axes\\[0\\].path: 'gpus' is not a numeric input"):
        call_command("run_sweep", str(run_scenario.pk), "--axis", "gpus=1,2", stdout=io.StringIO(),
                     stderr=io.StringIO())

    assert SweepRun.objects.count() == 0
