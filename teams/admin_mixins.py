"""Who sees and changes what in the admin: team rows by role, catalog rows by staff."""
from __future__ import annotations

from functools import cache

from django import forms
from django.contrib.admin import RelatedOnlyFieldListFilter
from django.contrib.admin.utils import unquote
from django.db.models import CASCADE
from django.db.models import Model
from django.db.models import Q
from django.db.models import QuerySet
from django.http import Http404
from django.http import HttpRequest

from teams.models import Role
from teams.models import Team
from teams.selectors import User
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


@cache
def team_path_of(model: type[Model]) -> str | None:
    """How a row of ``model`` reaches the team that owns it ("team", "scenario__team",
    "delivery__subscription__team"), or None for rows no team owns (catalog specifications,
    users). A row belongs to a team through a foreign key to it, or to a row it is a part of: a
    key that is required and deletes the row with its parent (a rent option with its scenario),
    never a key that only cites (a system and its source). Three hops reach every team-owned model."""
    if model is Team:
        return "pk"
    paths = [(field.name, field) for field in model._meta.concrete_fields if field.many_to_one]
    for _ in range(3):
        for path, field in paths:
            if field.related_model is Team:
                return path
        paths = [(f"{path}__{hop.name}", hop) for path, field in paths if _is_part_of(field)
                 for hop in field.related_model._meta.concrete_fields if hop.many_to_one]
    return None


def _is_part_of(field) -> bool:
    return not field.null and field.remote_field.on_delete is CASCADE


def _team_field_nullable(model: type[Model], path: str) -> bool:
    """Whether a row may have no team at all (a public catalog row, a public source)."""
    return path.count("__") == 0 and path != "pk" and model._meta.get_field(path).null


def writable_rows(queryset: QuerySet, user: User) -> QuerySet:
    """The rows of ``queryset`` a user may point a new or changed row at: those of the teams
    they are an analyst in, and rows no team owns (public ones)."""
    path = team_path_of(queryset.model)
    if path is None:
        return queryset
    if path == "pk":
        return queryset.filter(pk__in=teams_of(user, role=Role.ANALYST))
    mine = Q(**{f"{path}__in": teams_of(user, role=Role.ANALYST)})
    if _team_field_nullable(queryset.model, path):
        mine |= Q(**{f"{path}__isnull": True})
    return queryset.filter(mine)


class TeamScopedFormsMixin:
    """Every picker of an admin form offers only what its user may write into, and a saved row
    refers to rows of its own team only.

    A team picker lists the teams the user is an analyst in (superusers: all); a picker of
    team-owned rows (scenarios, plans, subscriptions, a team's quotes and sources) lists those
    teams' rows and public ones. A posted id outside that list is a form error ("Select a valid
    choice"), so another team's id writes nothing. The form also refuses a row whose pickers name
    rows of two teams (a cost target of team B on team A's scenario).
    """

    def formfield_for_foreignkey(self, db_field, request: HttpRequest, **kwargs):
        if "queryset" not in kwargs:
            scoped = _scoped_choices(db_field.related_model, request.user)
            if scoped is not None:
                kwargs["queryset"] = scoped
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def formfield_for_manytomany(self, db_field, request: HttpRequest, **kwargs):
        if "queryset" not in kwargs:
            scoped = _scoped_choices(db_field.related_model, request.user)
            if scoped is not None:
                kwargs["queryset"] = scoped
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    def get_form(self, request: HttpRequest, obj=None, **kwargs):
        return _one_team(super().get_form(request, obj, **kwargs))

    def get_formset(self, request: HttpRequest, obj=None, **kwargs):  # an inline's forms
        formset = super().get_formset(request, obj, **kwargs)
        formset.form = _one_team(formset.form)
        return formset


def _one_team(form: type[forms.ModelForm]) -> type[forms.ModelForm]:
    return type(form)(form.__name__, (OneTeamFormMixin, form), {})


def _scoped_choices(model: type[Model], user: User) -> QuerySet | None:
    if team_path_of(model) is None or user.is_superuser:
        return None
    return writable_rows(model._default_manager.all(), user)


class OneTeamFormMixin(forms.ModelForm):
    """A model form whose picked team-owned rows all belong to the team of the row saved."""

    def clean(self):
        cleaned = super().clean()
        row_path = team_path_of(self._meta.model)
        if row_path is None or row_path == "pk":
            return cleaned
        row_team = _team_id_following(self.instance, cleaned, row_path)
        if row_team is None:
            return cleaned
        for name, value in list(cleaned.items()):
            if not isinstance(value, Model) or name == row_path.split("__")[0]:
                continue
            path = team_path_of(type(value))
            if path is None or path == "pk":
                continue
            other = _team_id_following(value, {}, path)
            if other is not None and other != row_team:
                self.add_error(name, "This belongs to another team than the row you are saving.")
        return cleaned


def _team_id_following(obj: Model, cleaned: dict, path: str) -> int | None:
    """The team id at the end of ``path``, its first hop read from the form's data if it has it."""
    first, *rest = path.split("__")
    value = cleaned.get(first, getattr(obj, f"{first}_id" if not rest else first, None))
    if not rest:
        return value.pk if isinstance(value, Model) else value
    for hop in rest[:-1]:
        if value is None:
            return None
        value = getattr(value, hop)
    return None if value is None else getattr(value, f"{rest[-1]}_id")


class TeamScopedAdminMixin(TeamScopedFormsMixin, HiddenRowsNotFoundMixin):
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


class TeamScopedInlineMixin(TeamScopedFormsMixin):
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


class StaffWritesAdminMixin(TeamScopedFormsMixin):
    """Catalog rows: everyone in the admin reads them; only staff add, change or delete (a
    team's confidential row only in a team they are an analyst in)."""

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
