"""The demo data belongs to the Demo team, and the demo admin approves in it."""
from __future__ import annotations

import io

from django.contrib.auth import get_user_model
from django.core.management import call_command

from teams.models import Membership
from teams.models import Role


def test_the_demo_scenarios_belong_to_the_demo_team(demo_scenarios):
    assert {scenario.team.slug for scenario in demo_scenarios.values()} == {"demo"}


def test_the_demo_admin_is_an_approver_of_the_demo_team(db, settings):
    settings.DEBUG = True

    call_command("ensure_demo_admin", stdout=io.StringIO())
    call_command("ensure_demo_admin", stdout=io.StringIO())  # twice: still one membership

    admin = get_user_model().objects.get(username="admin")
    assert list(Membership.objects.filter(user=admin).values_list("team__slug", "role")) == [
        ("demo", Role.APPROVER)]
