"""Schedule the stale-run reaper every 5 minutes (django-celery-beat), idempotently."""
from django.db import migrations

TASK_NAME = "tco: reap stale runs"
TASK = "tco.tasks.sweep_runs_reap_task"
# Often enough that a stalled run is queued again within minutes of REQUEUE_STALLED_AFTER_S.
EVERY_SECONDS = 300


def schedule(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    interval, _ = IntervalSchedule.objects.get_or_create(every=EVERY_SECONDS, period="seconds")
    PeriodicTask.objects.update_or_create(
        name=TASK_NAME, defaults={"task": TASK, "interval": interval, "queue": "default", "enabled": True})


def unschedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=TASK_NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("tco", "0002_sweep_runs"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(schedule, unschedule, elidable=True)]
