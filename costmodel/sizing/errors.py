"""The sizing error type and the range checks every sizing input goes through.

Bad input is refused loudly and by name, for scalars and arrays alike: a sweep
over parameter counts with one negative entry is a caller's mistake, not a
"does not fit" answer. "Does not fit" is reserved for valid inputs that no
layout can hold (see ``fit.py``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from costmodel.inputs import InputError
from costmodel.inputs import numeric_fields


class SizingInputError(InputError):
    """A sizing input that is out of range or inconsistent; ``path`` names the field."""


def check_range(
    path: str,
    value: Any,
    *,
    low: float = -math.inf,
    high: float = math.inf,
    low_open: bool = False,
    high_open: bool = False,
    nan_allowed: bool = False,
    inf_allowed: bool = False,
) -> None:
    """Raise `SizingInputError` naming ``path`` unless every element of ``value`` is in range.

    NaN is accepted only when ``nan_allowed`` (an optional figure left unset)
    and +inf only when ``inf_allowed`` (a limit that is not set), as in
    `costmodel.inputs.numeric`.
    """
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        message = f"must be a number or an array of numbers; got {value!r}"
        raise SizingInputError(path, message) from exc
    checked = array[~np.isnan(array)] if nan_allowed else array
    if np.any(np.isneginf(checked) if inf_allowed else np.isinf(checked)):
        raise SizingInputError(path, "must be finite")
    above_low = checked > low if low_open else checked >= low
    below_high = checked < high if high_open else checked <= high
    bad = checked[~(above_low & below_high)]
    if bad.size:
        interval = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
        raise SizingInputError(path, f"must lie in {interval}; got {bad[:3].tolist()}")


def check_whole(path: str, value: Any) -> None:
    """Raise `SizingInputError` naming ``path`` unless every element is a whole number (NaN,
    "not given", passes)."""
    array = np.asarray(value, dtype=np.float64)
    array = array[~np.isnan(array)]
    if np.any(array != np.round(array)):
        raise SizingInputError(path, f"must be a whole number; got {np.unique(array).tolist()[:3]}")


def validate_numeric_fields(obj: Any) -> None:
    """Check each numeric field of an input dataclass against the range in its metadata."""
    for name, value, meta in numeric_fields(obj):
        check_range(
            f"{type(obj).__name__}.{name}",
            value,
            low=meta["low"],
            high=meta["high"],
            low_open=meta["low_open"],
            high_open=meta["high_open"],
            nan_allowed=meta["nan_allowed"],
            inf_allowed=meta.get("inf_allowed", False),
        )
