"""A deleted run takes its result file with it (also when its scenario's deletion cascades)."""
from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver

from tco.models import SweepRun


@receiver(post_delete, sender=SweepRun, dispatch_uid="tco.delete_run_result_file")
def delete_run_result_file(sender: type[SweepRun], instance: SweepRun, **kwargs: Any) -> None:
    if instance.result_file:
        # Only once the deletion is committed: a rolled-back delete keeps its file.
        stored = instance.result_file
        transaction.on_commit(lambda: stored.storage.delete(stored.name))
