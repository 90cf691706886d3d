"""Field validators shared by the catalog's models (and so by its forms and API serializers)."""

from __future__ import annotations

from decimal import Decimal

from django.core.exceptions import ValidationError


def validate_positive(value: Decimal | int | float) -> None:
    """Reject zero and negative figures: a price, memory size or power of 0 is a data error."""
    if value is not None and value <= 0:
        raise ValidationError("must be greater than zero", code="not_positive")


def validate_not_negative(value: Decimal | int | float) -> None:
    """Reject negative figures where zero is meaningful (idle power, a lower bound)."""
    if value is not None and value < 0:
        raise ValidationError("must not be negative", code="negative")
