"""Issue 24 without a browser: the home's sections by role, plans refused on their fields, the
refresh started by staff only (admin and API) from an uploaded price list, tokens people make
and revoke themselves, the API root and page sizes, and the Monte Carlo sample limit."""
from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient

from catalog.models import PriceRefreshJob
from catalog.models import RefreshStatus
from core.pagination import MAX_PAGE_SIZE
from tco.models import ProcurementPlan
from tco.runs.limits import MAX_RUN_POINTS
from teams.tokens import api_token_create
from tests.catalog.test_refresh import SAMPLES
from tests.teams.members import member

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media")]
LAMBDA_SAMPLE = SAMPLES / "lambda-instance-types-sample.json"


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def staff(db):
    return get_user_model().objects.create_user("staff", password="pw", is_staff=True)


def lambda_upload(name: str = "lambda-instance-types-sample.json") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, LAMBDA_SAMPLE.read_bytes(), content_type="application/json")


# --- the home --------------------------------------------------------------------------------


def test_a_member_sees_their_scenarios_answers_and_no_operations(client, demo_scenarios):
    client.force_login(member("ana"))

    page = client.get("/admin/").content.decode()

    for name in demo_scenarios:
        assert name in page
    assert page.count('class="verdict"') == 3
    assert 'id="operations"' not in page and "Periodic tasks" not in page


def test_staff_see_operations_apart_below_the_work(admin_client, demo_scenarios):
    page = admin_client.get("/admin/").content.decode()

    assert page.index("home-scenarios") < page.index('id="operations"') < page.index("Periodic tasks")


# --- plans -----------------------------------------------------------------------------------


def test_a_plan_the_api_would_refuse_is_refused_on_its_field_and_nothing_is_saved(
        admin_client, demo_scenarios):
    scenario = demo_scenarios["8x H100 training cluster"]
    url = f"/admin/tco/procurementplan/add/?scenario={scenario.pk}"
    form = {"scenario": scenario.pk, "name": "too big", "demand_kind": "table", "demand_table": "8, 9, -1",
            "lead_time_months": 0, "existing_systems": 0, "draws": 0}

    answer = admin_client.post(url, form)

    assert answer.status_code == 200
    errors = answer.context["form"].errors
    assert "month 3 is -1; demand must be 0 or more" in errors["demand_table"][0]
    assert not ProcurementPlan.objects.filter(name="too big").exists()


def test_a_plan_made_in_the_admin_has_the_spec_the_api_takes(admin_client, demo_scenarios):
    scenario = demo_scenarios["8x H100 training cluster"]
    form = {"scenario": scenario.pk, "name": "growth", "demand_kind": "growth", "demand_start": 8,
            "growth_percent_per_month": 5, "months": 24, "lead_time_months": 4, "existing_systems": 0,
            "site_it_power_kw": 100, "draws": 500, "growth_spread_percent": 2,
            "rent_price_spread_percent": 20}

    answer = admin_client.post(f"/admin/tco/procurementplan/add/?scenario={scenario.pk}", form)

    assert answer.status_code == 302, answer.context["form"].errors
    plan = ProcurementPlan.objects.get(name="growth")
    assert answer.status_code == 302 and answer.url.endswith(f"/{plan.pk}/change/")
    assert plan.spec["demand"] == {"start": 8.0, "growth_per_month": 0.05, "months": 24}
    assert plan.spec["owned"][0]["lead_time_months"] == 4
    assert plan.spec["limits"] == {"site_it_power_kw": 100.0}
    assert plan.spec["uncertainty"]["draws"] == 500
    assert plan.spec["uncertainty"]["rent_price_factor"] == {"kind": "triangular", "low": 0.8, "mode": 1,
                                                             "high": 1.2}


# --- refresh on demand -----------------------------------------------------------------------


def test_staff_refresh_an_uploaded_lambda_price_list_from_the_admin(client, staff, catalog):
    client.force_login(staff)

    answer = client.post("/admin/catalog/pricerefreshjob/refresh/",
                         {"provider": "lambda", "price_list": lambda_upload(), "refresh": "1"})

    assert answer.status_code == 302 and "task_id=" in answer.url
    # The test settings run tasks inline, where a job records no task id (a worker's job does:
    # the browser test follows that link); the one job is this refresh's.
    job = PriceRefreshJob.objects.get()
    assert (job.status, job.provider, job.prices_new) == (RefreshStatus.SUCCEEDED, "lambda", 4)


def test_only_staff_start_a_refresh(client):
    client.force_login(member("ana"))

    assert client.get("/admin/catalog/pricerefreshjob/refresh/").status_code == 403
    api = APIClient()
    api.force_authenticate(member("bo"))
    assert api.post("/api/v1/price-refresh-jobs/refresh/", {"provider": "lambda"}).status_code == 403


def test_the_api_starts_a_refresh_and_names_the_job_to_poll(staff, catalog):
    api = APIClient()
    api.force_authenticate(staff)

    answer = api.post("/api/v1/price-refresh-jobs/refresh/", {"provider": "lambda",
                                                              "price_list": lambda_upload()},
                      format="multipart")

    assert answer.status_code == 202
    assert answer.json()["jobs"].endswith(f"/api/v1/price-refresh-jobs/?task_id={answer.json()['task_id']}")
    # Run inline here, the job records no task id (a worker's does); the one job is this one.
    polled = api.get("/api/v1/price-refresh-jobs/").json()["results"]
    assert [(job["status"], job["prices_new"]) for job in polled] == [("succeeded", 4)]


def test_a_price_list_that_is_not_one_is_refused_on_its_field(staff):
    api = APIClient()
    api.force_authenticate(staff)

    answer = api.post("/api/v1/price-refresh-jobs/refresh/",
                      {"provider": "lambda", "price_list": SimpleUploadedFile("prices.txt", b"x")},
                      format="multipart")

    assert answer.status_code == 400
    assert "a price list is a .json or .csv file" in answer.json()["price_list"][0]
    assert not PriceRefreshJob.objects.exists()


# --- tokens ----------------------------------------------------------------------------------


def test_a_user_makes_names_and_revokes_their_own_token(client):
    user = member("ana")
    client.force_login(user)
    expiry = timezone.localtime() + dt.timedelta(days=30)

    page = client.post("/admin/my-api-tokens/", {"create": "1", "name": "budget sync",
                                                 "expiry_0": expiry.date().isoformat(),
                                                 "expiry_1": "12:00:00"}).content.decode()

    token = AuthToken.objects.get(user=user)
    assert token.label.name == "budget sync" and "budget sync" in page
    assert 'id="token-key"' in page
    client.post("/admin/my-api-tokens/", {"revoke": token.digest})
    assert not AuthToken.objects.filter(user=user).exists()


def test_a_token_may_not_outlive_the_configured_lifetime(client):
    client.force_login(member("ana"))
    late = timezone.localtime() + dt.timedelta(days=400)

    form = {"create": "1", "name": "x", "expiry_0": late.date().isoformat(), "expiry_1": "12:00:00"}
    answer = client.post("/admin/my-api-tokens/", form)

    assert "at most 90 days from now" in answer.context["form"].errors["expiry"][0]
    assert not AuthToken.objects.exists()


def test_another_users_token_cannot_be_revoked(client):
    owner = member("owner")
    token, _ = api_token_create(user=owner, name="owner's", expiry=timezone.now() + dt.timedelta(days=1))
    client.force_login(member("ana"))

    client.post("/admin/my-api-tokens/", {"revoke": token.digest})

    assert AuthToken.objects.filter(pk=token.pk).exists()


def test_staff_pick_the_user_of_a_token_by_name(client, staff):
    client.force_login(staff)

    page = client.get("/admin/knox/authtoken/add/").content.decode()

    assert "admin-autocomplete" in page and "vForeignKeyRawIdAdminField" not in page


# --- the API ---------------------------------------------------------------------------------


def test_the_api_root_lists_every_endpoint(client):
    body = client.get("/api/v1/", HTTP_ACCEPT="application/json").json()

    for name in ("evaluate", "sizing", "sizing/presets", "sizing/throughput", "vocabulary",
                 "price-refresh-jobs/refresh", "scenarios", "plans"):
        assert name in body, name
    assert body["evaluate"].endswith("/api/v1/evaluate/")


def test_page_size_is_honoured_up_to_its_maximum(client, catalog):
    assert len(client.get("/api/v1/accelerators/?page_size=2").json()["results"]) == 2
    body = client.get(f"/api/v1/offerings/?page_size={MAX_PAGE_SIZE * 10}").json()
    assert len(body["results"]) == min(body["count"], MAX_PAGE_SIZE)


def test_the_docs_try_requests_with_a_token(client):
    schema = client.get("/api/schema/?format=json").json()

    assert set(schema["components"]["securitySchemes"]) == {"knoxApiToken"}


def test_the_monte_carlo_sample_limit_holds_without_the_browser(admin_client, demo_scenarios):
    scenario = demo_scenarios["8x H100 training cluster"]

    answer = admin_client.post(f"/admin/tco/sweeprun/start/{scenario.pk}/monte_carlo/",
                               {"samples": MAX_RUN_POINTS + 1, "histogram_bins": 40,
                                "distributions": "workload.utilisation=uniform(0.5,0.9)"})

    assert answer.status_code == 200
    error = answer.context["form"].errors["samples"][0].replace(",", "")
    assert f"less than or equal to {MAX_RUN_POINTS}" in error
