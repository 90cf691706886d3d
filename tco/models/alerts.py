"""Price snapshots of evaluated scenarios, and the alerts re-pricing writes when a refresh moves one.

A snapshot records exactly which price points a scenario was evaluated with and what that gave
per rent option (winner, breakeven month, NPV saving). After a price refresh the re-pricer
(tco/services/repricing.py) evaluates the scenario again and compares with its latest snapshot.
"""
from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone

from core.jobs import RecoverableJob
from tco.choices import AlertKind
from tco.choices import RepriceStatus
from tco.choices import SnapshotReason
from tco.choices import Winner
from tco.models.scenario import MONEY
from tco.models.scenario import Scenario

USD = {"max_digits": 18, "decimal_places": 2}


class ScenarioSnapshot(models.Model):
    """The price points a scenario was evaluated with and the figures it gave then.

    The snapshot written when a scenario is approved also pins every input that did not come
    from the scenario itself (catalog figures, stated defaults, its sizing): the approved
    version is evaluated with those from then on, whatever the catalog says later.
    """

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="snapshots")
    created_at = models.DateTimeField(default=timezone.now)
    reason = models.CharField(max_length=16, choices=SnapshotReason.choices)
    refresh_job = models.ForeignKey("catalog.PriceRefreshJob", on_delete=models.SET_NULL, null=True,
                                    blank=True, related_name="+")
    engine_version = models.CharField(max_length=32)
    price_points = models.ManyToManyField("catalog.PricePoint", blank=True, related_name="+")
    prices = models.JSONField(
        default=list, help_text="Each price point used: id, target, amount, currency, as-of, source.")
    options = models.JSONField(
        default=list,
        help_text="Per rent option, in order: name, offering_id, price_point_id (null = the "
                  "scenario's own price), price_usd_per_instance_hour, winner, breakeven_month "
                  "(null = never), npv_saving_usd.")
    verdict = models.JSONField(
        null=True, blank=True,
        help_text="The verdict over every option: the cheapest, its margin over the next cheapest "
                  "and each option's NPV, in the currency named (null: written before verdicts "
                  "were recorded).")
    pinned = models.JSONField(
        null=True, blank=True,
        help_text="Approval only: every engine input with its value, unit, origin, source and "
                  "as-of date, the cooling tiers and the warnings, as evaluated when approved.")

    class Meta:
        ordering = ["-created_at", "-id"]
        get_latest_by = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(reason__in=SnapshotReason.values),
                                   name="snapshot_reason_known"),
        ]

    def __str__(self) -> str:
        return f"{self.scenario} as evaluated {self.created_at:%Y-%m-%d %H:%M}"


class PriceAlert(models.Model):
    """A saved scenario whose result moved after a price refresh, the old and new figures, and
    the price that moved it."""

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="price_alerts")
    refresh_job = models.ForeignKey("catalog.PriceRefreshJob", on_delete=models.SET_NULL, null=True,
                                    blank=True, related_name="price_alerts")
    created_at = models.DateTimeField(default=timezone.now)
    kind = models.CharField(max_length=16, choices=AlertKind.choices)
    rent_option = models.CharField(max_length=200, help_text="The rent option buying is compared with.")
    old_price_point = models.ForeignKey("catalog.PricePoint", on_delete=models.SET_NULL, null=True,
                                        blank=True, related_name="+")
    new_price_point = models.ForeignKey("catalog.PricePoint", on_delete=models.SET_NULL, null=True,
                                        blank=True, related_name="+")
    old_price_usd_per_instance_hour = models.DecimalField(**MONEY)
    new_price_usd_per_instance_hour = models.DecimalField(**MONEY)
    old_winner = models.CharField(max_length=4, choices=Winner.choices)
    new_winner = models.CharField(max_length=4, choices=Winner.choices)
    old_breakeven_month = models.PositiveSmallIntegerField(null=True, blank=True,
                                                           help_text="Empty = never.")
    new_breakeven_month = models.PositiveSmallIntegerField(null=True, blank=True,
                                                           help_text="Empty = never.")
    old_npv_saving_usd = models.DecimalField(**USD, help_text="NPV of renting minus buying.")
    new_npv_saving_usd = models.DecimalField(**USD, help_text="NPV of renting minus buying.")
    old_cheapest = models.CharField(max_length=300, blank=True,
                                    help_text="The cheapest of every option before (the verdict's winner).")
    new_cheapest = models.CharField(max_length=300, blank=True)
    old_margin = models.DecimalField(**USD, null=True, blank=True,
                                     help_text="The winner's margin over the next cheapest (NPV) before.")
    new_margin = models.DecimalField(**USD, null=True, blank=True)
    currency = models.CharField(max_length=3, default="USD",
                                help_text="The currency of the alert's amounts (the scenario's).")
    message = models.TextField()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=AlertKind.values), name="alert_kind_known"),
            models.CheckConstraint(condition=Q(old_winner__in=Winner.values)
                                   & Q(new_winner__in=Winner.values), name="alert_winner_known"),
        ]

    def __str__(self) -> str:
        return self.message


class RepriceJob(RecoverableJob):
    """The re-pricing of saved scenarios after one price refresh that wrote prices.

    Its row lets the reaper send it again when its worker dies or its message is lost
    (core/jobs.py); before it existed a lost re-pricing left no trace.
    """

    refresh_job = models.OneToOneField("catalog.PriceRefreshJob", on_delete=models.CASCADE,
                                       related_name="reprice_job")
    status = models.CharField(max_length=8, choices=RepriceStatus.choices, default=RepriceStatus.PENDING)
    alerts = models.PositiveIntegerField(default=0, help_text="Alerts written.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(status__in=RepriceStatus.values), name="reprice_status_known"),
        ]

    def __str__(self) -> str:
        return f"re-pricing after refresh {self.refresh_job_id} ({self.get_status_display()})"
