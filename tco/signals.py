"""Receivers: a price refresh that wrote prices re-prices the saved scenarios; a deleted run takes
its stored objects with it (also when its scenario's deletion cascades); a changed contract
discount or savings plan moves its price book's revision, which the evaluation cache's key names."""
from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction
from django.db.models.signals import post_delete
from django.db.models.signals import post_save
from django.dispatch import receiver

from catalog.refresh.signals import prices_refreshed
from tco.models import ContractDiscount
from tco.models import ContractPriceBook
from tco.models import SavingsPlanCommitment
from tco.models import SweepRun
from tco.runs.results import run_objects_delete
from tco.services.repricing import reprice_job_request


@receiver(post_delete, sender=SweepRun, dispatch_uid="tco.delete_run_result_objects")
def delete_run_result_objects(sender: type[SweepRun], instance: SweepRun, **kwargs: Any) -> None:
    # Only once the deletion is committed: a rolled-back delete keeps its objects.
    transaction.on_commit(partial(run_objects_delete, instance.pk))


@receiver(prices_refreshed, dispatch_uid="tco.reprice_after_refresh")
def reprice_after_refresh(sender: Any, job_id: int, **kwargs: Any) -> None:
    """Queue the re-pricing of a refresh that wrote prices."""
    reprice_job_request(refresh_job_id=job_id)


@receiver(post_save, sender=ContractDiscount, dispatch_uid="tco.revise_book_discount_saved")
@receiver(post_delete, sender=ContractDiscount, dispatch_uid="tco.revise_book_discount_deleted")
@receiver(post_save, sender=SavingsPlanCommitment, dispatch_uid="tco.revise_book_plan_saved")
@receiver(post_delete, sender=SavingsPlanCommitment, dispatch_uid="tco.revise_book_plan_deleted")
def revise_price_book(sender: Any, instance: ContractDiscount | SavingsPlanCommitment, **kwargs: Any) -> None:
    """A term of a book changed: its revision moves (a book being deleted with it, none)."""
    ContractPriceBook.revise(pk=instance.book_id)
