"""Who hears of what (subscriptions), and what was sent to them with every attempt's outcome."""
from __future__ import annotations

import secrets

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import models
from django.db.models import Q
from django.utils import timezone

from notifications.choices import Channel
from notifications.choices import DeliveryStatus
from notifications.choices import Event
from notifications.hosts import WebhookUrlError
from notifications.hosts import check_webhook_url


def new_secret() -> str:
    return secrets.token_hex(32)


class Subscription(models.Model):
    """An address told of a team's events, or of one scenario's only."""

    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="subscriptions")
    scenario = models.ForeignKey("tco.Scenario", on_delete=models.CASCADE, null=True, blank=True,
                                 related_name="subscriptions",
                                 help_text="Empty = every scenario of the team.")
    channel = models.CharField(max_length=8, choices=Channel.choices)
    address = models.CharField(max_length=500, help_text="An e-mail address, or the webhook's https URL "
                                                         "(its host must be allowed in the settings).")
    events = models.JSONField(default=list, blank=True, help_text="Events sent: price_alert, variance_alert, "
                                                      "job_finished; empty = all of them.")
    secret = models.CharField(max_length=64, default=new_secret, editable=False,
                              help_text="Webhooks: the key of the HMAC-SHA256 signature.")
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["team", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(channel__in=Channel.values),
                                   name="subscription_channel_known"),
        ]

    def __str__(self) -> str:
        where = f"scenario {self.scenario_id}" if self.scenario_id else f"team {self.team}"
        return f"{self.get_channel_display()} to {self.address} ({where})"

    def clean(self) -> None:
        """A webhook's URL is one the settings allow; an e-mail address is an address; a scenario
        subscription is of the subscription's team; the events are known ones."""
        super().clean()
        errors = {}
        if self.channel == Channel.WEBHOOK:
            try:
                check_webhook_url(self.address)
            except WebhookUrlError as exc:
                errors["address"] = str(exc)
        elif self.channel == Channel.EMAIL:
            try:
                validate_email(self.address)
            except ValidationError:
                errors["address"] = f"'{self.address}' is not an e-mail address"
        unknown = sorted(set(self.events or ()) - set(Event.values))
        if unknown:
            errors["events"] = f"unknown event {unknown[0]}: one of {', '.join(Event.values)}"
        if self.scenario_id and self.team_id and self.scenario.team_id != self.team_id:
            errors["scenario"] = "the scenario is not the team's"
        if errors:
            raise ValidationError(errors)

    def wants(self, event: str) -> bool:
        return not self.events or event in self.events


class Delivery(models.Model):
    """One event sent to one subscription: retried with backoff until delivered or given up."""

    subscription = models.ForeignKey(Subscription, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=16, choices=Event.choices)
    subject = models.CharField(max_length=300)
    body = models.TextField(help_text="The e-mail's text.")
    payload = models.JSONField(help_text="The webhook's JSON body.")
    status = models.CharField(max_length=12, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "deliveries"
        constraints = [
            models.CheckConstraint(condition=Q(status__in=DeliveryStatus.values),
                                   name="delivery_status_known"),
        ]

    def __str__(self) -> str:
        return f"{self.subject} -> {self.subscription.address}"


class DeliveryAttempt(models.Model):
    """One try at a delivery: the receiver's HTTP status code, or the error."""

    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="log")
    at = models.DateTimeField(default=timezone.now)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True,
                                                   help_text="HTTP status; empty for e-mail or no answer.")
    ok = models.BooleanField(default=False)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["delivery", "at", "id"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.status_code or ''} {'ok' if self.ok else self.error}"
