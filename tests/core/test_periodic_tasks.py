"""The periodic tasks a fresh database gets from the squashed migrations (core/periodic_tasks.py)."""
from django_celery_beat.models import PeriodicTask

from config.celery_app import app
from core.queues import Queue


def test_every_installed_periodic_task_names_a_registered_task_on_a_served_queue(db):
    app.loader.import_default_modules()  # the apps' tasks modules register their tasks
    installed = PeriodicTask.objects.order_by("name")

    # 5 price refreshes, ECB rates, 6 reapers (FOCUS cost imports' from finops), token cleanup.
    assert installed.count() == 13
    assert [task.name for task in installed if task.task not in app.tasks] == []
    assert {task.queue for task in installed} <= set(Queue)


def test_price_refreshes_are_staggered_daily_and_the_ecb_rates_follow_their_publication(db):
    refreshes = PeriodicTask.objects.filter(task="catalog.tasks.refresh_prices_task").order_by("name")
    ecb = PeriodicTask.objects.get(task="catalog.tasks.refresh_exchange_rates_task")

    assert [(task.kwargs, task.crontab.hour, task.crontab.minute) for task in refreshes] == [
        ('{"provider": "aws"}', "3", "0"), ('{"provider": "azure"}', "3", "15"),
        ('{"provider": "gcp"}', "3", "30"), ('{"provider": "lambda"}', "3", "45"),
        ('{"provider": "runpod"}', "4", "0")]
    # The ECB publishes its reference rates around 16:00 CET on working days.
    assert (ecb.crontab.hour, ecb.crontab.minute, ecb.crontab.day_of_week) == ("16", "30", "1-5")
