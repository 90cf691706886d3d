"""Every scenario belongs to a team (a migration of its own: PostgreSQL will not alter a table
with the data migration's foreign-key checks still pending in the same transaction)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("tco", "0007_scenarios_to_demo_team"),
    ]

    operations = [
        migrations.AlterField(
            model_name="scenario",
            name="team",
            field=models.ForeignKey(
                help_text="Only this team's members see the scenario.",
                on_delete=django.db.models.deletion.PROTECT,
                related_name="scenarios",
                to="teams.team",
            ),
        ),
    ]
