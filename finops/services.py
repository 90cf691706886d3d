"""Alert a team on every month its actual costs put off a target: after a FOCUS import
(finops/cost_imports.py) and when a target is named. Each target is compared again
(finops/variance.py) and a month newly beyond the threshold writes a VarianceAlert and tells the
subscribers (notifications).
"""
from __future__ import annotations

from costmodel.vocabulary import money
from finops.models import CostTarget
from finops.models import VarianceAlert
from finops.variance import variance
from notifications.choices import Event
from notifications.services import notify

FIGURES = ("projected_usd", "actual_usd", "variance_usd", "variance_share")


def variance_alerts_write(target: CostTarget) -> list[VarianceAlert]:
    """An alert, told to the subscribers, for each month over the threshold not alerted yet."""
    found = variance(target)
    alerted = set(target.alerts.values_list("month", flat=True))
    scenario = target.approved_scenario
    alerts = []
    for row in found.months_over_threshold:
        month = row["month"]
        if any(month == done.isoformat() for done in alerted):
            continue
        share = "" if row["variance_share"] is None else f" ({row['variance_share']:+.1%})"
        direction = "over" if row["variance_usd"] > 0 else "under"
        actual, projected, by = (money(value, currency=found.currency) for value in (
            row["actual_usd"], row["projected_usd"], abs(row["variance_usd"])))
        message = (f"{scenario.name}: {month[:7]} actual costs {actual} against {projected} projected "
                   f"for {found.option}, {direction} by {by}{share}.")
        alert = VarianceAlert.objects.create(target=target, month=month, projected_usd=row["projected_usd"],
                                             actual_usd=row["actual_usd"], message=message)
        notify(event=Event.VARIANCE_ALERT, team_id=target.team_id, scenario_id=scenario.pk,
               subject=f"Variance alert: {scenario.name}, {month[:7]}", body=message,
               payload={"variance_alert": {
                   "id": alert.pk, "target": target.pk, "scenario_id": scenario.pk, "month": month,
                   **{key: row[key] for key in FIGURES},
                   "message": message}})
        alerts.append(alert)
    return alerts
