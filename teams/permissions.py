"""The API's team rule: the user's teams' rows only (querysets, see teams.selectors), and writes
by role in the row's team."""
from __future__ import annotations

from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import SAFE_METHODS
from rest_framework.permissions import BasePermission

from teams.models import Role
from teams.selectors import User
from teams.selectors import has_role
from teams.selectors import is_team_member
from teams.selectors import team_id_of
from teams.selectors import teams_of


def required_role(view) -> Role:
    """The role a write through ``view`` needs: its ``action_roles`` entry, else ANALYST."""
    return getattr(view, "action_roles", {}).get(getattr(view, "action", None), Role.ANALYST)


def require_role(user: User, team_id: int | None, role: Role) -> None:
    """Refuse (403) unless ``user`` has ``role`` in the team; for writes about an object the
    user can already see, e.g. starting a run on a scenario."""
    if not has_role(user, team_id, role):
        raise PermissionDenied(f"this needs the {role.value} role in the scenario's team")


class TeamRolePermission(BasePermission):
    """Signed-in users read their teams' rows; writes need the view's role in the row's team.

    The view names how a row reaches its team (``team_path``, e.g. "scenario__team") and, per
    action, a role above ANALYST (``action_roles = {"approve": Role.APPROVER}``).
    """

    message = "Your role in this team does not allow this."

    def has_permission(self, request, view) -> bool:
        user = request.user
        if not (user and user.is_authenticated):
            return False
        if request.method in SAFE_METHODS or getattr(view, "detail", False):
            return True  # decided on the row, once the team filter has found it
        # A create needs the role in some team; a user in no team at all is told so (400).
        return not is_team_member(user) or teams_of(user, role=required_role(view)).exists()

    def has_object_permission(self, request, view, obj) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return has_role(request.user, team_id_of(obj, view.team_path), required_role(view))
