"""Teams and memberships (staff only), and the price refresh schedules opened to staff."""
from __future__ import annotations

from django.contrib import admin
from django_celery_beat.models import (
    ClockedSchedule,
    CrontabSchedule,
    IntervalSchedule,
    PeriodicTask,
    SolarSchedule,
)

from teams.admin_mixins import ListedRowsFilter, StaffOnlyAdminMixin
from teams.models import Membership, Team


class MembershipInline(StaffOnlyAdminMixin, admin.TabularInline):
    """The team's members and their roles."""

    model = Membership
    extra = 1
    autocomplete_fields = ["user"]


@admin.register(Team)
class TeamAdmin(StaffOnlyAdminMixin, admin.ModelAdmin):
    """Teams with their members, for staff."""

    list_display = ["name", "slug"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [MembershipInline]


@admin.register(Membership)
class MembershipAdmin(StaffOnlyAdminMixin, admin.ModelAdmin):
    """Who is in which team with which role, for staff."""

    list_display = ["user", "team", "role"]
    list_filter = [("team", ListedRowsFilter), "role"]
    search_fields = ["user__username", "user__email", "team__name"]
    autocomplete_fields = ["user", "team"]
    list_select_related = ["user", "team"]


# Price refresh schedules (django_celery_beat) are edited by staff, whatever their model
# permissions; the package's own admins are kept, with the staff rule on top.
for schedule_model in (PeriodicTask, IntervalSchedule, CrontabSchedule, SolarSchedule,
                       ClockedSchedule):
    package_admin = type(admin.site.get_model_admin(schedule_model))
    admin.site.unregister(schedule_model)
    admin.site.register(schedule_model, type(f"Staff{package_admin.__name__}",
                                             (StaffOnlyAdminMixin, package_admin), {}))
