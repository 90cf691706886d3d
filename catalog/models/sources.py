"""Where a figure came from: sources, and the provenance every catalog row carries."""
from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from catalog.choices import SourceKind
from catalog.models.fields import _known
from catalog.models.fields import _owning_team


class Source(models.Model):
    """A document a catalog figure comes from: a seed document, price list, API, quote or assumption."""

    key = models.CharField(
        max_length=500,
        help_text="Short key (seed-002) or the URL of the document; unique among public sources "
        "and within a team.",
    )
    title = models.CharField(max_length=300)
    kind = models.CharField(max_length=32, choices=SourceKind.choices)
    url = models.URLField(max_length=500, blank=True)
    document = models.CharField(
        max_length=300, blank=True, help_text="Path of the document beside the project (../shared)."
    )
    published_on = models.DateField(
        null=True,
        blank=True,
        help_text="Date the document's figures apply to; the default as-of date of its prices.",
    )
    date_basis = models.TextField(
        blank=True, help_text="Where published_on comes from: stated in the document or assumed, and why."
    )
    retrieved_on = models.DateField(null=True, blank=True)
    note = models.TextField(blank=True)
    team = _owning_team(
        "sources", "The team whose confidential quote this is, seen by its members only; empty = public."
    )

    class Meta:
        ordering = ["key"]
        constraints = [
            _known("kind", SourceKind, "catalog_source_kind_known"),
            # A team's quote may name its source as it likes without learning another team's names.
            models.UniqueConstraint(
                fields=["key"], condition=Q(team__isnull=True), name="catalog_source_public_key",
                violation_error_code="unique",  # reported on the key field
                violation_error_message="A public source with this key already exists.",
            ),
            models.UniqueConstraint(
                fields=["team", "key"], condition=Q(team__isnull=False), name="catalog_source_team_key",
                violation_error_message="The team already has a source with this key.",
            ),
        ]

    def __str__(self) -> str:
        return self.key


class ProvenancedModel(models.Model):
    """Abstract base: every figure column names the sources it came from in ``field_sources``."""

    #: Columns holding figures that must each name at least one source.
    FIGURE_FIELDS: tuple[str, ...] = ()

    field_sources = models.JSONField(
        default=dict,
        blank=True,
        help_text='Source keys per figure, e.g. {"tdp_w": ["seed-002", "seed-003"]}.',
    )
    notes = models.TextField(blank=True, help_text="Disagreements between sources, assumptions.")

    class Meta:
        abstract = True

    def clean(self) -> None:
        super().clean()
        self._clean_field_sources()

    def _clean_field_sources(self) -> None:
        if not isinstance(self.field_sources, dict):
            raise ValidationError({"field_sources": "must map figure names to lists of source keys"})
        errors: list[str] = []
        unknown_fields = sorted(set(self.field_sources) - set(self.FIGURE_FIELDS))
        if unknown_fields:
            errors.append(f"not figures of this model: {', '.join(unknown_fields)}")
        for name, keys in self.field_sources.items():
            if not isinstance(keys, list) or not keys or not all(isinstance(k, str) for k in keys):
                errors.append(f"{name}: needs a non-empty list of source keys")
        unsourced = [
            name
            for name in self.FIGURE_FIELDS
            if getattr(self, self._meta.get_field(name).attname) not in (None, "")
            and name not in self.field_sources
        ]
        if unsourced:
            errors.append(f"figures without a source: {', '.join(unsourced)}")
        if not errors:
            wanted = {key for keys in self.field_sources.values() for key in keys}
            # Catalog figures are public, so they cite public sources only.
            public = Source.objects.filter(key__in=wanted, team__isnull=True)
            known = set(public.values_list("key", flat=True))
            if wanted - known:
                errors.append(f"unknown source keys: {', '.join(sorted(wanted - known))}")
        if errors:
            raise ValidationError({"field_sources": errors})


class CatalogEntry(ProvenancedModel):
    """Abstract base: a system, cooling technology or facility, picked by its slug. (An
    accelerator names itself in its own columns: its slug has a format and its name follows
    vendor and family.)"""

    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=128)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return self.slug
