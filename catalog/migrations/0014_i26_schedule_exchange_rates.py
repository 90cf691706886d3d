"""Schedule the ECB's euro reference rates every working day after their publication (around
16:00 CET), idempotently; the row is left alone afterwards so a time set in the admin survives."""
from django.db import migrations

TASK = "catalog.tasks.refresh_exchange_rates_task"
NAME = "catalog: refresh ECB exchange rates"


def schedule(apps, schema_editor):
    CrontabSchedule = apps.get_model("django_celery_beat", "CrontabSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    crontab, _ = CrontabSchedule.objects.get_or_create(
        minute="30", hour="16", day_of_week="1-5", day_of_month="*", month_of_year="*", timezone="UTC")
    PeriodicTask.objects.get_or_create(
        name=NAME, defaults={"task": TASK, "crontab": crontab, "queue": "refresh", "enabled": True,
                             "description": "Daily ECB euro reference rates (last 90 days)."})


def unschedule(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0013_i26_exchange_rates_and_currencies"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(schedule, unschedule, elidable=True)]
