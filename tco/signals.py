"""Receivers: a price refresh that wrote prices re-prices the saved scenarios; a deleted run takes
its result file with it (also when its scenario's deletion cascades)."""
from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver

from catalog.refresh.signals import prices_refreshed
from tco.models import SweepRun
from tco.services.repricing import reprice_job_request


@receiver(post_delete, sender=SweepRun, dispatch_uid="tco.delete_run_result_file")
def delete_run_result_file(sender: type[SweepRun], instance: SweepRun, **kwargs: Any) -> None:
    if instance.result_file:
        # Only once the deletion is committed: a rolled-back delete keeps its file.
        stored = instance.result_file
        transaction.on_commit(lambda: stored.storage.delete(stored.name))


@receiver(prices_refreshed, dispatch_uid="tco.reprice_after_refresh")
def reprice_after_refresh(sender: Any, job_id: int, **kwargs: Any) -> None:
    """Queue the re-pricing of a refresh that wrote prices."""
    reprice_job_request(refresh_job_id=job_id)
