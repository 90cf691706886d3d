"""Staff keep the catalog and the schedules' timing; they do not choose teams or task arguments.

Team membership is managed by superusers and, for their own team, by its approvers: a staff
user who is only a viewer of alpha cannot join beta or promote themselves. A scheduled price
refresh's task, arguments (its feed location) and queue are set by superusers; staff change
when it runs.
"""
from __future__ import annotations

import json

import pytest
from django.urls import reverse
from django_celery_beat.models import IntervalSchedule
from django_celery_beat.models import PeriodicTask

from teams.models import Membership
from teams.models import Role
from tests.teams.members import member
from tests.teams.members import team


@pytest.fixture
def staff(db):
    """Staff, and a viewer of alpha."""
    return member("stella", of="alpha", role=Role.VIEWER, is_staff=True)


def test_staff_cannot_add_themselves_to_a_team(client, staff):
    beta = team("beta")
    client.force_login(staff)

    listing = client.get(reverse("admin:teams_membership_changelist"))
    added = client.post(reverse("admin:teams_membership_add"),
                        {"user": staff.pk, "team": beta.pk, "role": Role.APPROVER})
    team_page = client.get(reverse("admin:teams_team_change", args=[beta.pk]))

    assert (listing.status_code, added.status_code, team_page.status_code) == (403, 403, 404)
    assert not Membership.objects.filter(user=staff, team=beta).exists()
    assert Membership.objects.get(user=staff).role == Role.VIEWER


def test_an_approver_manages_their_teams_members_only(client, approver, outsider, staff):
    client.force_login(approver)  # alpha's approver; outsider is beta's analyst

    added = client.post(reverse("admin:teams_membership_add"),
                        {"user": "otto", "team": team("alpha").pk, "role": Role.VIEWER})
    elsewhere = client.post(reverse("admin:teams_membership_add"),
                            {"user": "april", "team": team("beta").pk, "role": Role.APPROVER})
    listing = client.get(reverse("admin:teams_membership_changelist"))
    beta_row = Membership.objects.get(user=outsider, team__slug="beta")

    assert added.status_code == 302
    assert Membership.objects.get(user=outsider, team__slug="alpha").role == Role.VIEWER
    assert elsewhere.status_code == 200 and elsewhere.context["adminform"].form.errors["team"]
    assert not Membership.objects.filter(user=approver, team__slug="beta").exists()
    assert {row.team.slug for row in listing.context["cl"].result_list} == {"alpha"}
    assert client.get(reverse("admin:teams_membership_change", args=[beta_row.pk])).status_code == 404


def test_a_superuser_manages_every_team(admin_client, outsider):
    response = admin_client.post(reverse("admin:teams_membership_add"),
                                 {"user": outsider.pk, "team": team("alpha").pk, "role": Role.ANALYST})

    assert response.status_code == 302
    assert Membership.objects.get(user=outsider, team__slug="alpha").role == Role.ANALYST


@pytest.fixture
def schedule(db) -> PeriodicTask:
    every_day = IntervalSchedule.objects.create(every=1, period=IntervalSchedule.DAYS)
    return PeriodicTask.objects.create(name="refresh lambda", task="catalog.tasks.refresh_prices_task",
                                       interval=every_day, kwargs=json.dumps({"provider": "lambda"}))


def test_staff_change_when_a_schedule_runs_but_not_what_it_runs(client, staff, schedule):
    every_hour = IntervalSchedule.objects.create(every=1, period=IntervalSchedule.HOURS)
    client.force_login(staff)
    url = reverse("admin:django_celery_beat_periodictask_change", args=[schedule.pk])

    response = client.post(url, {
        "enabled": "on", "interval": every_hour.pk, "task": "catalog.tasks.refresh_prices_task",
        "kwargs": json.dumps({"provider": "lambda", "location": "http://127.0.0.1:9/"}),
        "queue": "celery", "name": "renamed"})

    schedule.refresh_from_db()
    assert response.status_code == 302
    assert schedule.interval == every_hour
    assert (schedule.name, json.loads(schedule.kwargs), schedule.queue) == (
        "refresh lambda", {"provider": "lambda"}, None)


def test_only_superusers_add_or_delete_schedules(client, admin_client, staff, schedule):
    client.force_login(staff)

    assert client.get(reverse("admin:django_celery_beat_periodictask_add")).status_code == 403
    assert client.post(reverse("admin:django_celery_beat_periodictask_delete", args=[schedule.pk]),
                       {"post": "yes"}).status_code == 403
    assert admin_client.get(reverse("admin:django_celery_beat_periodictask_add")).status_code == 200
