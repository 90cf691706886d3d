"""Schedule a daily price refresh per provider (django-celery-beat), idempotently.

The rows are created once and left alone afterwards, so times or a disabled provider set in
the admin survive. The refreshes are staggered so they do not all download at once.
"""
import json

from django.db import migrations

TASK = "catalog.tasks.refresh_prices_task"
QUEUE = "refresh"
# provider -> (hour, minute) UTC of its daily run.
DAILY_AT_UTC = {
    "aws": (3, 0),
    "azure": (3, 15),
    "gcp": (3, 30),
    "lambda": (3, 45),
    "runpod": (4, 0),
}


def task_name(provider):
    return f"catalog: refresh {provider} prices"


def schedule(apps, schema_editor):
    CrontabSchedule = apps.get_model("django_celery_beat", "CrontabSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    for provider, (hour, minute) in DAILY_AT_UTC.items():
        crontab, _ = CrontabSchedule.objects.get_or_create(
            minute=str(minute), hour=str(hour), day_of_week="*", day_of_month="*", month_of_year="*",
            timezone="UTC")
        PeriodicTask.objects.get_or_create(
            name=task_name(provider),
            defaults={"task": TASK, "crontab": crontab, "kwargs": json.dumps({"provider": provider}),
                      "queue": QUEUE, "enabled": True,
                      "description": f"Daily refresh of {provider} cloud prices from its price feed."})


def unschedule(apps, schema_editor):
    names = [task_name(provider) for provider in DAILY_AT_UTC]
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name__in=names).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0002_price_refresh"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(schedule, unschedule, elidable=True)]
