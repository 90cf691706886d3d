"""Run-change notifications on PostgreSQL (tco/runs/change_notifications.py)."""
from functools import partial

from django.db import migrations

from tco.runs.change_notifications import CREATE
from tco.runs.change_notifications import DROP
from tco.runs.change_notifications import execute_on_postgresql


class Migration(migrations.Migration):

    dependencies = [
        ("tco", "0030_chunk_part_help"),
    ]

    operations = [migrations.RunPython(partial(execute_on_postgresql, statements=CREATE),
                                       partial(execute_on_postgresql, statements=DROP), elidable=True)]
