"""Discounting, NPV, IRR, breakevens and loan payments over monthly cash flows.

Cash-flow arrays have months on the last axis unless a ``months_axis`` says
otherwise; index 0 is month 0 (paid now, undiscounted, as in
``numpy_financial.npv``), index m is the end of month m.
Yearly rates convert to monthly ones by compounding:
(1 + rate_per_year) ** (1 / 12) - 1. Loan rates are nominal: rate / 12.
"""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import ArrayLike
from numpy.typing import NDArray

from costmodel.elementwise import Figure
from costmodel.elementwise import as_float
from costmodel.elementwise import divide_where
from costmodel.elementwise import maximum
from costmodel.elementwise import where
from costmodel.inputs import Numeric
from costmodel.timeline import MONTHS_PER_YEAR

IRR_MAX_RATE_PER_MONTH = 10.0
# x = 1 / (1 + rate) raised to the horizon must stay far from float overflow.
IRR_MAX_LOG10_DISCOUNT = 250.0
IRR_GRID_POINTS_PER_SIDE = 40
IRR_MAX_ITERATIONS = 100
# Newton stops when a step moves the monthly rate by less than this, relative.
IRR_TOLERANCE = 1e-12
# Halvings that narrow a grid cell (at most 10 wide) to float precision.
IRR_BISECTIONS = 80
# Up to this many scenarios, NPVs are summed over an array of powers instead of by Horner's rule.
IRR_NARROW_BATCH = 64


def monthly_rate(rate_per_year: ArrayLike) -> NDArray[np.float64]:
    """Monthly rate that compounds to a yearly rate [1/month].

    Examples
    --------
    >>> round(float(monthly_rate(0.12682503013196977)), 12)
    0.01
    """
    return (1.0 + np.asarray(rate_per_year, dtype=np.float64)) ** (1.0 / MONTHS_PER_YEAR) - 1.0


def yearly_rate(rate_per_month: ArrayLike) -> NDArray[np.float64]:
    """Yearly rate that a monthly rate compounds to [1/year].

    Examples
    --------
    >>> round(float(yearly_rate(0.01)), 6)
    0.126825
    """
    return (1.0 + np.asarray(rate_per_month, dtype=np.float64)) ** MONTHS_PER_YEAR - 1.0


def discount_factors(discount_rate_per_year: ArrayLike, n_months: int) -> NDArray[np.float64]:
    """Present value of 1 USD paid at months 0..n_months [-], months on the last axis.

    Examples
    --------
    >>> np.round(discount_factors(0.21, 24)[[0, 12, 24]], 6).tolist()
    [1.0, 0.826446, 0.683013]
    """
    log_growth_per_year = np.log1p(np.asarray(discount_rate_per_year, dtype=np.float64))[..., np.newaxis]
    years = np.arange(n_months + 1) / MONTHS_PER_YEAR
    # exp of a product is several times cheaper than a power over (batch x months).
    return np.exp(-years * log_growth_per_year)


def present_value_usd(
    cash_flows_usd: NDArray[np.float64], factors: NDArray[np.float64]
) -> Figure:
    """Sum of monthly flows weighted by discount factors [USD] (see ``discount_factors``).

    Lets a batch compute its (batch x months) factors once for several options.
    """
    present_value: Figure  # a number for one scenario's flows; the stubs type both as Any
    if factors.ndim == 1:
        present_value = cash_flows_usd @ factors
    else:
        present_value = np.einsum("...t,...t->...", cash_flows_usd, factors)
    return present_value


def npv_usd(cash_flows_usd: NDArray[np.float64], discount_rate_per_year: ArrayLike) -> Figure:
    """Net present value of monthly cash flows [USD], month 0 undiscounted.

    Equals ``numpy_financial.npv(monthly_rate(rate), flows)`` for each scenario.

    Parameters
    ----------
    cash_flows_usd : ndarray, shape (..., H + 1)
        Monthly flows [USD]; the sign is kept (costs positive give the present
        value of costs).
    discount_rate_per_year : numeric
        Cost of capital [1/year].

    Examples
    --------
    110 a year later at 10 % a year is worth the 100 paid today (within rounding, whose last
    digit and sign depend on the CPU's summation order):

    >>> bool(abs(npv_usd(np.array([-100.0] + [0.0] * 11 + [110.0]), 0.10)) < 1e-9)
    True
    """
    # + 0.0 turns an exact -0.0 into +0.0, so a zero NPV prints the same on every CPU.
    return present_value_usd(
        cash_flows_usd, discount_factors(discount_rate_per_year, cash_flows_usd.shape[-1] - 1)
    ) + 0.0


def breakeven_month(
    cumulative_saving_usd: NDArray[np.float64], tolerance_usd: ArrayLike = 0.0, *, months_axis: int = -1
) -> NDArray[np.float64]:
    """First month m >= 1 whose cumulative saving of buying is >= 0; NaN = never [month].

    Parameters
    ----------
    cumulative_saving_usd : ndarray
        Cumulative rent cost minus cumulative buy cost, month 0 included [USD].
    tolerance_usd : numeric
        Shortfall still counted as breaking even (floating-point noise) [USD].
    months_axis : int
        Axis holding months 0..H (the engine passes 0 for its months-first arrays).

    Examples
    --------
    Capex 1,000, then buying saves 300 a month: ceil(1000 / 300) = 4.

    >>> float(breakeven_month(np.cumsum([-1000.0, 300, 300, 300, 300, 300])))
    4.0
    >>> float(breakeven_month(np.cumsum([-1000.0, -1, -1])))
    nan
    """
    by_month = np.moveaxis(np.asarray(cumulative_saving_usd, dtype=np.float64), months_axis, 0)
    reached = by_month[1:] >= -np.asarray(tolerance_usd, dtype=np.float64)
    return np.where(reached.any(axis=0), reached.argmax(axis=0) + 1.0, np.nan)


def breakeven_utilisation(
    saving_usd: ArrayLike, saving_slope_usd: ArrayLike, utilisation: ArrayLike
) -> Figure:
    """Utilisation at which buying and renting cost the same over the horizon [-].

    Both totals are linear in utilisation, so the saving is too:
    saving(u) = saving + slope x (u - utilisation). NaN where the lines are
    parallel or cross outside [0, 1].

    Parameters
    ----------
    saving_usd : numeric
        Total rent minus total buy at the scenario's utilisation [USD].
    saving_slope_usd : numeric
        Change of that saving per unit of utilisation [USD].
    utilisation : numeric
        The scenario's utilisation [-].

    Examples
    --------
    >>> round(float(breakeven_utilisation(500.0, 1000.0, 0.8)), 12)
    0.3
    >>> float(breakeven_utilisation(500.0, 0.0, 0.8))
    nan
    """
    slope = as_float(saving_slope_usd)
    crossing = as_float(utilisation) - divide_where(slope != 0.0, as_float(saving_usd), slope, 0.0)
    inside = (slope != 0.0) & (crossing >= 0.0) & (crossing <= 1.0)
    return where(inside, crossing, np.nan)


def loan_payment_usd_per_month(
    principal_usd: ArrayLike, loan_rate_per_year: ArrayLike, loan_term_months: ArrayLike
) -> Figure:
    """Level monthly payment that repays a loan over its term [USD/month].

    Same as ``-numpy_financial.pmt(rate / 12, term, principal)``; a zero rate
    repays principal / term.

    Examples
    --------
    >>> round(float(loan_payment_usd_per_month(100_000.0, 0.06, 36)), 2)
    3042.19
    """
    principal = as_float(principal_usd)
    rate = as_float(loan_rate_per_year) / MONTHS_PER_YEAR
    term = maximum(as_float(loan_term_months), 1.0)
    safe_rate = where(rate == 0.0, 1.0, rate)
    # expm1/log1p keep 1 - (1 + r) ** -n accurate for tiny rates.
    annuity = principal * safe_rate / -np.expm1(-term * np.log1p(safe_rate))
    return where(rate == 0.0, principal / term, annuity)


def loan_balance_usd(
    principal_usd: ArrayLike,
    loan_rate_per_year: ArrayLike,
    payment_usd_per_month: Numeric,
    months_paid: ArrayLike,
) -> Figure:
    """Principal still owed after a number of level payments [USD].

    Examples
    --------
    >>> payment = loan_payment_usd_per_month(100_000.0, 0.06, 36)
    >>> abs(round(float(loan_balance_usd(100_000.0, 0.06, payment, 36)), 6))
    0.0
    """
    principal = as_float(principal_usd)
    rate = as_float(loan_rate_per_year) / MONTHS_PER_YEAR
    months = as_float(months_paid)
    safe_rate = where(rate == 0.0, 1.0, rate)
    growth_minus_one = np.expm1(months * np.log1p(safe_rate))
    compounding = principal * (1.0 + growth_minus_one) - payment_usd_per_month * growth_minus_one / safe_rate
    return where(rate == 0.0, principal - payment_usd_per_month * months, compounding)


def irr_per_month(cash_flows_usd: NDArray[np.float64], *, months_axis: int = -1) -> NDArray[np.float64]:
    """Internal rate of return of monthly cash flows, one per scenario [1/month].

    Where several rates give NPV 0, the one closest to zero is returned, as
    ``numpy_financial.irr`` does; NaN where none exists. Roots are bracketed on
    a grid of monthly rates in [-(1 - 10 ** (-250 / H)), 10] (at most -0.99 below)
    that is dense near 0, then refined by Newton steps kept inside the bracket.
    A cell whose ends have the same sign but whose NPV turns inside it is split at
    the turn, so two roots inside one cell are found too.

    Parameters
    ----------
    cash_flows_usd : ndarray
        Flows with month 0 first, e.g. -capex then monthly savings [USD].
    months_axis : int
        Axis holding months 0..H (the engine passes 0 for its months-first arrays).

    Examples
    --------
    >>> round(float(irr_per_month(np.array([-100.0, 39, 59, 55, 20]))), 5)
    0.28095
    """
    by_month = np.moveaxis(np.asarray(cash_flows_usd, dtype=np.float64), months_axis, 0)
    batch = by_month.shape[1:]
    n_months = by_month.shape[0] - 1
    # Months first and contiguous: Horner's rule then reads one contiguous row per month.
    flows = np.ascontiguousarray(by_month.reshape(n_months + 1, -1))
    grid, powers, slopes = _irr_grid_powers(n_months)
    zero_at = IRR_GRID_POINTS_PER_SIDE
    npv_on_grid = powers @ flows
    positive = npv_on_grid > 0.0
    brackets = (positive[:-1] != positive[1:]) | (npv_on_grid[:-1] == 0.0)
    brackets &= np.any(flows != 0.0, axis=0)
    # The nearest bracket above zero is the first cell at or after the zero point.
    above = brackets[zero_at:]
    best = _refine_root(flows, grid, above.argmax(axis=0) + zero_at, npv_on_grid, above.any(axis=0))

    # Below zero: the last cell before it, refined only where its upper end is
    # closer to zero than the root found above (or none was found).
    below = brackets[:zero_at][::-1]
    cell = zero_at - 1 - below.argmax(axis=0)
    could_be_closer = below.any(axis=0) & ~(np.abs(grid[cell + 1]) >= np.abs(best))
    root = _refine_root(flows, grid, cell, npv_on_grid, could_be_closer)
    closer = could_be_closer & ~(np.abs(root) >= np.abs(best))
    best[closer] = root[closer]
    _roots_at_turns(flows, grid, slopes, npv_on_grid, brackets, best)
    return best.reshape(batch)


def irr_per_year(cash_flows_usd: NDArray[np.float64], *, months_axis: int = -1) -> NDArray[np.float64]:
    """Monthly IRR annualised as (1 + irr) ** 12 - 1 [1/year]; NaN where none exists.

    Examples
    --------
    >>> flows = np.r_[-1000.0, np.full(12, 100.0)]
    >>> round(float(irr_per_year(flows)), 4)
    0.413
    """
    return yearly_rate(irr_per_month(cash_flows_usd, months_axis=months_axis))


@functools.lru_cache(maxsize=16)
def _irr_grid_powers(n_months: int) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """The rate grid and, per grid rate and month, the discount factor and its derivative.

    They depend on the horizon alone; cached (read-only, about 160 kB for 120 months), since
    building them took half of one scenario's IRR.
    """
    grid = _irr_rate_grid(n_months)
    powers = (1.0 + grid)[:, np.newaxis] ** -np.arange(n_months + 1)[np.newaxis, :]
    slopes = -np.arange(n_months + 1) * powers / (1.0 + grid)[:, np.newaxis]
    for array in (grid, powers, slopes):
        array.flags.writeable = False
    return grid, powers, slopes


def _irr_rate_grid(n_months: int) -> NDArray[np.float64]:
    """Monthly rates to bracket IRRs on, ascending, dense near 0 and containing 0."""
    lowest = min(0.99, 1.0 - 10.0 ** (-IRR_MAX_LOG10_DISCOUNT / max(n_months, 1)))
    below = -np.geomspace(lowest, 1e-6, IRR_GRID_POINTS_PER_SIDE)
    above = np.geomspace(1e-6, IRR_MAX_RATE_PER_MONTH, IRR_GRID_POINTS_PER_SIDE)
    return np.concatenate([below, [0.0], above])


def _roots_at_turns(
    flows: NDArray[np.float64],
    grid: NDArray[np.float64],
    slopes: NDArray[np.float64],
    npv_on_grid: NDArray[np.float64],
    brackets: NDArray[np.bool_],  # per cell and column: the NPV's sign differs at the cell's ends
    best: NDArray[np.float64],
) -> None:
    """Update ``best`` with roots of cells whose NPV crosses zero and back between grid points.

    Such a cell has no sign change at its ends but one in the NPV's slope: the NPV at the
    turn (found by bisection on the slope) has the other sign, and the root on the side of
    the turn nearer zero is the candidate.
    """
    slope_on_grid = slopes @ flows
    turning = ~brackets & (np.sign(slope_on_grid[:-1]) * np.sign(slope_on_grid[1:]) < 0)
    for cell in np.flatnonzero(turning.any(axis=1)):
        columns = np.flatnonzero(turning[cell])
        cell_flows = flows[:, columns]
        low = np.full(columns.size, grid[cell])
        high = np.full(columns.size, grid[cell + 1])
        turn = _bisect(cell_flows, low, high, of_slope=True)
        crosses = np.sign(_npv_and_slope(cell_flows, turn)[0]) != np.sign(npv_on_grid[cell, columns])
        root = _bisect(cell_flows, low, turn) if grid[cell] >= 0.0 else _bisect(cell_flows, turn, high)
        closer = crosses & ~(np.abs(root) >= np.abs(best[columns]))
        best[columns[closer]] = root[closer]


def _bisect(
    flows_by_month: NDArray[np.float64],
    low: NDArray[np.float64],
    high: NDArray[np.float64],
    *,
    of_slope: bool = False,
) -> NDArray[np.float64]:
    """Per column, the rate in [low, high] where the NPV (or its slope) changes sign."""
    which = 1 if of_slope else 0
    value_low = _npv_and_slope(flows_by_month, low)[which]
    for _ in range(IRR_BISECTIONS):
        middle = 0.5 * (low + high)
        same_side = np.sign(_npv_and_slope(flows_by_month, middle)[which]) == np.sign(value_low)
        low = np.where(same_side, middle, low)
        high = np.where(same_side, high, middle)
    return 0.5 * (low + high)


def _npv_and_slope(
    flows_by_month: NDArray[np.float64], rate: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """NPV at a per-column rate and its derivative, by Horner's rule in x = 1 / (1 + rate)."""
    x = 1.0 / (1.0 + rate)
    if flows_by_month.shape[1] <= IRR_NARROW_BATCH:
        # One evaluation's few columns: powers of x in a handful of array operations beat
        # a Python loop over the months, whose per-step overhead then dominates.
        months = np.arange(flows_by_month.shape[0], dtype=np.float64)[:, np.newaxis]
        powers = x ** months
        value = np.einsum("mc,mc->c", flows_by_month, powers)
        slope_in_x = np.einsum("mc,mc->c", flows_by_month[1:] * months[1:], powers[:-1])
        return value, -slope_in_x * x * x
    value = flows_by_month[-1].copy()
    slope_in_x = np.zeros_like(value)
    for month_flow in flows_by_month[-2::-1]:
        slope_in_x *= x
        slope_in_x += value
        value *= x
        value += month_flow
    return value, -slope_in_x * x * x


def _refine_root(
    flows_by_month: NDArray[np.float64],
    grid: NDArray[np.float64],
    cell: NDArray[np.intp],
    npv_on_grid: NDArray[np.float64],
    wanted: NDArray[np.bool_],
) -> NDArray[np.float64]:
    """Root of each wanted column's NPV in [grid[cell], grid[cell + 1]]; NaN elsewhere.

    Newton steps, replaced by bisection whenever they would leave the bracket.
    """
    columns = np.arange(flows_by_month.shape[1])
    low, high = grid[cell], grid[cell + 1]
    value_low, value_high = npv_on_grid[cell, columns], npv_on_grid[cell + 1, columns]
    # Start where the chord between the bracket ends crosses zero.
    with np.errstate(divide="ignore", invalid="ignore"):
        chord = low - value_low * (high - low) / (value_high - value_low)
    rate = np.where(np.isfinite(chord) & (chord >= low) & (chord <= high), chord, 0.5 * (low + high))
    root = np.where(wanted, rate, np.nan)
    # Finished columns stay in the working arrays (frozen) until they are half of
    # them: compacting copies (months x columns) and costs more than a few extra columns.
    position = columns
    pending = np.asarray(wanted, dtype=bool).copy()
    for _ in range(IRR_MAX_ITERATIONS):
        if not pending.any():
            break
        if pending.sum() < 0.5 * pending.size:
            position, rate, low, high, value_low = (
                x[pending] for x in (position, rate, low, high, value_low)
            )
            flows_by_month = flows_by_month[:, pending]
            pending = np.ones(position.size, dtype=bool)
        value, slope = _npv_and_slope(flows_by_month, rate)
        same_side = np.sign(value) == np.sign(value_low)
        low = np.where(same_side, rate, low)
        value_low = np.where(same_side, value, value_low)
        high = np.where(same_side, high, rate)
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = rate - value / slope
        inside = np.isfinite(newton) & (newton > low) & (newton < high)
        next_rate = np.where(value == 0.0, rate, np.where(inside, newton, 0.5 * (low + high)))
        root[position[pending]] = next_rate[pending]
        pending &= np.abs(next_rate - rate) > IRR_TOLERANCE * (1e-3 + np.abs(rate))
        rate = next_rate
    return root
