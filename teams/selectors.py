"""Which teams a user acts for, and the one filter every team-owned queryset goes through.

Another team's objects are filtered out rather than refused, so to the API and the admin they
do not exist (404, never 403). Superusers act for every team with every role.
"""
from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db.models import Model
from django.db.models import QuerySet

from teams.models import Membership
from teams.models import Role
from teams.models import Team

User = AbstractBaseUser | AnonymousUser


# How a new object's team is chosen when the client names none (``team_for_new_object``), as
# the API's schema says it on every ``team`` field.
DEFAULT_TEAM_RULE = ("Empty = your only team in which you may do this (a superuser's: the one "
                     "team they are a member of); with several, a 400 on team lists them to "
                     "choose from.")
# Teams a refusal lists by name; the rest are counted.
TEAMS_LISTED = 10


class TeamChoiceError(ValueError):
    """No team can be chosen for a new object: the user has none, or several and named none."""


def teams_of(user: User, *, role: Role = Role.VIEWER) -> QuerySet[Team]:
    """Teams in which ``user`` has ``role`` or a role above it (VIEWER: every team they are in)."""
    if not user.is_authenticated:
        return Team.objects.none()
    if user.is_superuser:
        return Team.objects.all()
    return Team.objects.filter(memberships__user=user, memberships__role__in=Role.at_least(role))


def for_teams(queryset: QuerySet, user: User, *, team_path: str = "team",
              role: Role = Role.VIEWER) -> QuerySet:
    """``queryset`` narrowed to rows whose team (reached by ``team_path``) ``user`` has ``role`` in."""
    return queryset.filter(**{f"{team_path}__in": teams_of(user, role=role)})


def has_role(user: User, team_id: int | None, role: Role) -> bool:
    """Whether ``user`` has ``role`` (or above) in the team ``team_id``."""
    return team_id is not None and teams_of(user, role=role).filter(pk=team_id).exists()


def is_team_member(user: User) -> bool:
    """Whether ``user`` belongs to at least one team."""
    return user.is_authenticated and Membership.objects.filter(user=user).exists()


def team_id_of(obj: Model, team_path: str) -> int | None:
    """The id of the team an object belongs to, following ``team_path`` ("scenario__team")."""
    *hops, last = team_path.split("__")
    for hop in hops:
        obj = getattr(obj, hop)
    return getattr(obj, f"{last}_id")


def team_for_new_object(user: User, *, team: Team | None = None,
                        role: Role = Role.ANALYST) -> Team:
    """The team a new object of ``user`` goes to: ``team`` if given, else their only team. A
    superuser may act in every team, so theirs is the one team they are a member of (with
    ``role``), when there is exactly one: a simple API client of theirs needs no ``team``.

    Raises
    ------
    TeamChoiceError
        The user is in no team with ``role``, or in several and named none.
    """
    candidates = teams_of(user, role=role)
    if team is not None:
        if not candidates.filter(pk=team.pk).exists():
            raise TeamChoiceError(f"you are not {role.value} or above in a team '{team.slug}'")
        return team
    slugs = list(candidates.order_by("slug").values_list("slug", flat=True)[:TEAMS_LISTED + 1])
    if len(slugs) == 1:
        return candidates.get()
    if user.is_superuser:
        own = Team.objects.filter(memberships__user=user, memberships__role__in=Role.at_least(role))
        if len(own[:2]) == 1:
            return own.get()
    if not slugs:
        raise TeamChoiceError("you belong to no team that may do this; ask an administrator "
                              "to add you to one")
    listed = ", ".join(slugs[:TEAMS_LISTED])
    if len(slugs) > TEAMS_LISTED:
        listed += f" and {candidates.count() - TEAMS_LISTED:,} more"
    raise TeamChoiceError(f"name the team: one of {listed}")


def team_ids_of(user: User) -> list[int]:
    """Ids of the teams whose confidential prices ``user`` sees (none when signed out)."""
    return list(teams_of(user).values_list("pk", flat=True))
