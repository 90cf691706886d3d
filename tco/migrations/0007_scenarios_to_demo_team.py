"""Scenarios saved before teams existed go to a "Demo" team (created here)."""

from django.db import migrations

DEMO_TEAM = {"slug": "demo", "name": "Demo"}


def scenarios_to_demo_team(apps, schema_editor):
    Team = apps.get_model("teams", "Team")
    Scenario = apps.get_model("tco", "Scenario")
    demo, _ = Team.objects.get_or_create(slug=DEMO_TEAM["slug"], defaults={"name": DEMO_TEAM["name"]})
    Scenario.objects.filter(team__isnull=True).update(team=demo)


class Migration(migrations.Migration):

    dependencies = [
        ("tco", "0006_teams_history_versions"),
        ("teams", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(scenarios_to_demo_team, migrations.RunPython.noop, elidable=True),
    ]
