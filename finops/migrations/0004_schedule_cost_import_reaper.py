from django.db import migrations

# The reaper of every job kind runs every minute (core/jobs.py).
REAPERS = {"finops: reap lost cost imports": "finops.tasks.cost_imports_reap_task"}
EVERY_SECONDS = 60


def schedule(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    interval, _ = IntervalSchedule.objects.get_or_create(every=EVERY_SECONDS, period="seconds")
    for name, task in REAPERS.items():
        PeriodicTask.objects.update_or_create(
            name=name, defaults={"task": task, "interval": interval, "queue": "default", "enabled": True})


def unschedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name__in=list(REAPERS)).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("django_celery_beat", "0019_alter_periodictasks_options"),
        ("finops", "0003_cost_imports_as_jobs"),
    ]

    operations = [migrations.RunPython(schedule, unschedule)]
