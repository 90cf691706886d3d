"""Compiled monthly loop for sweeps: totals, NPVs and breakeven months without monthly arrays.

The NumPy path (``costmodel.compose``) writes every cost line into (batch x
months) arrays; with a few dozen passes over arrays far larger than the CPU
caches, memory traffic and temporaries bound it. This kernel walks one
scenario at a time through its months in a buffer of (options + 1) x (H + 1)
floats that stays in L1 cache, and keeps only per-scenario figures. It reads
the lines' ``Payments`` calendars (``costmodel.timeline``), the same
description the NumPy writers read, so a new cost line needs no change here.
The NumPy path stays the reference: the kernel is tested against it, and
against the month-by-month model, on every numeric input
(costmodel/tests/test_kernel_agreement.py).

Numba compiles the loop on first use (a few seconds) and caches the machine code
beside this file, or under ``NUMBA_CACHE_DIR`` where that is not writable, so
later processes load it in well under a second.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from typing import ParamSpec
from typing import TypeVar
from typing import cast

import numba
import numpy as np
from numpy.typing import NDArray

from costmodel.inputs import Numeric
from costmodel.timeline import MONTHS_PER_YEAR
from costmodel.timeline import Line
from costmodel.timeline import Payments

# Columns of the packed calendar array: the fields of ``Payments`` after its kind, in its order.
_CALENDAR_FIELDS = Payments._fields[1:]

_P = ParamSpec("_P")
_R = TypeVar("_R")


@dataclass(frozen=True)
class SideFigures:
    """What the kernel keeps of one side (buying, or one rent option), batch-shaped."""

    total_usd: Numeric  # a NumPy float for one scenario, as each figure
    npv_usd: Numeric
    gross_usd: Numeric  # sum of |monthly flow|; read for buying only
    breakeven_month: Numeric  # NaN = never; computed for rent options only


def walk_months(
    shape: tuple[int, ...],
    n_months: int,
    horizon_months: NDArray[np.float64],
    discount_rate_per_year: Numeric,
    sides: Sequence[Sequence[Line]],
    breakeven_tolerance_share: float,
) -> list[SideFigures]:
    """Totals, NPVs and breakeven months of each side, buying first.

    Parameters
    ----------
    shape : tuple of int
        Batch shape.
    n_months : int
        Longest horizon H in the batch [month].
    horizon_months, discount_rate_per_year : numeric
        Per scenario (broadcasting to ``shape``) [month], [1/year].
    sides : sequence of sequences of Line
        The buy lines, then each rent option's lines.
    breakeven_tolerance_share : float
        Shortfall counted as breaking even, as a share of buying's gross flows
        plus the option's total [-].
    """
    size = math.prod(shape)
    calendars, owner = _pack(sides, shape, size)
    out = np.empty((len(sides), 4, size))
    _walk(
        calendars,
        owner,
        len(sides),
        _flat(horizon_months, shape),
        _flat(np.log1p(discount_rate_per_year), shape),
        n_months,
        breakeven_tolerance_share,
        out,
    )
    if not shape:  # one scenario's figures as numbers
        return [SideFigures(*side[:, 0]) for side in out]
    return [SideFigures(*(figure.reshape(shape) for figure in side)) for side in out]


def _flat(value: object, shape: tuple[int, ...]) -> NDArray[np.float64]:
    # Always a fresh, writable array: Numba compiles (or loads from its cache) one version of
    # the kernel per argument type, read-only views included, so every call takes the one that
    # a worker's warm-up loaded (a sweep chunk paid ~60-120 ms CPU loading a second one).
    if not shape:
        return np.array([value], dtype=np.float64)
    return np.array(np.broadcast_to(np.asarray(value, dtype=np.float64), shape)).reshape(-1)


def _pack(
    sides: Sequence[Sequence[Line]], shape: tuple[int, ...], size: int
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Calendars as one (scenarios, payments, fields) array and the side each payment belongs to.

    Scenario-major, so the kernel reads each scenario's calendars from one
    contiguous block. In a batch, payments of one side whose calendar is the same
    for every scenario (capex at month 0, the flat opex lines) share a row, their
    amounts summed, and payments that are zero everywhere are left out; one
    scenario's calendars go in as they are, in one array call (the kernel skips
    zero amounts).
    """
    if not shape:
        owned = [(side, payment) for side, lines in enumerate(sides)
                 for line in lines for payment in line.payments]
        calendars = np.array([payment[1:] for _, payment in owned], dtype=np.float64)
        return calendars.reshape(1, len(owned), len(_CALENDAR_FIELDS)), np.array(
            [side for side, _ in owned], dtype=np.int64
        )
    rows: dict[tuple[object, ...], list[Any]] = {}  # [amount summed (an array), *its calendar]
    for side, lines in enumerate(sides):
        for payment in (payment for line in lines for payment in line.payments):
            calendar = [getattr(payment, name) for name in _CALENDAR_FIELDS[1:]]
            shared = all(type(value) is float or np.ndim(value) == 0 for value in calendar)
            key = (side, *map(float, calendar)) if shared else (side, id(payment))
            if key in rows:
                rows[key][0] = rows[key][0] + np.asarray(payment.usd, dtype=np.float64)
            else:
                rows[key] = [np.asarray(payment.usd, dtype=np.float64), *calendar]
    kept = [(key[0], fields) for key, fields in rows.items() if fields[0].any()]
    calendars = np.empty(shape + (len(kept), len(_CALENDAR_FIELDS)))
    for row, (_, fields) in enumerate(kept):
        for column, value in enumerate(fields):
            calendars[..., row, column] = value
    return calendars.reshape(size, len(kept), len(_CALENDAR_FIELDS)), np.array(
        [side for side, _ in kept], dtype=np.int64
    )


def _compiled(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """``numba.njit`` as the engine compiles: cached, without the GIL. Numba has no type hints;
    the compiled function takes and returns what the Python one does, which the cast says."""
    return cast(Callable[_P, _R], numba.njit(cache=True, nogil=True)(function))


@_compiled
def _walk(
    calendars: NDArray[np.float64],
    owner: NDArray[np.int64],
    n_sides: int,
    horizon: NDArray[np.float64],
    log_discount: NDArray[np.float64],
    n_months: int,
    tolerance_share: float,
    out: NDArray[np.float64],
) -> None:
    """The monthly loop; the same arithmetic, month by month, as the NumPy writers and ``finance``."""
    flows = np.zeros((n_sides, n_months + 1))
    factors = np.empty(n_months + 1)
    within_year = np.empty(MONTHS_PER_YEAR)
    factors_for, year_factor = np.nan, 1.0
    for scenario in range(horizon.shape[0]):
        last_month = int(horizon[scenario])
        if log_discount[scenario] != factors_for:
            factors_for = log_discount[scenario]
            # exp(-(m / 12) ln(1 + r)) as a year's factor times a month's: 23 exps instead of H + 1,
            # within a few ulp of the NumPy path's.
            for month in range(MONTHS_PER_YEAR):
                within_year[month] = math.exp(-(month / MONTHS_PER_YEAR) * factors_for)
            for month in range(n_months + 1):
                year, month_of_year = divmod(month, MONTHS_PER_YEAR)
                if month_of_year == 0:
                    year_factor = math.exp(-year * factors_for)
                factors[month] = year_factor * within_year[month_of_year]
        flows[:, : last_month + 1] = 0.0
        for row in range(calendars.shape[1]):
            usd, first, every, last, growth, lock = calendars[scenario, row]
            if usd == 0.0:
                continue
            side = owner[row]
            step, term = int(every), int(lock)
            month, stop = int(first), int(min(last, last_month))
            if growth == 0.0:
                for paid in range(month, stop + 1, step):
                    flows[side, paid] += usd
                continue
            # The price year is that of the term (of ``lock`` months from ``first``) a payment falls in.
            since_first, term_start, year, factor = 0, 0, 0, 1.0
            for paid in range(month, stop + 1, step):
                while since_first >= term_start + term:
                    term_start += term
                if term_start >= MONTHS_PER_YEAR * (year + 1):
                    year = term_start // MONTHS_PER_YEAR
                    factor = (1.0 + growth) ** float(year)  # a float power, as NumPy's
                flows[side, paid] += usd * factor
                since_first += step
        buy_gross = 0.0
        for side in range(n_sides):
            total, npv, gross = 0.0, 0.0, 0.0
            for month in range(last_month + 1):
                flow = flows[side, month]
                total += flow
                npv += flow * factors[month]
                gross += abs(flow)
            if side == 0:
                buy_gross = gross
            tolerance = tolerance_share * (buy_gross + total)
            breakeven, saving = np.nan, 0.0
            for month in range(last_month + 1 if side > 0 else 0):
                saving += flows[side, month] - flows[0, month]
                if month >= 1 and saving >= -tolerance:
                    breakeven = float(month)
                    break
            out[side, 0, scenario] = total
            out[side, 1, scenario] = npv
            out[side, 2, scenario] = gross
            out[side, 3, scenario] = breakeven
