"""Stored inference sizings in the calibrated estimate's words (issue 28).

The roofline's fields go: ``batch_size`` (sequences decoded at once) becomes ``concurrency``
(requests in flight per replica); ``context_length`` (tokens attended, in full, every step)
becomes a request of half as many tokens in and half out, which keeps the KV cache a replica
must hold; ``compute_efficiency`` and ``memory_bandwidth_efficiency`` are dropped, the
efficiencies now being fitted on published measurements. Training sizings are left as they are.
"""
from django.db import migrations

DROPPED = ("compute_efficiency", "memory_bandwidth_efficiency")


def request_shape(spec: dict) -> dict:
    spec = {key: value for key, value in spec.items() if key not in DROPPED}
    if "batch_size" in spec:
        spec["concurrency"] = spec.pop("batch_size")
    if "context_length" in spec:
        context = int(spec.pop("context_length"))
        spec["input_tokens"] = max(context // 2, 1)
        spec["output_tokens"] = max(context - context // 2, 1)
    return spec


def forwards(apps, schema_editor):
    Scenario = apps.get_model("tco", "Scenario")
    for scenario in Scenario.objects.filter(sizing__mode="inference"):
        scenario.sizing = request_shape(scenario.sizing)
        scenario.save(update_fields=["sizing"])


class Migration(migrations.Migration):

    dependencies = [
        ("tco", "0027_merge_plan_cancel"),
    ]

    operations = [
        migrations.RunPython(forwards, migrations.RunPython.noop, elidable=True),
    ]
