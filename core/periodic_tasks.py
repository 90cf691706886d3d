"""Periodic tasks (django-celery-beat rows) that an app's migrations install on a fresh database.

An app's squashed migration declares the schedule its replaced migrations built step by step and
installs it with ``install_operation(rows)``. Rows are created only where missing, so times or a
disabled task set in the admin survive.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from dataclasses import field
from functools import partial
from typing import Any

from django.db import migrations


@dataclass(frozen=True)
class Every:
    seconds: int


@dataclass(frozen=True)
class DailyAt:
    """A crontab in UTC: ``minute`` past ``hour`` on the days of the week given (cron syntax)."""
    hour: int
    minute: int
    days_of_week: str = "*"


@dataclass(frozen=True)
class PeriodicRow:
    name: str
    task: str
    when: Every | DailyAt
    queue: str = "default"
    kwargs: dict[str, Any] = field(default_factory=dict)
    description: str = ""


def install_operation(rows: list[PeriodicRow]) -> migrations.RunPython:
    """The migration operation that installs ``rows`` (and removes them when unapplied)."""
    return migrations.RunPython(partial(install, rows=rows), partial(uninstall, rows=rows))


def install(apps: Any, schema_editor: Any, *, rows: list[PeriodicRow]) -> None:
    """Create each row that is missing (``apps`` is the migration's historical registry)."""
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    for row in rows:
        PeriodicTask.objects.get_or_create(name=row.name, defaults={
            "task": row.task, "queue": row.queue, "kwargs": json.dumps(row.kwargs), "enabled": True,
            "description": row.description, **_schedule(apps, row.when)})


def uninstall(apps: Any, schema_editor: Any, *, rows: list[PeriodicRow]) -> None:
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(
        name__in=[row.name for row in rows]).delete()


def _schedule(apps: Any, when: Every | DailyAt) -> dict[str, Any]:
    if isinstance(when, Every):
        interval, _ = apps.get_model("django_celery_beat", "IntervalSchedule").objects.get_or_create(
            every=when.seconds, period="seconds")
        return {"interval": interval}
    crontab, _ = apps.get_model("django_celery_beat", "CrontabSchedule").objects.get_or_create(
        minute=str(when.minute), hour=str(when.hour), day_of_week=when.days_of_week,
        day_of_month="*", month_of_year="*", timezone="UTC")
    return {"crontab": crontab}
