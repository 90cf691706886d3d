"""Subscriptions of the user's teams, and the deliveries with every attempt's status code."""
from __future__ import annotations

from django import forms
from django.contrib import admin
from django.contrib import messages

from notifications.choices import Channel
from notifications.models import Delivery
from notifications.models import DeliveryAttempt
from notifications.models import Subscription
from notifications.models import new_secret
from teams.admin_mixins import TeamScopedAdminMixin

SUBSCRIPTION_FIELDS = ["team", "scenario", "channel", "address", "events", "active"]


class SubscriptionForm(forms.ModelForm):
    new_secret = forms.BooleanField(
        required=False, label="New signing secret",
        help_text="Replace the webhook's signing secret: the new one is shown once, after saving, "
                  "and the receiver must then verify with it.")

    class Meta:
        model = Subscription
        fields = SUBSCRIPTION_FIELDS


@admin.register(Subscription)
class SubscriptionAdmin(TeamScopedAdminMixin, admin.ModelAdmin):
    """A webhook's signing secret is shown once, to the person who makes the subscription or
    replaces its secret (only editors can), and never again: a viewer could forge the team's
    webhooks with it, and a page shown later may be seen by someone else."""

    form = SubscriptionForm
    list_display = ["id", "team", "scenario", "channel", "address", "events", "active"]
    list_filter = ["channel", "active"]
    fields = SUBSCRIPTION_FIELDS
    readonly_fields = ["signing_secret"]
    team_path = "team"

    @admin.display(description="Signing secret")
    def signing_secret(self, obj: Subscription) -> str:
        return "Kept hidden: it was shown once, when it was made."

    def get_fields(self, request, obj=None):
        fields = super().get_fields(request, obj)
        if obj is not None and self.has_change_permission(request, obj):
            return [*fields, "signing_secret", "new_secret"]
        return [name for name in fields if name not in ("signing_secret", "new_secret")]

    def save_model(self, request, obj: Subscription, form, change: bool) -> None:
        replaced = change and form.cleaned_data.get("new_secret")
        if replaced:
            obj.secret = new_secret()
        super().save_model(request, obj, form, change)
        if obj.channel == Channel.WEBHOOK and (replaced or not change):
            self.message_user(request, f"The webhook's signing secret, shown this once (copy it to "
                                       f"the receiver now): {obj.secret}", messages.WARNING)


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
