"""Teams and memberships (superusers, and each team's approvers for its members), and the price
refresh schedules opened to staff for their timing."""
from __future__ import annotations

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.http import HttpRequest
from django_celery_beat.models import ClockedSchedule
from django_celery_beat.models import CrontabSchedule
from django_celery_beat.models import IntervalSchedule
from django_celery_beat.models import PeriodicTask
from django_celery_beat.models import SolarSchedule

from teams import admin_tokens  # noqa: F401  (registers the API token admin)
from teams.admin_mixins import HiddenRowsNotFoundMixin
from teams.admin_mixins import ListedRowsFilter
from teams.admin_mixins import StaffOnlyAdminMixin
from teams.admin_mixins import role_in_some_team
from teams.admin_mixins import role_in_team
from teams.models import FinanceDefault
from teams.models import Membership
from teams.models import Role
from teams.models import Team
from teams.selectors import teams_of


def _approves(request: HttpRequest, team_id: int | None = None) -> bool:
    """Superusers manage every team; an approver manages the members of the teams they approve
    for (``team_id`` None: of some team). Staff rights alone manage no team."""
    if team_id is None:
        return role_in_some_team(request, Role.APPROVER)
    return role_in_team(request, team_id, Role.APPROVER)


class ApproversManageMixin:
    """Rows a team's approvers manage: ``_team_id`` says whose team a row belongs to."""

    def _team_id(self, obj) -> int:
        raise NotImplementedError

    def _approves_row(self, request: HttpRequest, obj) -> bool:
        return _approves(request, None if obj is None else self._team_id(obj))

    def has_module_permission(self, request: HttpRequest) -> bool:
        return _approves(request)

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        return self._approves_row(request, obj)

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return self._approves_row(request, obj)

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return self._approves_row(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return self._approves_row(request, obj)


class MembersByUsernameMixin:
    """Who joins is named by username: the user picker searches every account, which only
    superusers may read."""

    autocomplete_fields = ["user"]

    def get_autocomplete_fields(self, request: HttpRequest):
        return self.autocomplete_fields if request.user.is_superuser else []

    def formfield_for_foreignkey(self, db_field, request: HttpRequest, **kwargs):
        if db_field.name == "user" and not request.user.is_superuser:
            return forms.ModelChoiceField(
                queryset=get_user_model().objects.filter(is_active=True), to_field_name="username",
                widget=forms.TextInput, label="Username",
                error_messages={"invalid_choice": "No active user has this username."})
        if db_field.name == "team":
            kwargs["queryset"] = teams_of(request.user, role=Role.APPROVER)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class TeamRowsInline(ApproversManageMixin, admin.TabularInline):
    """Rows of the team on its page, changed by the team's approvers (``obj`` is the team)."""

    def _team_id(self, obj: Team) -> int:
        return obj.pk


class MembershipInline(MembersByUsernameMixin, TeamRowsInline):
    """The team's members and their roles."""

    model = Membership
    extra = 1


class FinanceDefaultInline(TeamRowsInline):
    """The team's own finance defaults for new scenarios, each with its reason (the others come
    from the table in teams/finance_defaults.py)."""

    model = FinanceDefault
    extra = 0


@admin.register(Team)
class TeamAdmin(ApproversManageMixin, HiddenRowsNotFoundMixin, admin.ModelAdmin):
    """Teams with their members and finance defaults: superusers create and rename them;
    approvers manage members and defaults."""

    list_display = ["name", "slug"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [MembershipInline, FinanceDefaultInline]

    def get_queryset(self, request: HttpRequest):
        return teams_of(request.user, role=Role.APPROVER)

    def get_readonly_fields(self, request: HttpRequest, obj=None):
        return [] if request.user.is_superuser else ["name", "slug"]

    def get_prepopulated_fields(self, request: HttpRequest, obj=None):
        return self.prepopulated_fields if request.user.is_superuser else {}

    def _team_id(self, obj: Team) -> int:
        return obj.pk

    def has_add_permission(self, request: HttpRequest) -> bool:
        return request.user.is_superuser

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return request.user.is_superuser


@admin.register(Membership)
class MembershipAdmin(
    ApproversManageMixin, MembersByUsernameMixin, HiddenRowsNotFoundMixin, admin.ModelAdmin
):
    """Who is in which team with which role: every team for superusers, their teams for approvers."""

    list_display = ["user", "team", "role"]
    list_filter = [("team", ListedRowsFilter), "role"]
    search_fields = ["user__username", "user__email", "team__name"]
    autocomplete_fields = ["user", "team"]
    list_select_related = ["user", "team"]

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).filter(team__in=teams_of(request.user, role=Role.APPROVER))

    def _team_id(self, obj: Membership) -> int:
        return obj.team_id


#: What staff may change of a scheduled task: when it runs. What it runs, with which arguments
#: (a price refresh's location among them) and on which queue is for superusers.
SCHEDULE_TIMING = ["enabled", "interval", "crontab", "solar", "clocked", "start_time", "one_off",
                   "expires", "expire_seconds"]
SCHEDULE_SHOWN = ["name", "task", "args", "kwargs", "queue", "last_run_at"]


#: The scheduled tasks whose timing staff may change: price refreshes. The housekeeping ones
#: (job reapers, the token clean-up) keep the service working and are for superusers alone.
STAFF_TIMED_TASKS = {"catalog.tasks.refresh_prices_task"}


class ScheduleTimingForStaffMixin(StaffOnlyAdminMixin):
    """Staff see every scheduled task and change a price refresh's timing; superusers add,
    delete, run at once and change the rest."""

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        if request.user.is_superuser:
            return super().has_change_permission(request, obj)
        return super().has_change_permission(request, obj) and (
            obj is None or obj.task in STAFF_TIMED_TASKS)

    def get_actions(self, request: HttpRequest):
        # Enable, disable, toggle and run at once act on any selection, reapers included.
        return super().get_actions(request) if request.user.is_superuser else {}

    def get_fieldsets(self, request: HttpRequest, obj=None):
        if request.user.is_superuser:
            return super().get_fieldsets(request, obj)
        return [(None, {"fields": SCHEDULE_SHOWN}), ("Schedule", {"fields": SCHEDULE_TIMING})]

    def get_readonly_fields(self, request: HttpRequest, obj=None):
        return super().get_readonly_fields(request, obj) if request.user.is_superuser else SCHEDULE_SHOWN

    def get_form(self, request: HttpRequest, obj=None, **kwargs):
        if not request.user.is_superuser:
            kwargs["form"] = forms.ModelForm  # the package's form requires the task's name
        return super().get_form(request, obj, **kwargs)

    def has_add_permission(self, request: HttpRequest, *args) -> bool:
        return request.user.is_superuser

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return request.user.is_superuser


# Price refresh schedules (django_celery_beat) are edited by staff, whatever their model
# permissions; the package's own admins are kept, with the staff rule on top.
for schedule_model in (PeriodicTask, IntervalSchedule, CrontabSchedule, SolarSchedule,
                       ClockedSchedule):
    package_admin = type(admin.site.get_model_admin(schedule_model))
    staff_rule = ScheduleTimingForStaffMixin if schedule_model is PeriodicTask else StaffOnlyAdminMixin
    admin.site.unregister(schedule_model)
    admin.site.register(schedule_model, type(f"Staff{package_admin.__name__}",
                                             (staff_rule, package_admin), {}))
