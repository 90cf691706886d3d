"""Expired tokens deleted by a periodic clean-up, refresh jobs for
signed-in users only, refresh sources limited to the folders settings list, housekeeping
schedules out of staff's reach."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from django_celery_beat.models import PeriodicTask
from knox.models import AuthToken

from catalog.models import PriceRefreshJob
from catalog.models import RefreshStatus
from catalog.refresh.services import price_refresh_run
from teams.tasks import expired_tokens_delete_task
from tests.teams.members import member

pytestmark = pytest.mark.django_db


def test_expired_tokens_are_deleted_by_the_hourly_clean_up(db):
    user = member("budget-tool")
    expired, _ = AuthToken.objects.create(user=user, expiry=timedelta(days=1))
    AuthToken.objects.filter(pk=expired.pk).update(expiry=timezone.now() - timedelta(minutes=1))
    live, _ = AuthToken.objects.create(user=user, expiry=timedelta(days=1))

    assert expired_tokens_delete_task.apply().get() == 1

    assert list(AuthToken.objects.values_list("pk", flat=True)) == [live.pk]
    schedule = PeriodicTask.objects.get(task="teams.tasks.expired_tokens_delete_task")
    assert (schedule.enabled, schedule.interval.every, schedule.interval.period) == (True, 3600, "seconds")


def test_refresh_jobs_are_for_signed_in_users_only(client, db):
    PriceRefreshJob.objects.create(provider="lambda", location="/srv/feeds/lambda.json",
                                   started_at=timezone.now(), error="lambda.json: bad row 3")

    assert client.get("/api/v1/price-refresh-jobs/").status_code == 401
    client.force_login(member("reader"))
    assert client.get("/api/v1/price-refresh-jobs/").json()["count"] == 1


def test_a_refresh_reads_no_file_outside_the_listed_folders(settings, tmp_path):
    settings.PRICE_FEED_FOLDERS = [str(tmp_path / "feeds")]
    (tmp_path / "feeds").mkdir()

    for outside in ("/proc/self/environ", str(tmp_path / "feeds" / ".." / "secret.json")):
        job = price_refresh_run(provider="lambda", location=outside)

        assert job.status == RefreshStatus.FAILED
        assert job.error_code == "folder_not_allowed"
        assert "not in a folder listed in PRICE_FEED_FOLDERS; nothing was read" in job.error
        assert "HOME=" not in job.error


@pytest.fixture
def staff(db):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user("stef", password="pw", is_staff=True)


def test_staff_cannot_change_or_run_the_housekeeping_schedules(client, staff):
    reaper = PeriodicTask.objects.get(task="tco.tasks.sweep_runs_reap_task")
    client.force_login(staff)
    url = reverse("admin:django_celery_beat_periodictask_change", args=[reaper.pk])

    response = client.post(url, {"enabled": "", "interval": reaper.interval_id})
    changelist = reverse("admin:django_celery_beat_periodictask_changelist")
    run = client.post(changelist, {"action": "run_tasks", "_selected_action": [reaper.pk]})
    disable = client.post(changelist, {"action": "disable_tasks", "_selected_action": [reaper.pk]})

    reaper.refresh_from_db()
    assert response.status_code == 403
    assert reaper.enabled is True
    assert run.status_code == disable.status_code == 200  # "no action selected": the list again
    assert client.get(url).status_code == 200  # they still see it, read-only
    assert json.loads(reaper.kwargs or "{}") == {}


@pytest.mark.parametrize("uploader", ["analyst", "staff"])
def test_an_uploader_reads_the_page_of_their_import(client, catalog, uploader):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from catalog.models import QuoteImport
    from teams.models import Role
    from tests.catalog.quote_files import offering_rows

    if uploader == "analyst":
        user, team = member("ana", of="alpha", role=Role.ANALYST), "alpha"
    else:
        from django.contrib.auth import get_user_model

        user, team = get_user_model().objects.create_user("stef", password="pw", is_staff=True), ""
    client.force_login(user)
    upload = SimpleUploadedFile("quote.csv", offering_rows(3), content_type="text/csv")
    team_id = "" if not team else str(user.memberships.get().team_id)

    response = client.post(reverse("admin:catalog_pricepoint_import"), {"team": team_id, "file": upload})

    job = QuoteImport.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:catalog_quoteimport_change", args=[job.pk])
    page = client.get(response["Location"])
    assert page.status_code == 200
    assert "quote.csv" in page.content.decode()
