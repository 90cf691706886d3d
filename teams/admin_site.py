"""The admin site, open to staff and to team members (who see only their teams' rows)."""
from __future__ import annotations

from django.contrib.admin import AdminSite
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError

from teams.selectors import is_team_member


def may_use_admin(user) -> bool:
    """Active staff, and active members of a team."""
    return user.is_active and (user.is_staff or is_team_member(user))


class TeamAdminAuthenticationForm(AdminAuthenticationForm):
    """The admin login, also for team members who are not staff."""

    def confirm_login_allowed(self, user) -> None:
        AuthenticationForm.confirm_login_allowed(self, user)  # refuses inactive users
        if not may_use_admin(user):
            raise ValidationError(self.error_messages["invalid_login"], code="invalid_login",
                                  params={"username": self.username_field.verbose_name})


class TeamAdminSite(AdminSite):
    """Django's admin site; team members get in, and each model admin limits them to their teams."""

    login_form = TeamAdminAuthenticationForm

    def has_permission(self, request) -> bool:
        return may_use_admin(request.user)
