"""Subscriptions of the user's teams, and the deliveries with every attempt's status code."""
from __future__ import annotations

from django.contrib import admin

from notifications.models import Delivery
from notifications.models import DeliveryAttempt
from notifications.models import Subscription
from teams.admin_mixins import TeamScopedAdminMixin


@admin.register(Subscription)
class SubscriptionAdmin(TeamScopedAdminMixin, admin.ModelAdmin):
    list_display = ["id", "team", "scenario", "channel", "address", "events", "active"]
    list_filter = ["channel", "active"]
    fields = ["team", "scenario", "channel", "address", "events", "active", "secret"]
    readonly_fields = ["secret"]
    team_path = "team"

    def get_fields(self, request, obj=None):
        """The signing secret only for those who may edit the subscription (a viewer could forge
        the team's webhooks with it)."""
        fields = super().get_fields(request, obj)
        if obj is not None and not self.has_change_permission(request, obj):
            return [name for name in fields if name != "secret"]
        return fields


class DeliveryAttemptInline(admin.TabularInline):
    model = DeliveryAttempt
    extra = 0
    max_num = 0
    can_delete = False
    fields = ["at", "status_code", "ok", "error"]
    readonly_fields = fields
    verbose_name_plural = "Delivery log"


@admin.register(Delivery)
class DeliveryAdmin(TeamScopedAdminMixin, admin.ModelAdmin):
    list_display = ["id", "created_at", "event", "subject", "subscription", "status", "attempts",
                    "delivered_at"]
    list_filter = ["status", "event"]
    fields = ["subscription", "event", "subject", "body", "payload", "status", "attempts", "created_at",
              "delivered_at"]
    readonly_fields = fields
    inlines = [DeliveryAttemptInline]
    team_path = "subscription__team"

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
