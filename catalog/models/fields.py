"""Helpers the catalog's models declare their fields and constraints with."""
from __future__ import annotations

from django.db import models
from django.db.models import Q

from catalog.validators import validate_positive


def _figure(max_digits: int = 10, decimal_places: int = 2, **kwargs) -> models.DecimalField:
    """A positive decimal figure; null when no source gives it."""
    kwargs.setdefault("null", True)
    kwargs.setdefault("blank", kwargs["null"])
    return models.DecimalField(
        max_digits=max_digits,
        decimal_places=decimal_places,
        validators=[validate_positive],
        **kwargs,
    )


def _positive(field: str) -> models.CheckConstraint:
    return models.CheckConstraint(
        condition=Q(**{f"{field}__isnull": True}) | Q(**{f"{field}__gt": 0}),
        name="%(app_label)s_%(class)s_" + f"{field}_positive",
    )


def _known(field: str, choices: type[models.Choices], name: str) -> models.CheckConstraint:
    """The column holds one of ``choices``, whatever writes the row."""
    return models.CheckConstraint(condition=Q(**{f"{field}__in": choices.values}), name=name)


def _owning_team(related_name: str, help_text: str) -> models.ForeignKey:
    """The team a confidential row belongs to, seen by its members only; null on a public row."""
    return models.ForeignKey(
        "teams.Team",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name=related_name,
        help_text=help_text,
    )
