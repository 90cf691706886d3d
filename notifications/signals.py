"""Events other apps write that subscribers hear of: a price alert, once its row is committed."""
from __future__ import annotations

from typing import Any

from django.db.models.signals import post_save
from django.dispatch import receiver

from notifications.choices import Event
from notifications.services import notify
from tco.models import PriceAlert


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
               "message": instance.message}})
