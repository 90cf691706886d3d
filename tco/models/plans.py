"""Procurement plans over a scenario: the spec, the solve job's state and the solved plan.

A plan reads the catalog, facility and finance of its scenario and belongs to the scenario's
team. Solving and the Monte Carlo draws run on Celery workers; clients poll the plan row.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F
from django.db.models import Q

from core.jobs import RecoverableJob
from tco.choices import PlanStatus
from tco.models.scenario import Scenario


class ProcurementPlan(RecoverableJob):
    """The cheapest mix of owned, reserved, on-demand and spot capacity for a demand curve."""

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="plans")
    name = models.CharField(max_length=200)
    spec = models.JSONField(help_text="Demand, choices, limits and uncertainty; see costmodel/plan/spec.py.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                   blank=True, related_name="+")
    status = models.CharField(max_length=9, choices=PlanStatus.choices, default=PlanStatus.PENDING)
    result = models.JSONField(null=True, blank=True, help_text="The solved plan, its baselines and limits.")
    uncertainty = models.JSONField(null=True, blank=True,
                                   help_text="Distribution of the saving over the Monte Carlo draws.")
    draws_total = models.PositiveIntegerField(default=0)
    chunks_total = models.PositiveIntegerField(default=0)
    chunks_done = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    # A plan's job has two stages, its solve and its draws: these recovery fields speak of both.
    attempts = models.PositiveSmallIntegerField(default=0, help_text="Times its solve or draws were sent.")
    queued_at = models.DateTimeField(
        null=True, blank=True, help_text="When its solve or draws were last sent, or a draw chunk finished.")
    started_at = models.DateTimeField(null=True, blank=True, help_text="When its solve began.")
    solved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=Q(chunks_done__lte=F("chunks_total")),
                                   name="tco_plan_chunks_counted_once"),
            models.CheckConstraint(condition=Q(status__in=PlanStatus.values), name="tco_plan_status_known"),
        ]

    def __str__(self) -> str:
        return self.name


class PlanDrawChunk(models.Model):
    """One slice of a plan's Monte Carlo draws and the NPV of the plan and baselines in each."""

    plan = models.ForeignKey(ProcurementPlan, on_delete=models.CASCADE, related_name="draw_chunks")
    index = models.PositiveIntegerField()
    start = models.PositiveIntegerField()
    stop = models.PositiveIntegerField()
    done = models.BooleanField(default=False)
    queued = models.BooleanField(default=False, help_text="Sent to a worker (a few are at a time).")
    npv_usd = models.JSONField(null=True, blank=True, help_text="Case name -> NPV per draw.")

    class Meta:
        ordering = ["plan", "index"]
        constraints = [
            models.UniqueConstraint(fields=["plan", "index"], name="tco_plan_chunk_one_per_index"),
            models.CheckConstraint(condition=Q(stop__gt=F("start")), name="tco_plan_chunk_not_empty"),
        ]

    def __str__(self) -> str:
        return f"draws {self.start}-{self.stop - 1} of plan {self.plan_id}"
