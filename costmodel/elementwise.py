"""Element-wise NumPy functions that keep one scenario's figures as numbers.

Every engine figure is a batch's array or, for one scenario, a single number. NumPy's
functions turn a number into a 0-d array and back at about a microsecond a call, where the
arithmetic itself takes a few dozen nanoseconds; one scenario's evaluation makes hundreds of
such calls. These take the number's way for numbers (``np.float64``, which keeps NumPy's
semantics: a division by zero gives inf or NaN, not an exception) and NumPy's for arrays, so
one code path serves a single scenario and a batch alike.
"""

from __future__ import annotations

import math
from typing import Any
from typing import TypeGuard

import numpy as np
from numpy.typing import ArrayLike
from numpy.typing import NDArray

# What a single scenario's figure is at run time; ``is_number`` narrows a figure to it.
Number = float | np.integer[Any] | np.bool_
# An engine figure: one scenario's number, a NumPy float (so that a division by zero gives inf
# or NaN, not an exception), or a batch's array.
Figure = np.float64 | NDArray[np.float64]

# What a single scenario's figures are: Python numbers, NumPy scalars (np.float64 is a float).
_NUMBERS = (float, int, np.bool_, np.integer)


def is_number(value: object) -> TypeGuard[Number]:
    """Whether a figure is one number (of one scenario) rather than an array."""
    return isinstance(value, _NUMBERS)


def as_float(value: ArrayLike) -> Figure:
    """``np.asarray(value, dtype=np.float64)``, a number staying a (NumPy) number.

    >>> as_float(3), as_float([1, 2]).tolist()
    (np.float64(3.0), [1.0, 2.0])
    """
    if type(value) is np.float64:
        return value
    if isinstance(value, _NUMBERS):
        return np.float64(value)
    return np.asarray(value, dtype=np.float64)


def zeros_like(value: ArrayLike) -> Figure:
    """``np.zeros_like`` in floats; a zero for a number."""
    return np.float64(0.0) if is_number(value) else np.zeros(np.shape(value))


def where(condition: ArrayLike, if_true: ArrayLike, if_false: ArrayLike) -> Figure:
    """``np.where`` for float figures; with all three numbers, the number chosen.

    >>> where(True, 1.0, 2.0), where(np.array([True, False]), 1.0, 2.0).tolist()
    (np.float64(1.0), [1.0, 2.0])
    """
    if isinstance(condition, (bool, np.bool_)) and is_number(if_true) and is_number(if_false):
        return np.float64(if_true if condition else if_false)
    return np.where(condition, if_true, if_false)


def isnan(value: ArrayLike) -> bool | NDArray[np.bool_]:
    """``np.isnan``; a plain bool for a number."""
    if isinstance(value, float):
        return math.isnan(value)
    return np.isnan(value)


def isinf(value: ArrayLike) -> bool | NDArray[np.bool_]:
    """``np.isinf``; a plain bool for a number."""
    if isinstance(value, float):
        return math.isinf(value)
    return np.isinf(value)


def minimum(first: ArrayLike, second: ArrayLike) -> Figure:
    """``np.minimum`` (NaN wins); a number for two numbers."""
    if is_number(first) and is_number(second):
        return np.float64(math.nan if first != first or second != second else min(first, second))
    return np.minimum(first, second)


def maximum(first: ArrayLike, second: ArrayLike) -> Figure:
    """``np.maximum`` (NaN wins); a number for two numbers."""
    if is_number(first) and is_number(second):
        return np.float64(math.nan if first != first or second != second else max(first, second))
    return np.maximum(first, second)


def clip(value: ArrayLike, low: float, high: float) -> Figure:
    """``np.clip`` to [low, high]; a number for a number.

    >>> clip(1.5, 0.0, 1.0), clip(-0.5, 0.0, 1.0)
    (np.float64(1.0), np.float64(0.0))
    """
    return minimum(maximum(value, low), high)


def any_true(condition: ArrayLike) -> bool:
    """Whether any element holds (``np.any``)."""
    if isinstance(condition, (bool, np.bool_)):
        return bool(condition)
    return bool(np.any(condition))


def divide_where(
    condition: ArrayLike, numerator: ArrayLike, denominator: ArrayLike, otherwise: float
) -> Figure:
    """``numerator / denominator`` where ``condition`` holds (which must rule out a zero
    denominator), else ``otherwise``; an overflow gives inf without a warning.

    >>> divide_where(True, 1.0, 4.0, np.nan), divide_where(np.array([True, False]), 1.0, 0.0, -1.0).tolist()
    (np.float64(0.25), [inf, -1.0])
    """
    if isinstance(condition, (bool, np.bool_)) and is_number(numerator) and is_number(denominator):
        # Python's float division overflows to inf silently, as NumPy's under the errstate below.
        return np.float64(float(numerator) / float(denominator) if condition else otherwise)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.where(condition, np.divide(numerator, np.where(condition, denominator, 1.0)), otherwise)
