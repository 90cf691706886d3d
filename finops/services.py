"""Import a team's FOCUS cost file, and alert the team on every month it puts off its targets.

    cost_import = costs_import(team=team, name="aws-2027-03.csv", content=b"...", user=user)

The file is read whole first (finops/focus_import.py); a refused file stores nothing. Once its
rows are stored, each of the team's targets is compared again (finops/variance.py) and a month
newly beyond the threshold writes a VarianceAlert and tells the subscribers (notifications).
"""
from __future__ import annotations

from decimal import Decimal

from django.db import transaction

from costmodel.vocabulary import money
from finops.focus_import import read_focus_file
from finops.models import ActualCost
from finops.models import CostImport
from finops.models import CostTarget
from finops.models import VarianceAlert
from finops.variance import variance
from notifications.choices import Event
from notifications.services import notify
from tco.services.exchange_rates import rate_book

FIGURES = ("projected_usd", "actual_usd", "variance_usd", "variance_share")


@transaction.atomic
def costs_import(*, team, name: str, content: bytes, user=None) -> CostImport:
    """Store every row of the file for the team in its reporting currency (FocusFileError: nothing
    stored), then alert."""
    currency = team.reporting_currency
    rows = read_focus_file(name, content, currency=currency, rates=rate_book([team.pk]))
    billed = sum((row.billed for row in rows), Decimal(0))
    cost_import = CostImport.objects.create(team=team, file_name=name[:255], imported_by=user,
                                            rows=len(rows), billed_usd=billed, currency=currency)
    ActualCost.objects.bulk_create(
        ActualCost(cost_import=cost_import, team=team, month=row.month,
                   charge_period_start=row.charge_period_start, billed_cost=row.billed,
                   effective_cost=row.effective, charge_category=row.charge_category,
                   provider=row.provider, service_name=row.service_name, sku_id=row.sku_id,
                   resource_id=row.resource_id, option=row.option)
        for row in rows)
    for target in CostTarget.objects.filter(team=team).select_related("scenario", "plan__scenario"):
        variance_alerts_write(target)
    return cost_import


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
