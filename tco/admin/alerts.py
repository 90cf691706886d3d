"""Admin of price alerts and scenario snapshots: both are written by the service, read here."""
from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from tco.models import PriceAlert
from tco.models import ScenarioSnapshot
from teams.admin_mixins import TeamScopedAdminMixin


class ReadOnlyAdmin(TeamScopedAdminMixin, admin.ModelAdmin):
    """Rows the re-pricer and the evaluation write about the user's teams' scenarios; people
    read them, and analysts may delete them."""

    team_path = "scenario__team"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(PriceAlert)
class PriceAlertAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "scenario", "rent_option", "kind", "old_winner", "new_winner",
                    "old_breakeven_month", "new_breakeven_month", "old_price_usd_per_instance_hour",
                    "new_price_usd_per_instance_hour")
    list_filter = ("kind", "new_winner", "refresh_job__provider")
    search_fields = ("scenario__name", "rent_option", "message")
    date_hierarchy = "created_at"
    list_select_related = ("scenario",)


@admin.register(ScenarioSnapshot)
class ScenarioSnapshotAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "scenario", "reason", "refresh_job", "engine_version")
    list_filter = ("reason",)
    search_fields = ("scenario__name",)
    date_hierarchy = "created_at"
    list_select_related = ("scenario", "refresh_job")
