"""Events other apps write that subscribers hear of: a price alert, once its row is committed, and
a long job (run, plan, report export) that finished."""
from __future__ import annotations

from typing import Any

from django.db.models.signals import post_save
from django.dispatch import receiver

from core.signals import job_finished
from notifications.choices import Event
from notifications.services import notify
from tco.models import PriceAlert
from tco.models import Scenario


@receiver(post_save, sender=PriceAlert, dispatch_uid="notifications.price_alert")
def price_alert_saved(sender: type[PriceAlert], instance: PriceAlert, created: bool, **kwargs: Any) -> None:
    if not created:
        return
    scenario = instance.scenario
    notify(event=Event.PRICE_ALERT, team_id=scenario.team_id, scenario_id=scenario.pk,
           subject=f"Price alert: {scenario.name}", body=instance.message,
           payload={"price_alert": {
               "id": instance.pk, "scenario_id": scenario.pk, "scenario": scenario.name,
               "kind": instance.kind, "rent_option": instance.rent_option,
               "old_winner": instance.old_winner, "new_winner": instance.new_winner,
               "old_breakeven_month": instance.old_breakeven_month,
               "new_breakeven_month": instance.new_breakeven_month,
               "old_price_usd_per_instance_hour": str(instance.old_price_usd_per_instance_hour),
               "new_price_usd_per_instance_hour": str(instance.new_price_usd_per_instance_hour),
               "old_cheapest": instance.old_cheapest, "new_cheapest": instance.new_cheapest,
               "old_margin": None if instance.old_margin is None else str(instance.old_margin),
               "new_margin": None if instance.new_margin is None else str(instance.new_margin),
               "currency": instance.currency, "message": instance.message}})


@receiver(job_finished, dispatch_uid="notifications.job_finished")
def long_job_finished(sender: Any, *, kind: str, job_id: int, scenario_id: int, label: str,
                      **kwargs: Any) -> None:
    scenario = Scenario.objects.filter(pk=scenario_id).only("team_id", "name").first()
    if scenario is None:
        return
    notify(event=Event.JOB_FINISHED, team_id=scenario.team_id, scenario_id=scenario_id,
           subject=f"Finished: {label}", body=f"{label} is done.",
           payload={"job": {"kind": kind, "id": job_id, "scenario_id": scenario_id, "label": label}})
