"""Teams and members for tests: a user with a role in a team, created in one call."""
from __future__ import annotations

from django.contrib.auth import get_user_model

from teams.models import Membership
from teams.models import Role
from teams.models import Team

DEMO = "demo"


def team(slug: str = DEMO) -> Team:
    """The team with this slug, created if missing (transactional tests flush the migration's)."""
    found, _ = Team.objects.get_or_create(slug=slug, defaults={"name": slug.title()})
    return found


def member(username: str, *, of: str = DEMO, role: Role = Role.ANALYST, **user_fields):
    """A new user with ``role`` in the team ``of`` (a slug)."""
    user = get_user_model().objects.create_user(username, password="pw", **user_fields)
    Membership.objects.create(user=user, team=team(of), role=role)
    return user
