"""Imported actual costs, the projections they are compared with, and the alerts on variance."""
from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from core.file_imports import FileImport
from core.file_imports import ImportStatus

COST = {"max_digits": 20, "decimal_places": 6}


class CostImport(FileImport):
    """A team's FOCUS cost file, imported on a worker (finops/cost_imports.py): all its rows, or
    none when any is bad (``errors`` names each); its rows count in the variance once it is done."""

    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="cost_imports")
    imported_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                    blank=True, related_name="+")
    billed_usd = models.DecimalField(**COST, default=0,
                                     help_text="Sum of the file's BilledCost, in the import's currency.")
    currency = models.CharField(max_length=3, default="USD",
                                help_text="The team's reporting currency at the import, which every row "
                                          "was converted into at the rate of its month (ISO 4217).")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.CheckConstraint(condition=Q(status__in=ImportStatus.values),
                                              name="finops_cost_import_status_known")]

    def __str__(self) -> str:
        return f"{self.file_name} ({self.get_status_display()})"


class ActualCost(models.Model):
    """One row of an imported FOCUS file, as far as the comparison with the plan reads it."""

    cost_import = models.ForeignKey(CostImport, on_delete=models.CASCADE, related_name="costs")
    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="+")
    month = models.DateField(help_text="First day of the month of ChargePeriodStart (UTC).")
    charge_period_start = models.DateTimeField()
    billed_cost = models.DecimalField(**COST, help_text="In the import's currency.")
    effective_cost = models.DecimalField(**COST, null=True, blank=True)
    charge_category = models.CharField(max_length=16)
    provider = models.CharField(max_length=200)
    service_name = models.CharField(max_length=200, blank=True)
    sku_id = models.CharField(max_length=200, blank=True)
    resource_id = models.CharField(max_length=500, blank=True)
    option = models.CharField(max_length=500, blank=True, help_text="The file's x_Option, if it has one.")

    class Meta:
        ordering = ["month", "id"]
        indexes = [models.Index(fields=["team", "month"])]

    def __str__(self) -> str:
        return f"{self.month:%Y-%m} {self.provider} {self.billed_cost}"


class CostTarget(models.Model):
    """What a team's actual costs are compared with: an approved scenario's option, or a solved
    plan of an approved scenario, from a calendar month on."""

    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="cost_targets")
    scenario = models.ForeignKey("tco.Scenario", on_delete=models.CASCADE, null=True, blank=True,
                                 related_name="cost_targets")
    option = models.CharField(max_length=500, blank=True,
                              help_text="The scenario's option the team went with ('Buy' or a rent "
                                        "option's name); empty = the cheapest by NPV.")
    plan = models.ForeignKey("tco.ProcurementPlan", on_delete=models.CASCADE, null=True, blank=True,
                             related_name="cost_targets")
    starts_on = models.DateField(help_text="The calendar month of the projection's month 0.")
    alert_share = models.DecimalField(max_digits=6, decimal_places=4, null=True, blank=True,
                                      help_text="Alert when a month is off by more than this share "
                                                "(0.10 = 10 %); empty = the settings' default.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["team", "-starts_on", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(scenario__isnull=True) ^ Q(plan__isnull=True),
                                   name="cost_target_scenario_or_plan"),
        ]

    def __str__(self) -> str:
        what = f"plan {self.plan}" if self.plan_id else f"{self.scenario} ({self.option or 'cheapest'})"
        return f"{what} from {self.starts_on:%Y-%m}"

    @property
    def approved_scenario(self):
        return self.plan.scenario if self.plan_id else self.scenario

    def clean(self) -> None:
        super().clean()
        if (self.scenario_id is None) == (self.plan_id is None):
            raise ValidationError({"scenario": "name an approved scenario or a plan, not both"})
        scenario = self.approved_scenario
        if not scenario.is_approved:
            raise ValidationError({"plan" if self.plan_id else "scenario": "actual costs are compared "
                                   "with an approved scenario only: approve it first"})
        if scenario.team_id != self.team_id:
            raise ValidationError({"scenario": "the scenario is not the team's"})
        if self.plan_id and not (self.plan.result or {}).get("feasible"):
            raise ValidationError({"plan": "the plan is not solved"})


class VarianceAlert(models.Model):
    """A month whose actual total was off its projection by more than the threshold."""

    target = models.ForeignKey(CostTarget, on_delete=models.CASCADE, related_name="alerts")
    month = models.DateField()
    projected_usd = models.DecimalField(max_digits=18, decimal_places=2)
    actual_usd = models.DecimalField(max_digits=18, decimal_places=2)
    message = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-month", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["target", "month"], name="variance_alert_one_per_month"),
        ]

    def __str__(self) -> str:
        return self.message
