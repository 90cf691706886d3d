"""Whole counts (systems, instances, racks) and limit checks on floating-point figures.

Ratios such as 56 / 0.7 / 8 come out as 10.000000000000002; rounding that up
would buy a system nobody needs. Counts within ``WHOLE_COUNT_TOLERANCE`` of a
whole number are taken as that number, and a value must pass a limit by more
than that share of it to exceed it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from numpy.typing import NDArray

from costmodel.elementwise import as_float

WHOLE_COUNT_TOLERANCE = 1e-9


def ceil_count(ratio: ArrayLike) -> NDArray[np.float64]:
    """Round a ratio up to a whole count [-], forgiving floating-point noise.

    Examples
    --------
    >>> float(ceil_count(56 / 0.7 / 8))
    10.0
    """
    return np.ceil(as_float(ratio) - WHOLE_COUNT_TOLERANCE)


def floor_count(ratio: ArrayLike) -> NDArray[np.float64]:
    """Round a ratio down to a whole count [-], forgiving floating-point noise.

    Examples
    --------
    >>> float(floor_count(40.8 / 10.2))
    4.0
    """
    return np.floor(as_float(ratio) + WHOLE_COUNT_TOLERANCE)


def whole(value: ArrayLike) -> NDArray[np.float64]:
    """Round a count of months or units to the nearest whole number [-]."""
    return np.rint(as_float(value))


def exceeds(value: ArrayLike, limit: ArrayLike) -> np.bool_ | NDArray[np.bool_]:
    """Whether a value is above a limit by more than floating-point noise.

    4 systems of 10.2 kW in a 40.8 kW rack sit at the limit, not above it.

    Examples
    --------
    >>> bool(exceeds(4 * 10.2, 40.8)), bool(exceeds(41.0, 40.8))
    (False, True)
    """
    limit_value = as_float(limit)
    return as_float(value) > limit_value + WHOLE_COUNT_TOLERANCE * np.abs(limit_value)
