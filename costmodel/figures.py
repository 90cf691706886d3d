"""One scenario's figures out of the engine's batch-shaped arrays, for pages, reports and JSON.

A scenario evaluated alone still gives arrays (of one value); NaN means "none" and inf
"never", which a page says in words and JSON, having neither, says as null.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def item(values: Any) -> Any:
    """The first (for a batch of one, the only) value, as a plain Python value.

    >>> item(np.array([[3.5]])), item(np.array([True]))
    (3.5, True)
    """
    if isinstance(values, np.generic):
        return values.item()
    return np.reshape(values, -1)[0].item()


def scalar(values: Any) -> float:
    """The first (for a batch of one, the only) value, as a float; NaN and inf are kept.

    >>> scalar(np.array([12.0])), scalar(7)
    (12.0, 7.0)
    """
    return float(np.reshape(values, -1)[0])


def finite_or_none(value: Any) -> float | None:
    """A number as a float, or None for NaN (none) and inf (never).

    >>> finite_or_none(np.float64(2.5)), finite_or_none(float("nan")), finite_or_none(float("inf"))
    (2.5, None, None)
    """
    number = float(value)
    return number if math.isfinite(number) else None
