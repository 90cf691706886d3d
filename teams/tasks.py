"""Housekeeping of the teams app on Celery beat."""
from __future__ import annotations

from celery import shared_task

from teams.tokens import expired_tokens_delete


@shared_task(name="teams.tasks.expired_tokens_delete_task")
def expired_tokens_delete_task() -> int:
    """Delete the API tokens past their expiry (scheduled hourly); returns how many."""
    return expired_tokens_delete()
