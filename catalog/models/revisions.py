"""The catalog's revision, which a cached evaluation reads."""
from __future__ import annotations

from django.db import models
from django.db.models import Q

from core.revisions import RevisedModel


class CatalogRevision(RevisedModel):
    """One row whose revision moves with every change of the catalog's specifications: sources,
    accelerators and their throughputs and power caps, systems, cloud offerings, cooling
    technologies, facility profiles, power densities, token API prices and throughput
    measurements, saved or deleted, and exchange rates deleted (the registry of what an
    evaluation reads, tco/services/evaluation_reads.py). Prices and their checks are named by the
    evaluation cache's key on their own, row by row, as is the newest exchange rate; this is the
    rest of what a scenario's figures read from the catalog (tco/services/evaluation_cache.py)."""

    ROW = 1

    revision = models.BigIntegerField(default=1)

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(id=1), name="catalog_catalogrevision_one_row")]

    def __str__(self) -> str:
        return f"catalog revision {self.revision}"
