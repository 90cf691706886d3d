"""Rows whose ``revision`` moves with every change of what depends on them (a site with its racks
and feeds, a contract price book with its discounts and savings plans, the catalog's
specifications): the evaluation cache's key names the revisions
(tco/services/evaluation_cache.py), so figures cached before a change are computed again, not
served for a day."""
from __future__ import annotations

from django.db import models
from django.db.models import F


class RevisedModel(models.Model):
    """A model with a ``revision`` field (declared by the model, with its own help text), bumped
    by every ``save`` and, through its dependents' signals, by ``revise``."""

    class Meta:
        abstract = True

    def save(self, *args, **kwargs) -> None:
        """Save, bumping ``revision`` in the same UPDATE (never writing back a revision read before)."""
        if not self._state.adding:
            self.revision = F("revision") + 1
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "revision"}
        super().save(*args, **kwargs)
        if not isinstance(self.revision, int):
            self.refresh_from_db(fields=["revision"])

    @classmethod
    def revise(cls, **lookup) -> int:
        """Bump the revision of the rows ``lookup`` selects (a dependent row changed); how many."""
        return cls.objects.filter(**lookup).update(revision=F("revision") + 1)
