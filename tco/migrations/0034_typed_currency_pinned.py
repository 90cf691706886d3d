"""Scenarios saved with no typed currency keep the one their amounts were typed in: the
reporting currency of the day (a later switch of the reporting currency then converts them)."""
from django.db import migrations
from django.db.models import F


def pin_typed_currency(apps, schema_editor):
    Scenario = apps.get_model("tco", "Scenario")
    blank = Scenario.objects.filter(currency="")
    blank.exclude(reporting_currency="").update(currency=F("reporting_currency"))
    for team_id, code in (Scenario.objects.filter(currency="").values_list("team_id", "team__reporting_currency")
                          .distinct()):
        Scenario.objects.filter(currency="", team_id=team_id).update(currency=code or "USD")


class Migration(migrations.Migration):

    dependencies = [("tco", "0033_verdict_alerts"), ("teams", "0007_verdict_alerts")]

    operations = [migrations.RunPython(pin_typed_currency, migrations.RunPython.noop, elidable=True)]
