"""Monte Carlo runs of a scenario's strategies over price paths, on the workers.

A run fixes at its start what every chunk draws from (the price model fitted on the curve's
history, the seed, the count of paths); each chunk costs a slice of the paths, the one that counts
the last chunk assembles the result. Path p is the same draw whatever chunk holds it
(``costmodel.price_paths``), so the result does not depend on the chunking.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F
from django.db.models import Q

from tco.choices import RunStatus
from tco.models.scenario import Scenario


class StrategyRun(models.Model):
    """The strategies of a scenario costed over drawn price paths."""

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="strategy_runs")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                   blank=True, related_name="+")
    paths = models.PositiveIntegerField()
    seed = models.BigIntegerField()
    model = models.JSONField(help_text="The price model every chunk draws from (fitted at the start).")
    status = models.CharField(max_length=9, choices=RunStatus.choices, default=RunStatus.PENDING)
    chunks_total = models.PositiveIntegerField(default=0)
    chunks_done = models.PositiveIntegerField(default=0)
    result = models.JSONField(null=True, blank=True,
                              help_text="Each strategy's NPV percentiles and probability of being cheapest.")
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=Q(chunks_done__lte=F("chunks_total")),
                                   name="tco_strategy_run_chunks_counted_once"),
            models.CheckConstraint(condition=Q(status__in=RunStatus.values),
                                   name="tco_strategy_run_status_known"),
        ]

    def __str__(self) -> str:
        return f"strategies of {self.scenario} over {self.paths:,} price paths"


class StrategyRunChunk(models.Model):
    """One slice of a run's price paths and each strategy's NPV of costs on them."""

    run = models.ForeignKey(StrategyRun, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    start = models.PositiveIntegerField()
    stop = models.PositiveIntegerField()
    done = models.BooleanField(default=False)
    npv = models.JSONField(null=True, blank=True,
                           help_text="Strategy key -> NPV of costs per path, in the scenario's currency.")

    class Meta:
        ordering = ["run", "index"]
        constraints = [
            models.UniqueConstraint(fields=["run", "index"], name="tco_strategy_chunk_one_per_index"),
            models.CheckConstraint(condition=Q(stop__gt=F("start")), name="tco_strategy_chunk_not_empty"),
        ]

    def __str__(self) -> str:
        return f"paths {self.start}-{self.stop - 1} of strategy run {self.run_id}"
