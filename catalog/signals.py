"""The catalog's revision follows every change of its specifications, saved or deleted row by
row (the admin, the API and ``catalog_load`` all save rows one at a time). The evaluation cache's
key names it (tco/services/evaluation_cache.py), so a corrected system power, facility profile or
token price is evaluated again instead of served from the cache for a day.

A long write (a quote import adds hundreds of sources) runs inside ``revision_once()``: its rows
bump nothing as they are saved, and the revision moves once when the block's transaction has
committed. A bump inside a transaction locks the revision row until the commit, which held every
other write of the catalog (an exchange rate, another team's import) for the whole import.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.db import transaction
from django.db.models.signals import post_delete
from django.db.models.signals import post_save

from catalog.models import Accelerator
from catalog.models import AcceleratorPowerCap
from catalog.models import AcceleratorThroughput
from catalog.models import CatalogRevision
from catalog.models import CloudOffering
from catalog.models import CoolingTechnology
from catalog.models import EgressRate
from catalog.models import ExchangeRate
from catalog.models import FacilityProfile
from catalog.models import PowerDensityReference
from catalog.models import RentalCurvePrice
from catalog.models import Source
from catalog.models import SystemSku
from catalog.models import ThroughputMeasurement
from catalog.models import TokenApiPrice

# What a scenario's figures, warnings and sources read of the catalog besides prices and price
# checks (the key counts those itself: a refresh writes thousands, in bulk). Exchange rates are
# written in bulk and never changed, so the key's last id sees a new one; a deleted one moves
# the revision.
SPECIFICATIONS = (Source, Accelerator, AcceleratorThroughput, AcceleratorPowerCap, SystemSku,
                  CloudOffering, CoolingTechnology, FacilityProfile, PowerDensityReference,
                  TokenApiPrice, ThroughputMeasurement, ExchangeRate, RentalCurvePrice, EgressRate)


# Set inside revision_once(): the bumps asked for there, not yet made.
_deferred: ContextVar[list[bool] | None] = ContextVar("catalog_revision_deferred", default=None)


def bump_catalog_revision(sender=None, **kwargs) -> None:
    """A specification changed: the catalog's revision moves (its row is created if missing, as
    after a test database's flush: the key's revision then goes from none to 1)."""
    deferred = _deferred.get()
    if deferred is not None:
        deferred.append(True)
        return
    if not CatalogRevision.revise(pk=CatalogRevision.ROW):
        CatalogRevision.objects.get_or_create(pk=CatalogRevision.ROW)


@contextmanager
def revision_once() -> Iterator[None]:
    """Saves inside the block bump the catalog's revision once, after the commit of the
    transaction around them (at once when there is none)."""
    deferred: list[bool] = []
    token = _deferred.set(deferred)
    try:
        yield
    finally:
        _deferred.reset(token)
        if deferred:
            transaction.on_commit(bump_catalog_revision)


def connect() -> None:
    """Connect the receivers (CatalogConfig.ready)."""
    for model in SPECIFICATIONS:
        uid = f"catalog.revision_{model._meta.model_name}"
        post_save.connect(bump_catalog_revision, sender=model, dispatch_uid=f"{uid}_saved")
        post_delete.connect(bump_catalog_revision, sender=model, dispatch_uid=f"{uid}_deleted")
