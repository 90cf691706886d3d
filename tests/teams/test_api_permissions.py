"""Every API endpoint shows a user only their teams' objects (another team's is 404, never 403),
a viewer cannot write (403), an analyst can, and only an approver approves.

Requests that name an object in their body (start a run, request an export) answer 400
"does not exist" for another team's scenario, exactly as for an id that exists nowhere.
"""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from reports.models import ReportExport
from tco.models import Scenario
from tco.models import ScenarioStatus
from tco.models import SweepRun
from teams.models import Membership
from teams.models import Role
from tests.teams.conftest import client_of
from tests.teams.conftest import scenario_body
from tests.teams.members import member
from tests.teams.members import team

S = "/api/v1/scenarios/{pk}/"

# (method, path, body) of every request about one scenario.
SCENARIO_REQUESTS = {
    "retrieve": ("get", S, None),
    "update": ("put", S, "full"),
    "partial_update": ("patch", S, {"utilisation": "0.5"}),
    "destroy": ("delete", S, None),
    "evaluate": ("post", S + "evaluate/", None),
    "clone": ("post", S + "clone/", None),
    "approve": ("post", S + "approve/", None),
    "history": ("get", S + "history/", None),
}
SCENARIO_WRITES = ["update", "partial_update", "destroy", "evaluate", "clone", "approve"]


def send(client, method: str, path: str, body=None, **headers):
    return getattr(client, method)(path, body, format="json", headers=headers)


def scenario_request(client, scenario: Scenario, name: str):
    method, path, body = SCENARIO_REQUESTS[name]
    if body == "full":
        body = scenario_body()
    return send(client, method, path.format(pk=scenario.pk), body, **{"If-Match": f'"{scenario.revision}"'})


# --- scenarios --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", SCENARIO_REQUESTS)
def test_another_teams_scenario_is_not_found(outsider, alpha_scenario, name):
    response = scenario_request(client_of(outsider), alpha_scenario, name)

    assert response.status_code == 404
    assert Scenario.objects.filter(pk=alpha_scenario.pk, status=ScenarioStatus.DRAFT).exists()


def test_the_scenario_list_shows_only_the_users_teams(outsider, alpha_scenario, beta_scenario):
    listed = client_of(outsider).get("/api/v1/scenarios/").json()

    assert [row["id"] for row in listed["results"]] == [beta_scenario.pk]


@pytest.mark.parametrize("name", SCENARIO_WRITES)
def test_a_viewer_cannot_write_a_scenario(viewer, alpha_scenario, name):
    response = scenario_request(client_of(viewer), alpha_scenario, name)

    assert response.status_code == 403
    assert Scenario.objects.get(pk=alpha_scenario.pk).revision == alpha_scenario.revision


def test_a_viewer_reads_the_scenario_and_its_history(viewer, alpha_scenario):
    client = client_of(viewer)

    assert scenario_request(client, alpha_scenario, "retrieve").status_code == 200
    assert scenario_request(client, alpha_scenario, "history").status_code == 200


def test_a_viewer_cannot_create_a_scenario(viewer, catalog):
    response = client_of(viewer).post("/api/v1/scenarios/", scenario_body(), format="json")

    assert response.status_code == 403
    assert not Scenario.objects.exists()


@pytest.mark.parametrize(("name", "status"), [
    ("partial_update", 200), ("update", 200), ("evaluate", 200), ("clone", 201), ("destroy", 204),
])
def test_an_analyst_writes_a_scenario_of_their_team(analyst, alpha_scenario, name, status):
    response = scenario_request(client_of(analyst), alpha_scenario, name)

    assert response.status_code == status


def test_an_analyst_creates_a_scenario_in_their_only_team(analyst, catalog):
    response = client_of(analyst).post("/api/v1/scenarios/", scenario_body(), format="json")

    assert response.status_code == 201, response.json()
    assert response.json()["team"] == "alpha"
    assert Scenario.objects.get(pk=response.json()["id"]).team.slug == "alpha"


def test_a_user_in_no_team_is_told_why_they_cannot_create_a_scenario(catalog):
    loner = get_user_model().objects.create_user("loner")

    response = client_of(loner).post("/api/v1/scenarios/", scenario_body(), format="json")

    assert response.status_code == 400
    assert response.json()["team"] == [
        "you belong to no team that may do this; ask an administrator to add you to one"]


def test_a_member_of_two_teams_names_one_and_cannot_name_a_team_they_are_not_in(catalog):
    bea = member("bea", of="alpha")
    Membership.objects.create(user=bea, team=team("beta"), role=Role.ANALYST)
    team("gamma")
    client = client_of(bea)

    unnamed = client.post("/api/v1/scenarios/", scenario_body(), format="json")
    not_theirs = client.post("/api/v1/scenarios/", scenario_body(team="gamma"), format="json")
    named = client.post("/api/v1/scenarios/", scenario_body(team="beta"), format="json")

    assert unnamed.status_code == 400
    assert unnamed.json()["team"] == ["name the team: one of alpha, beta"]
    assert not_theirs.status_code == 400
    assert not_theirs.json()["team"] == ["Object with slug=gamma does not exist."]
    assert named.status_code == 201
    assert Scenario.objects.get().team.slug == "beta"


def test_only_an_approver_approves(analyst, approver, alpha_scenario):
    by_analyst = scenario_request(client_of(analyst), alpha_scenario, "approve")
    by_approver = scenario_request(client_of(approver), alpha_scenario, "approve")
    again = scenario_request(client_of(approver), alpha_scenario, "approve")

    assert by_analyst.status_code == 403
    assert by_approver.status_code == 200
    assert (by_approver.json()["status"], by_approver.json()["approved_by"]) == ("approved", "april")
    assert again.status_code == 409


# --- stateless evaluation and sizing ----------------------------------------------------------


def test_a_viewer_may_evaluate_and_size_without_saving(viewer, catalog):
    client = client_of(viewer)
    sizing = {"accelerator": "h100-sxm-80gb", "mode": "inference", "model": "llama-3.1-8b",
              "tokens_per_s": 1000}

    assert client.post("/api/v1/evaluate/", scenario_body(), format="json").status_code == 200
    assert client.post("/api/v1/sizing/", sizing, format="json").status_code == 200
    assert not Scenario.objects.exists()


# --- runs -------------------------------------------------------------------------------------

RUN = "/api/v1/runs/{pk}/"


@pytest.mark.parametrize(("method", "path"), [
    ("get", RUN), ("post", RUN + "cancel/"), ("get", RUN + "summary/"),
    ("get", RUN + "result.parquet/"), ("get", RUN + "result.csv/"),
])
def test_another_teams_run_is_not_found(outsider, alpha_run, method, path):
    response = send(client_of(outsider), method, path.format(pk=alpha_run.pk))

    assert response.status_code == 404
    assert client_of(outsider).get("/api/v1/runs/").json()["count"] == 0


def test_a_run_on_another_teams_scenario_cannot_start(outsider, alpha_scenario):
    response = client_of(outsider).post("/api/v1/runs/", {
        "scenario": alpha_scenario.pk, "kind": "sensitivity", "spec": {"step_share": 0.1}}, format="json")

    assert response.status_code == 400
    assert "does not exist" in response.json()["scenario"][0]
    assert not SweepRun.objects.exists()


def test_a_viewer_reads_runs_but_cannot_start_or_cancel_one(viewer, alpha_run):
    client = client_of(viewer)
    start = client.post("/api/v1/runs/", {"scenario": alpha_run.scenario_id, "kind": "sensitivity",
                                          "spec": {"step_share": 0.1}}, format="json")

    assert client.get(RUN.format(pk=alpha_run.pk)).status_code == 200
    assert start.status_code == 403
    assert client.post(RUN.format(pk=alpha_run.pk) + "cancel/").status_code == 403
    assert SweepRun.objects.count() == 1


def test_an_analyst_starts_and_cancels_a_run(analyst, alpha_scenario, django_capture_on_commit_callbacks):
    client = client_of(analyst)
    with django_capture_on_commit_callbacks():
        started = client.post("/api/v1/runs/", {"scenario": alpha_scenario.pk, "kind": "sensitivity",
                                                "spec": {"step_share": 0.1}}, format="json")

    cancelled = client.post(RUN.format(pk=started.json()["id"]) + "cancel/")

    assert started.status_code == 202
    assert cancelled.status_code == 202


# --- report exports ---------------------------------------------------------------------------

EXPORT = "/api/v1/report-exports/{pk}/"


@pytest.mark.parametrize(("method", "path"), [
    ("get", EXPORT), ("get", EXPORT + "download/"), ("post", EXPORT + "regenerate/"),
])
def test_another_teams_export_is_not_found(outsider, alpha_export, method, path):
    response = send(client_of(outsider), method, path.format(pk=alpha_export.pk))

    assert response.status_code == 404
    assert client_of(outsider).get("/api/v1/report-exports/").json()["count"] == 0
    assert ReportExport.objects.count() == 1


def test_an_export_of_another_teams_scenario_cannot_be_requested(outsider, alpha_scenario):
    response = client_of(outsider).post("/api/v1/report-exports/", {
        "scenario": alpha_scenario.pk, "format": "xlsx"}, format="json")

    assert response.status_code == 400
    assert "does not exist" in response.json()["scenario"][0]


def test_a_viewer_reads_exports_but_cannot_request_or_regenerate_one(viewer, alpha_export):
    client = client_of(viewer)

    assert client.get("/api/v1/report-exports/").json()["count"] == 1
    assert client.get(EXPORT.format(pk=alpha_export.pk)).status_code == 200
    assert client.post("/api/v1/report-exports/", {"scenario": alpha_export.scenario_id,
                                                   "format": "xlsx"}, format="json").status_code == 403
    assert client.post(EXPORT.format(pk=alpha_export.pk) + "regenerate/").status_code == 403
    assert ReportExport.objects.count() == 1


def test_an_analyst_requests_and_regenerates_an_export(analyst, alpha_export,
                                                       django_capture_on_commit_callbacks):
    client = client_of(analyst)
    with django_capture_on_commit_callbacks():  # queued, not built
        requested = client.post("/api/v1/report-exports/", {"scenario": alpha_export.scenario_id,
                                                             "format": "pdf"}, format="json")
        regenerated = client.post(EXPORT.format(pk=alpha_export.pk) + "regenerate/")

    assert (requested.status_code, regenerated.status_code) == (202, 202)
    assert ReportExport.objects.count() == 3


# --- price alerts -----------------------------------------------------------------------------


def test_another_teams_price_alert_is_not_found(outsider, viewer, alpha_alert):
    assert client_of(outsider).get(f"/api/v1/price-alerts/{alpha_alert.pk}/").status_code == 404
    assert client_of(outsider).get("/api/v1/price-alerts/").json()["count"] == 0
    assert client_of(viewer).get(f"/api/v1/price-alerts/{alpha_alert.pk}/").status_code == 200


def test_price_alerts_are_read_only(analyst, alpha_alert):
    client = client_of(analyst)

    assert client.post("/api/v1/price-alerts/", {}, format="json").status_code == 405
    assert client.delete(f"/api/v1/price-alerts/{alpha_alert.pk}/").status_code == 405


# --- catalog and price refresh jobs -----------------------------------------------------------


CATALOG = ["sources", "accelerators", "systems", "offerings", "price-points", "cooling-technologies",
           "facility-profiles", "power-densities"]


@pytest.mark.parametrize("collection", CATALOG)
@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_only_staff_write_the_catalog(approver, catalog, collection, method):
    client = client_of(approver)
    first = client.get(f"/api/v1/{collection}/").json()["results"][0]
    path = f"/api/v1/{collection}/" if method == "post" else f"/api/v1/{collection}/{first['id']}/"

    response = send(client, method, path, {})

    assert response.status_code == 403
    assert client.get(f"/api/v1/{collection}/{first['id']}/").json() == first


def test_staff_write_the_catalog(catalog):
    staff = member("stella", of="alpha", role=Role.VIEWER, is_staff=True)

    response = client_of(staff).post("/api/v1/sources/", {"key": "new-source", "title": "New",
                                                           "kind": "quote"}, format="json")

    assert response.status_code == 201


def test_price_refresh_jobs_and_sizing_presets_are_read_by_anyone_and_written_by_no_one(viewer, catalog):
    client = client_of(viewer)

    assert client.get("/api/v1/price-refresh-jobs/").status_code == 200
    assert client.post("/api/v1/price-refresh-jobs/", {"provider": "aws"}, format="json").status_code == 405
    assert client.get("/api/v1/sizing/presets/").status_code == 200
    assert client.post("/api/v1/sizing/presets/", {}, format="json").status_code == 405
