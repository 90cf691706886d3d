"""Schedule the deletion of expired API tokens every hour (django-celery-beat), idempotently."""
from django.db import migrations

TASK_NAME = "teams: delete expired API tokens"
TASK = "teams.tasks.expired_tokens_delete_task"
EVERY_SECONDS = 3600


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
        ("teams", "0003_finance_defaults"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(schedule, unschedule, elidable=True)]
