"""Receivers: a price refresh that wrote prices re-prices the saved scenarios; a deleted run takes
its stored objects with it (also when its scenario's deletion cascades); a saved or deleted row of
a model the registry of reads says ``Revises`` (tco/services/evaluation_reads.py: a site's rooms,
racks and feeds, a price book's terms, the catalog's specifications) moves the revision the
evaluation cache's key reads."""
from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction
from django.db.models.signals import post_delete
from django.db.models.signals import post_save
from django.dispatch import receiver

from catalog.refresh.signals import prices_refreshed
from tco.models import SweepRun
from tco.runs.results import run_objects_delete
from tco.services.evaluation_reads import READS
from tco.services.evaluation_reads import Revises
from tco.services.repricing import reprice_job_request


@receiver(post_delete, sender=SweepRun, dispatch_uid="tco.delete_run_result_objects")
def delete_run_result_objects(sender: type[SweepRun], instance: SweepRun, **kwargs: Any) -> None:
    # Only once the deletion is committed: a rolled-back delete keeps its objects.
    transaction.on_commit(partial(run_objects_delete, instance.pk))


@receiver(prices_refreshed, dispatch_uid="tco.reprice_after_refresh")
def reprice_after_refresh(sender: Any, job_id: int, **kwargs: Any) -> None:
    """Queue the re-pricing of a refresh that wrote prices."""
    reprice_job_request(refresh_job_id=job_id)


def connect_revisions() -> None:
    """A receiver per ``Revises`` entry, on save and on delete (TcoConfig.ready)."""
    for read in READS:
        if not isinstance(read, Revises):
            continue
        uid = f"tco.revise_{read.revised._meta.label_lower}_by_{read.model._meta.label_lower}"
        receiver = partial(_revise, read)
        post_save.connect(receiver, sender=read.model, weak=False, dispatch_uid=f"{uid}_saved")
        post_delete.connect(receiver, sender=read.model, weak=False, dispatch_uid=f"{uid}_deleted")


def _revise(read: Revises, sender: Any, instance: Any, **kwargs: Any) -> None:
    read.revise(instance)
