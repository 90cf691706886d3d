"""The month axis: writing compactly described cost lines into monthly arrays.

Conventions used by every cash-flow line:

* Arrays have months on the LAST axis, batch axes in front; index 0 is month 0
  (up-front payments), index m in 1..H is operating month m.
* A price that moves by ``growth_per_year`` applies factor (1 + g) ** year in
  month m, where year = (m - 1) // 12 for prices that reset every month, and
  the year in which the current term started for prices locked over a term.
* Writers add into an existing array in place, so one total can be built
  without materialising every line (``evaluate(detail=False)``). Lines that are
  constant within a year are added block by block, which broadcasts a
  batch-shaped value over a slice instead of allocating another (N, H) array.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from numpy.typing import NDArray

from costmodel.elementwise import as_float
from costmodel.elementwise import where
from costmodel.inputs import Numeric

MONTHS_PER_YEAR = 12
# Up to this many scenarios a running total over months is one np.cumsum, not a loop over months.
NARROW_BATCH = 64


class Payments(NamedTuple):
    """One amount paid on a regular calendar: the form every cost line is declared in.

    Paid in months ``first_month``, ``first_month + every_months``, ... up to
    ``last_month`` (and the scenario's horizon). The amount is at year-0 prices
    and moves by ``growth_per_year`` with the price year of the term (of
    ``price_lock_months``) the payment falls in, counted from ``first_month``
    (see ``price_year``). Fields are floats or batch-shaped arrays.

    The NumPy writers and the compiled kernel (``costmodel.kernel``) both read
    this one description, so a cost line declared with ``once``, ``recurring``
    or ``each_term`` is costed the same way by both. A named tuple, as ``Line``: one
    evaluation declares dozens of them, and a frozen dataclass takes three times as long to build.
    """

    kind: str  # "once", "recurring" or "each_term": which NumPy writer adds it
    usd: Numeric
    first_month: Numeric
    every_months: Numeric
    last_month: Numeric
    growth_per_year: Numeric = 0.0
    price_lock_months: Numeric = 1.0

    @property
    def is_flat(self) -> bool:
        """The same amount in every operating month of every scenario's horizon."""
        return self.kind == "recurring" and all(
            np.ndim(value) == 0 and float(value) == expected
            for value, expected in (
                (self.last_month, math.inf),
                (self.growth_per_year, 0.0),
            )
        )

    def write(self, out: NDArray[np.float64]) -> None:
        """Add the payments into a monthly array in place."""
        if self.kind == "once":
            add_once(out, self.usd, self.first_month)
        elif self.kind == "recurring":
            add_recurring(
                out,
                self.usd,
                growth_per_year=self.growth_per_year,
                price_lock_months=self.price_lock_months,
                last_month=self.last_month,
            )
        else:
            horizon = np.asarray(self.last_month, dtype=np.float64) + 1.0
            add_each_term(
                out, self.usd, self.every_months, horizon_months=horizon, growth_per_year=self.growth_per_year
            )


def once(usd: Numeric, month: Numeric) -> Payments:
    """A one-off amount at ``month`` (0..H) [USD] (see ``add_once``)."""
    return Payments("once", usd, month, 1.0, month)


def recurring(
    usd_per_month: Numeric,
    *,
    growth_per_year: Numeric = 0.0,
    price_lock_months: Numeric = 1.0,
    last_month: Numeric = math.inf,
) -> Payments:
    """An amount in operating months 1..last_month [USD/month] (see ``add_recurring``)."""
    return Payments("recurring", usd_per_month, 1.0, 1.0, last_month, growth_per_year, price_lock_months)


def each_term(
    usd: Numeric, term_months: Numeric, *, horizon_months: Numeric, growth_per_year: Numeric = 0.0
) -> Payments:
    """An amount at the start of every term, months 0, T, 2T, ... < horizon [USD] (see ``add_each_term``)."""
    last = as_float(horizon_months) - 1.0
    return Payments("each_term", usd, 0.0, term_months, last, growth_per_year)


class Line(NamedTuple):
    """A named cost line: the payments it is made of."""

    name: str
    payments: tuple[Payments, ...]

    def write(self, out: NDArray[np.float64]) -> None:
        """Add the line into a monthly array in place."""
        for payment in self.payments:
            payment.write(out)


def flat_line(name: str, usd_per_month: Numeric) -> Line:
    """A line paying the same amount in every operating month [USD/month]."""
    return Line(name, (recurring(as_float(usd_per_month)),))


def add_lines(out: NDArray[np.float64], lines: Sequence[Line]) -> None:
    """Add several lines into one monthly array in place, the flat payments summed first.

    Each pass over a (batch x months) array costs as much as the whole
    per-scenario arithmetic, so the flat payments share one.
    """
    payments = [payment for line in lines for payment in line.payments]
    flat = [payment.usd for payment in payments if payment.is_flat]
    if flat:
        add_recurring(out, sum(flat))
    for payment in payments:
        if not payment.is_flat:
            payment.write(out)


def _column(value: ArrayLike) -> NDArray[np.float64]:
    """A batch-shaped value as a column that broadcasts along the month axis."""
    return np.asarray(value, dtype=np.float64)[..., np.newaxis]


def price_year(months: ArrayLike, price_lock_months: ArrayLike = 1.0) -> NDArray[np.float64]:
    """Year index [-] whose price applies in operating month m >= 1.

    Parameters
    ----------
    months : numeric
        Operating month numbers (1-based) [month].
    price_lock_months : numeric
        Length of the term over which the price is locked [month]; 1 means the
        price follows the calendar year.

    Examples
    --------
    >>> price_year([1, 12, 13, 25]).tolist()
    [0.0, 0.0, 1.0, 2.0]
    >>> price_year([13, 36, 37], 36).tolist()  # a 3-year term keeps year-0 prices
    [0.0, 0.0, 3.0]
    """
    months = np.asarray(months, dtype=np.float64)
    lock = np.asarray(price_lock_months, dtype=np.float64)
    term_start = lock * np.floor_divide(months - 1.0, lock)
    return np.floor_divide(term_start, MONTHS_PER_YEAR)


def price_factor_sum(growth_per_year: ArrayLike, months: ArrayLike) -> NDArray[np.float64]:
    """Sum of (1 + g) ** price_year(m) over operating months 1..months [month].

    The total of a recurring line with a calendar-year price change is its
    first-year monthly amount times this sum.

    Examples
    --------
    >>> float(price_factor_sum(0.0, 30))
    30.0
    >>> float(price_factor_sum(0.1, 18))  # 12 x 1 + 6 x 1.1
    18.6
    """
    growth = as_float(growth_per_year)
    full_years, remainder = divmod(as_float(months), MONTHS_PER_YEAR)
    safe_growth = where(growth == 0.0, 1.0, growth)
    # sum of (1 + g) ** y for y < Y = ((1 + g) ** Y - 1) / g; expm1/log1p keep it exact for tiny g.
    growth_over_years = np.expm1(full_years * np.log1p(growth))
    geometric = where(growth == 0.0, full_years, growth_over_years / safe_growth)
    return MONTHS_PER_YEAR * geometric + remainder * (1.0 + growth_over_years)


def add_recurring(
    out: NDArray[np.float64],
    usd_per_month: Numeric,
    *,
    growth_per_year: Numeric = 0.0,
    price_lock_months: Numeric = 1.0,
    last_month: Numeric = math.inf,
) -> None:
    """Add a monthly amount to operating months 1..last_month of ``out`` in place.

    Parameters
    ----------
    out : ndarray, shape (..., H + 1)
        Monthly cash flows [USD]; months 1..last_month gain the amount.
    usd_per_month : numeric
        Amount in the first price year [USD/month].
    growth_per_year : numeric
        Yearly price change, e.g. -0.1 for prices falling 10 % a year [1/year].
    price_lock_months : numeric
        Months over which the price is locked (see ``price_year``) [month].
    last_month : numeric
        Last month that carries the amount; months beyond the array are ignored [month].

    Examples
    --------
    A DGX H100 drawing 10.2 kW all year at $0.10/kWh (PUE 1), 730 h a month:

    >>> out = np.zeros(13)
    >>> add_recurring(out, 10.2 * 730 * 0.10)
    >>> round(float(out.sum()), 2)
    8935.2
    """
    n_months = out.shape[-1] - 1
    usd = _column(usd_per_month)
    if not usd.any():
        return  # a pass over (batch x months) for nothing
    scalar_schedule = all(np.ndim(x) == 0 for x in (growth_per_year, price_lock_months, last_month))
    if not scalar_schedule:
        months = np.arange(1, n_months + 1, dtype=np.float64)
        years = price_year(months, _column(price_lock_months))
        factor = (1.0 + _column(growth_per_year)) ** years
        out[..., 1:] += np.where(months <= _column(last_month), usd * factor, 0.0)
        return
    last = int(min(n_months, float(last_month)))
    if last < 1:
        return
    if float(growth_per_year) == 0.0:
        out[..., 1 : last + 1] += usd
        return
    years = price_year(np.arange(1, last + 1), price_lock_months)
    block_starts = np.flatnonzero(np.r_[True, years[1:] != years[:-1]])
    block_ends = np.r_[block_starts[1:], last]
    for start, end in zip(block_starts, block_ends, strict=True):
        factor = (1.0 + float(growth_per_year)) ** years[start]
        out[..., 1 + start : 1 + end] += usd * factor


def add_once(out: NDArray[np.float64], usd: Numeric, month: Numeric) -> None:
    """Add a one-off amount at ``month`` (one month, or one per scenario) in place.

    Parameters
    ----------
    out : ndarray, shape (..., H + 1)
        Monthly cash flows [USD]; ``month`` gains the amount.
    usd : numeric
        Amount [USD].
    month : numeric
        Month index 0..H [month]; months outside the array are ignored.

    Examples
    --------
    >>> out = np.zeros(4)
    >>> add_once(out, 100.0, 0)
    >>> out.tolist()
    [100.0, 0.0, 0.0, 0.0]
    """
    if np.ndim(month) == 0:
        if 0 <= int(month) < out.shape[-1]:
            out[..., int(month)] += np.asarray(usd, dtype=np.float64)
        return
    months = np.arange(out.shape[-1])
    np.add(out, _column(usd), out=out, where=months == _column(month))


def add_each_term(
    out: NDArray[np.float64],
    usd: Numeric,
    term_months: Numeric,
    *,
    horizon_months: Numeric,
    growth_per_year: Numeric = 0.0,
) -> None:
    """Add an amount at the start of every term (months 0, T, 2T, ... < horizon) in place.

    Parameters
    ----------
    out : ndarray, shape (..., H + 1)
        Monthly cash flows [USD]; the first month of each term gains the amount.
    usd : numeric
        Amount paid at the start of each term, at year-0 prices [USD].
    term_months : numeric
        Term length T [month].
    horizon_months : numeric
        Horizon H; a term starting at or after H is not entered [month].
    growth_per_year : numeric
        Yearly price change applied to the year the term starts in [1/year].

    Examples
    --------
    A 12-month term with $1,000 up front, over 30 months:

    >>> out = np.zeros(31)
    >>> add_each_term(out, 1000.0, 12, horizon_months=30)
    >>> np.flatnonzero(out).tolist()
    [0, 12, 24]
    """
    months = np.arange(out.shape[-1])
    scalar_schedule = all(np.ndim(x) == 0 for x in (term_months, horizon_months, growth_per_year))
    if scalar_schedule:
        ratio = 1.0 + float(growth_per_year)
        stop = min(int(horizon_months), out.shape[-1])
        for month in range(0, stop, int(term_months)):
            out[..., month] += np.asarray(usd, dtype=np.float64) * ratio ** (month // MONTHS_PER_YEAR)
        return
    starts_term = (months % _column(term_months) == 0) & (months < _column(horizon_months))
    factor = (1.0 + _column(growth_per_year)) ** (months // MONTHS_PER_YEAR)
    np.add(out, _column(usd) * factor, out=out, where=starts_term)


def clear_after(out: NDArray[np.float64], horizon_months: Numeric) -> None:
    """Zero the months after each scenario's horizon in place.

    A batch whose horizons differ shares one month axis as long as the longest
    horizon; the shorter scenarios carry zeros after their own horizon.
    """
    n_months = out.shape[-1] - 1
    if np.ndim(horizon_months) == 0:
        out[..., int(horizon_months) + 1 :] = 0.0
        return
    horizon = np.asarray(horizon_months)
    if np.all(horizon >= n_months):
        return
    np.copyto(out, 0.0, where=np.arange(n_months + 1) > _column(horizon))


def running_total_months_first(by_month: NDArray[np.float64]) -> None:
    """Cumulative sum over months in place, for a (months, scenarios) array.

    Adding each contiguous month row to the next is about ten times faster than
    ``np.cumsum(axis=0)`` on a (121, 100,000) array; for a few scenarios (one
    evaluation) the loop's per-month overhead dominates and ``np.cumsum``, which
    adds in the same order, is the faster.

    Examples
    --------
    >>> flows = np.array([[-1000.0], [300.0], [300.0]])
    >>> running_total_months_first(flows)
    >>> flows.ravel().tolist()
    [-1000.0, -700.0, -400.0]
    """
    if by_month.ndim == 2 and by_month.shape[1] <= NARROW_BATCH:
        np.cumsum(by_month, axis=0, out=by_month)
        return
    for month in range(1, by_month.shape[0]):
        by_month[month] += by_month[month - 1]
