"""The admin site, open to staff and to team members (who see only their teams' rows)."""
from __future__ import annotations

from django.contrib.admin import AdminSite
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.admin.views.autocomplete import AutocompleteJsonView
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError

from costmodel.vocabulary import MISSING
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


class LabelledAutocompleteJsonView(AutocompleteJsonView):
    """Autocomplete whose choices a model admin may name with ``autocomplete_label(obj)``."""

    def serialize_result(self, obj, to_field_name) -> dict[str, str]:
        result = super().serialize_result(obj, to_field_name)
        label = getattr(self.model_admin, "autocomplete_label", None)
        return {**result, "text": label(obj)} if label is not None else result


class TeamAdminSite(AdminSite):
    """Django's admin site; team members get in, and each model admin limits them to their teams."""

    login_form = TeamAdminAuthenticationForm
    site_header = "AI compute TCO"
    site_title = "AI compute TCO"
    index_title = "Buy or rent AI compute"
    site_url = None  # the service has no public site; the admin and the API are its faces
    empty_value_display = MISSING  # an empty column shows the one missing-value mark

    index_template = "admin/team_home.html"

    def index(self, request, extra_context=None):
        """The team home: the user's scenarios and their answers first, the models below."""
        from portal.home import home_context  # reads scenarios, runs and exports: apps load first
        from portal.home import split_app_list

        work, operations = split_app_list(self.get_app_list(request))
        context = {**home_context(request.user), "work_apps": work,
                   "operations_apps": operations if request.user.is_staff else []}
        return super().index(request, {**context, **(extra_context or {})})

    def get_urls(self):
        from django.urls import path

        from teams.admin_my_tokens import my_tokens_view

        own = path("my-api-tokens/", self.admin_view(lambda request: my_tokens_view(request, self)),
                   name="my_api_tokens")
        return [own, *super().get_urls()]

    def autocomplete_view(self, request):
        return LabelledAutocompleteJsonView.as_view(admin_site=self)(request)

    def has_permission(self, request) -> bool:
        return may_use_admin(request.user)
