"""Pinned assumptions name their catalog sources by key (``source_keys``), as new approvals do.

Pins made before carried the keys only inside their source sentences; this finds them there
once, against the catalog's source keys, so reports of approved scenarios keep citing them.
"""
import re

from django.db import migrations


def add_source_keys(apps, schema_editor):
    Source = apps.get_model("catalog", "Source")
    ScenarioSnapshot = apps.get_model("tco", "ScenarioSnapshot")
    keys = sorted(set(Source.objects.values_list("key", flat=True)))
    for snapshot in ScenarioSnapshot.objects.exclude(pinned=None).iterator():
        rows = snapshot.pinned.get("assumptions", [])
        if all("source_keys" in row for row in rows):
            continue
        for row in rows:
            text = row.get("source", "")
            row.setdefault("source_keys", [key for key in keys
                                           if re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", text)])
        snapshot.save(update_fields=["pinned"])


class Migration(migrations.Migration):
    dependencies = [("tco", "0019_spares_help_text"), ("catalog", "0010_unique_keys_say_what_exists")]

    operations = [migrations.RunPython(add_source_keys, migrations.RunPython.noop, elidable=True)]
