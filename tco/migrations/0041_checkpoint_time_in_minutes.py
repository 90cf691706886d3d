"""A scenario's checkpoint time in minutes: 5 minutes was kept as 0.0833 h (4 decimals of an
hour), which moved the Young/Daly interval in its 4th digit. Existing figures, and their
history, are converted: hours x 60."""

from django.db import migrations
from django.db import models
from django.db.models import F

import tco.inputs

MINUTES = dict(blank=True, decimal_places=4, max_digits=12, null=True,
               help_text='Minutes to write a checkpoint; empty = 3 minutes (stated assumption).',
               verbose_name='checkpoint time (minutes)')


def hours_to_minutes(apps, schema_editor):
    for model in ("Scenario", "HistoricalScenario"):
        apps.get_model("tco", model).objects.filter(checkpoint_cost_min__isnull=False).update(
            checkpoint_cost_min=F("checkpoint_cost_min") * 60)


def minutes_to_hours(apps, schema_editor):
    for model in ("Scenario", "HistoricalScenario"):
        apps.get_model("tco", model).objects.filter(checkpoint_cost_min__isnull=False).update(
            checkpoint_cost_min=F("checkpoint_cost_min") / 60)


class Migration(migrations.Migration):

    dependencies = [
        ('tco', '0040_strategy_runs'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='scenario',
            name='scenario_checkpoint_cost_h_bounds',
        ),
        migrations.RenameField(model_name='scenario', old_name='checkpoint_cost_h',
                               new_name='checkpoint_cost_min'),
        migrations.RenameField(model_name='historicalscenario', old_name='checkpoint_cost_h',
                               new_name='checkpoint_cost_min'),
        migrations.AlterField(
            model_name='historicalscenario',
            name='checkpoint_cost_min',
            field=models.DecimalField(**MINUTES),
        ),
        migrations.AlterField(
            model_name='scenario',
            name='checkpoint_cost_min',
            field=models.DecimalField(
                **MINUTES, validators=[tco.inputs.WithinBounds('goodput.checkpoint_cost_h')]),
        ),
        migrations.RunPython(hours_to_minutes, minutes_to_hours),
        migrations.AddConstraint(
            model_name='scenario',
            constraint=models.CheckConstraint(
                condition=models.Q(('checkpoint_cost_min__isnull', True),
                                   ('checkpoint_cost_min__gte', 0), _connector='OR'),
                name='scenario_checkpoint_cost_min_bounds',
                violation_error_message='Checkpoint time must be at least 0.'),
        ),
    ]
