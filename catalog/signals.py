"""The catalog's revision follows every change of its specifications, saved or deleted row by
row (the admin, the API and ``catalog_load`` all save rows one at a time): the registry of what an
evaluation reads (tco/services/evaluation_reads.py) names the models and connects
``bump_catalog_revision`` to them. The evaluation cache's key names the revision, so a corrected
system power, facility profile or token price is evaluated again instead of served for a day.

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

from catalog.models import CatalogRevision

# Set inside revision_once(): the bumps asked for there, not yet made.
_deferred: ContextVar[list[bool] | None] = ContextVar("catalog_revision_deferred", default=None)


def bump_catalog_revision() -> None:
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

