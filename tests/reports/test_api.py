"""The export API: 202 and a job to poll, a download link once done, 409 with the reason otherwise."""

from __future__ import annotations

import datetime as dt
import io

import pytest
from django.contrib.auth import get_user_model
from openpyxl import load_workbook
from rest_framework.test import APIClient

from reports.choices import ExportStatus
from reports.models import ReportExport
from tests.teams.members import team

pytestmark = pytest.mark.django_db

EXPORTS = "/api/v1/report-exports/"


def test_a_request_answers_202_then_the_job_gives_a_download_link(
    api, scenario, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            EXPORTS, {"scenario": scenario.pk, "format": "xlsx", "paper_size": "letter"}, format="json"
        )

    assert response.status_code == 202, response.json()
    # The job row as it was when the request was accepted; the worker (inline here) ran after.
    assert response.json()["status"] == "pending"
    assert response["Location"].endswith(f"{EXPORTS}{response.json()['id']}/")
    job = api.get(response["Location"]).json()
    assert job["status"] == "done"
    assert (job["format"], job["paper_size"], job["scenario_name"]) == ("xlsx", "letter", scenario.name)
    assert job["key_figures"]["buy"]["total_usd"] > 0
    download = api.get(job["download_url"])
    assert download.status_code == 200
    assert download["Content-Type"] == "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    assert 'filename="8x-h100-training-cluster-report-' in download["Content-Disposition"]
    workbook = load_workbook(io.BytesIO(b"".join(download.streaming_content)))
    assert workbook["Summary"]["B4"].value == scenario.name


def test_a_failed_export_shows_its_reason_and_offers_no_download(
    api, scenario, django_capture_on_commit_callbacks
):
    scenario.prices_as_of = dt.date(2000, 1, 1)  # before any catalog price
    scenario.save()
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(EXPORTS, {"scenario": scenario.pk, "format": "pdf"}, format="json")

    job = api.get(response["Location"]).json()
    assert (job["status"], job["failure_type"], job["download_url"]) == ("failed", "user", None)
    assert "no price for AWS p5.48xlarge (8x H100 SXM5 80 GB)" in job["error"]
    download = api.get(f"{EXPORTS}{job['id']}/download/")
    assert download.status_code == 409
    assert download.json() == {"status": "failed", "detail": job["error"]}


def test_a_pending_export_has_no_file_yet(api, scenario):
    response = api.post(EXPORTS, {"scenario": scenario.pk, "format": "pdf"}, format="json")

    download = api.get(f"{EXPORTS}{response.json()['id']}/download/")
    assert download.status_code == 409
    assert download.json()["detail"] == "The export is pending; no file yet."


def test_it_refuses_a_scenario_of_another_user_and_writes_nothing(scenario):
    stranger = APIClient()
    stranger.force_authenticate(get_user_model().objects.create_user("stranger", password="pw"))

    response = stranger.post(EXPORTS, {"scenario": scenario.pk, "format": "xlsx"}, format="json")

    assert response.status_code == 400
    assert "scenario" in response.json()
    assert ReportExport.objects.count() == 0


def test_it_refuses_an_unknown_format(api, scenario):
    response = api.post(EXPORTS, {"scenario": scenario.pk, "format": "docx"}, format="json")

    assert response.status_code == 400
    assert "format" in response.json()
    assert ReportExport.objects.count() == 0


def test_the_list_shows_only_the_users_teams_exports_filtered_by_status(api, scenario, planner):
    other_owner = get_user_model().objects.create_user("other", password="pw")
    common = {"prices_as_of": dt.date(2026, 1, 1), "scenario_updated_at": scenario.updated_at}
    ReportExport.objects.create(scenario=scenario, format="xlsx", **common)
    ReportExport.objects.create(
        scenario=scenario,
        format="pdf",
        status=ExportStatus.FAILED,
        failure_type="user",
        error="no price",
        **common,
    )
    scenario.pk = None  # a copy owned by someone else, in another team
    scenario.owner = other_owner
    scenario.team = team("other")
    scenario.save()
    ReportExport.objects.create(scenario=scenario, format="xlsx", **common)

    assert api.get(EXPORTS).json()["count"] == 2
    assert [job["format"] for job in api.get(EXPORTS, {"status": "failed"}).json()["results"]] == ["pdf"]


def test_regenerate_answers_202_with_a_new_job_on_the_same_price_date(
    api, scenario, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        first = api.post(EXPORTS, {"scenario": scenario.pk, "format": "xlsx"}, format="json").json()
        again = api.post(f"{EXPORTS}{first['id']}/regenerate/")

    assert again.status_code == 202
    assert again.json()["id"] != first["id"]
    first_job, again_job = api.get(f"{EXPORTS}{first['id']}/").json(), api.get(again["Location"]).json()
    assert again_job["prices_as_of"] == first_job["prices_as_of"]
    assert again_job["key_figures"] == first_job["key_figures"]
