"""The one error a run spec is refused with, and the number parsing that raises it."""
from __future__ import annotations

import math
from typing import Any

from tco.errors import FieldError


class RunSpecError(FieldError):
    """A run spec that cannot run; ``field`` names the part to fix, e.g. ``axes[1].step``."""


def number(raw: Any, field: str) -> float:
    """A finite float from a JSON number or numeric string; RunSpecError otherwise."""
    if isinstance(raw, bool):
        raise RunSpecError(field, f"must be a number, got {raw!r}")
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise RunSpecError(field, f"must be a number, got {raw!r}") from None
    if not math.isfinite(value):
        raise RunSpecError(field, f"must be a finite number, got {raw!r}")
    return value


def whole_number(raw: Any, field: str, *, low: int, high: int) -> int:
    """An integer in [low, high] from a JSON number or numeric string; RunSpecError otherwise."""
    value = number(raw, field)
    if value != int(value):
        raise RunSpecError(field, f"must be a whole number, got {raw!r}")
    if not low <= value <= high:
        raise RunSpecError(field, f"must be between {low:,} and {high:,}, got {int(value):,}")
    return int(value)
