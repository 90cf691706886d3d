"""Who sees and changes what in the admin: team rows by role, catalog rows by staff."""
from __future__ import annotations

from django.contrib.admin import RelatedOnlyFieldListFilter
from django.contrib.admin.utils import unquote
from django.http import Http404
from django.http import HttpRequest

from teams.models import Role
from teams.selectors import for_teams
from teams.selectors import has_role
from teams.selectors import is_team_member
from teams.selectors import team_id_of
from teams.selectors import teams_of


def role_in_team(request: HttpRequest, team_id: int | None, role: Role) -> bool:
    """Whether the request's user has ``role`` in the team ``team_id`` (``has_role``)."""
    return _answered_once(request, ("team", team_id, role),
                          lambda: has_role(request.user, team_id, role))


def role_in_some_team(request: HttpRequest, role: Role) -> bool:
    """Whether the request's user has ``role`` in at least one team."""
    return _answered_once(request, ("some team", role),
                          lambda: teams_of(request.user, role=role).exists())


def _answered_once(request: HttpRequest, question: tuple, ask) -> bool:  # noqa: ANN001
    """A page asks its user's roles for every inline, form, widget and link it draws (73 queries
    on a scenario's page); while a page is read (GET, HEAD) its roles cannot change, so each
    question is answered once a request. A write asks the database every time."""
    if request.method not in ("GET", "HEAD"):
        return ask()
    answers = request.__dict__.setdefault("_team_role_answers", {})
    if question not in answers:
        answers[question] = ask()
    return answers[question]


class ListedRowsFilter(RelatedOnlyFieldListFilter):
    """A list filter by a related row ("By team", "By scenario", "By source") that offers only
    the rows the user's own list refers to; Django's default offers every row of the related
    model, another team's names included."""

    def has_output(self) -> bool:
        # A filter the URL names still applies when it offers no choice (another team's id
        # then matches no row); the admin only applies the filters it shows.
        return super().has_output() or bool(self.used_parameters)


class HiddenRowsNotFoundMixin:
    """Rows the admin's queryset hides answer 404 (Django's admin would redirect with "does not
    exist"), so another team's row looks like no row at all."""

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "", extra_context=None):
        self._found_or_404(request, object_id)
        return super().change_view(request, object_id, form_url, extra_context)

    def delete_view(self, request: HttpRequest, object_id: str, extra_context=None):
        self._found_or_404(request, object_id)
        return super().delete_view(request, object_id, extra_context)

    def _found_or_404(self, request: HttpRequest, object_id: str) -> None:
        if self.get_object(request, unquote(object_id)) is None:
            raise Http404(f"No such {self.model._meta.verbose_name} in your teams.")


class TeamScopedAdminMixin(HiddenRowsNotFoundMixin):
    """A model admin of team-owned rows: the user's teams' rows only (superusers: every row).

    Viewing needs membership of the row's team; adding, changing and deleting need the analyst
    role there. ``team_path`` says how a row reaches its team.
    """

    team_path = "team"

    def get_queryset(self, request: HttpRequest):
        return for_teams(super().get_queryset(request), request.user, team_path=self.team_path)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return request.user.is_superuser or is_team_member(request.user)

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        if obj is None:
            return self.has_module_permission(request)
        return role_in_team(request, team_id_of(obj, self.team_path), Role.VIEWER)

    def has_add_permission(self, request: HttpRequest, *args) -> bool:
        return role_in_some_team(request, Role.ANALYST)

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        if obj is None:
            return role_in_some_team(request, Role.ANALYST)
        return role_in_team(request, team_id_of(obj, self.team_path), Role.ANALYST)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return TeamScopedAdminMixin.has_change_permission(self, request, obj)


class TeamScopedInlineMixin:
    """An inline on a team-owned parent: members of the parent's team see it, analysts edit it."""

    parent_team_path = "team"

    def _parent_role(self, request: HttpRequest, parent, role: Role) -> bool:
        if parent is None:
            return role_in_some_team(request, role)
        return role_in_team(request, team_id_of(parent, self.parent_team_path), role)

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        return self._parent_role(request, obj, Role.VIEWER)

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return self._parent_role(request, obj, Role.ANALYST)

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return self._parent_role(request, obj, Role.ANALYST)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return self._parent_role(request, obj, Role.ANALYST)


class StaffWritesAdminMixin:
    """Catalog rows: everyone in the admin reads them; only staff add, change or delete."""

    readers = "is_active"  # the user flag that lets one see the rows

    def has_module_permission(self, request: HttpRequest) -> bool:
        return getattr(request.user, self.readers)

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        return getattr(request.user, self.readers)

    def has_add_permission(self, request: HttpRequest, *args) -> bool:
        return request.user.is_staff

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return request.user.is_staff

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return request.user.is_staff


class StaffOnlyAdminMixin(StaffWritesAdminMixin):
    """Rows only staff see and change: the price refresh schedules."""

    readers = "is_staff"


class NamedPickersMixin:
    """Pickers of related rows show each row as its admin's ``autocomplete_label`` names it
    ("H200 SXM 141 GB", "Colocation, air-cooled"), the selected one too, not its slug."""

    def formfield_for_foreignkey(self, db_field, request: HttpRequest, **kwargs):
        field = super().formfield_for_foreignkey(db_field, request, **kwargs)
        label = getattr(self.admin_site._registry.get(db_field.related_model), "autocomplete_label", None)
        if field is not None and label is not None:
            field.label_from_instance = label
        return field
