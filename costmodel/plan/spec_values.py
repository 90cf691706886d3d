"""Reading one value of a plan's spec, naming its field when it cannot be used."""

from __future__ import annotations

import math
from typing import Any

from costmodel.plan.inputs import PlanInputError


def mapping(raw: Any, path: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise PlanInputError(path, "must be an object")
    return dict(raw)


def number(raw: Any, path: str) -> float:
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise PlanInputError(path, f"must be a number, got {raw!r}") from None
    if math.isnan(value):
        raise PlanInputError(path, "must be a number, got NaN")
    return value


def whole(raw: Any, path: str, low: int, high: int) -> int:
    value = number(raw, path)
    if value != int(value) or not low <= value <= high:
        raise PlanInputError(path, f"must be a whole number from {low} to {high}")
    return int(value)
