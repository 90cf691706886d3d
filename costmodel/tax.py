"""Tax depreciation, the tax shield and after-tax cash flows of one scenario (a batch of one).

Conventions (stated wherever the figures are shown):

- Book depreciation is straight line over the stated life (``depreciation_months``); it is the
  accounting view and moves no cash. Tax depreciation is a separate choice: the MACRS 3-, 5- and
  7-year tables with the half-year convention (IRS Publication 946, table A-1), declining
  balance (``factor`` x straight line on the remaining basis, switching to straight line when
  that deducts more; full years, no half-year convention) or straight line over the tax life.
- Tax years are the scenario's years, months 1-12, 13-24, ...; a tax year's depreciation is
  deducted evenly over its twelve months. Operating costs and loan interest are deducted in the
  month they are paid; rent is an operating cost.
- At the horizon the systems are sold for their residual value: the tax basis not yet
  depreciated is deducted then and the proceeds are taxed (tax on the gain, or a shield on a
  loss).
- Cash flows are costs (positive = paid out); the tax shield is what the deductions save,
  tax rate x deductions. After-tax cost = pre-tax cost - shield + tax on the sale's gain.
- NPVs use the time-0 convention of ``finance.npv_usd`` (month 0 undiscounted); breakeven is the
  first month m >= 1 whose running after-tax cost of buying is no more than renting's.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from numpy.typing import NDArray

from costmodel.finance import breakeven_month
from costmodel.finance import npv_usd
from costmodel.inputs import numeric
from costmodel.timeline import MONTHS_PER_YEAR
from costmodel.validation import check_section

# IRS Publication 946, table A-1: general depreciation system, half-year convention [share of
# the basis per tax year]; each column sums to 1.
MACRS_HALF_YEAR = {
    3: (0.3333, 0.4445, 0.1481, 0.0741),
    5: (0.20, 0.32, 0.192, 0.1152, 0.1152, 0.0576),
    7: (0.1429, 0.2449, 0.1749, 0.1249, 0.0893, 0.0892, 0.0893, 0.0446),
}


class TaxMethod(StrEnum):
    """How the tax return depreciates capex (values as the scenario stores them)."""

    STRAIGHT_LINE = "straight_line"
    DECLINING_BALANCE = "declining_balance"
    MACRS_3 = "macrs_3"
    MACRS_5 = "macrs_5"
    MACRS_7 = "macrs_7"


@dataclass(frozen=True)
class TaxTerms:
    """The scenario's tax figures: rate, tax depreciation method, tax life for straight line and
    declining balance, and the declining-balance factor (2 = double)."""

    rate: float = numeric(
        high=1.0, label="Tax rate", unit="on profits", kind="share",
        help="Tax rate on profits, 0 to 1 (0.25 = 25 %); 0 = the after-tax figures equal the "
             "pre-tax ones.")
    method: TaxMethod = TaxMethod.STRAIGHT_LINE
    life_months: int = numeric(
        60, low=MONTHS_PER_YEAR, whole=True, step=MONTHS_PER_YEAR, label="Tax depreciation life",
        unit="months", kind="month",
        help="Tax life for straight line and declining balance [months, whole years].")
    declining_balance_factor: float = numeric(
        2.0, low=1.0, high=3.0, label="Declining-balance factor", unit="x straight line",
        help="Declining-balance rate as a multiple of straight line (2 = double declining).")

    def check(self) -> None:
        """Raise ``InputError`` naming the figure (``tax.rate``) out of its declared range."""
        check_section("tax", self)


def yearly_shares(terms: TaxTerms) -> tuple[float, ...]:
    """The share of the basis deducted in each tax year (they sum to 1).

    >>> yearly_shares(TaxTerms(0.25, TaxMethod.MACRS_5))
    (0.2, 0.32, 0.192, 0.1152, 0.1152, 0.0576)
    >>> [round(s, 4) for s in yearly_shares(TaxTerms(0.25, TaxMethod.DECLINING_BALANCE, 60))]
    [0.4, 0.24, 0.144, 0.108, 0.108]
    """
    if terms.method.startswith("macrs_"):
        return MACRS_HALF_YEAR[int(terms.method.removeprefix("macrs_"))]
    years = terms.life_months // MONTHS_PER_YEAR
    if terms.method == TaxMethod.DECLINING_BALANCE:
        return declining_balance_shares(years, terms.declining_balance_factor)
    return (1.0 / years,) * years


def declining_balance_shares(years: int, factor: float, *, half_year: bool = False) -> tuple[float, ...]:
    """Declining balance at ``factor`` / ``years`` a year on the remaining basis, switching to
    straight line over the remaining life when that deducts more. With ``half_year`` the first
    year deducts half and recovery runs one year longer (how MACRS is built: 5 years at 2x
    gives the MACRS 5-year table before its rounding).

    >>> [round(100 * s, 2) for s in declining_balance_shares(5, 2.0, half_year=True)]
    [20.0, 32.0, 19.2, 11.52, 11.52, 5.76]
    """
    rate = factor / years
    remaining, shares = 1.0, []
    periods = years + 1 if half_year else years
    for year in range(1, periods + 1):
        life_left = years - (year - 1) + (0.5 if half_year else 0.0)
        if half_year and year == 1:
            deduction = rate / 2
        elif life_left <= 1.0:
            deduction = remaining
        else:
            deduction = max(remaining * rate, remaining / life_left)
        deduction = min(deduction, remaining)
        shares.append(deduction)
        remaining -= deduction
    return tuple(shares)


def tax_depreciation_per_month(basis: float, terms: TaxTerms, horizon_months: int) -> NDArray[np.float64]:
    """Tax depreciation of ``basis`` in months 0..H: each tax year's share spread evenly over
    its twelve months (straight line: basis / life each month). What falls after the horizon
    is not here; ``after_tax_buy`` writes it off at the sale."""
    months = np.zeros(horizon_months + 1)
    for year, share in enumerate(yearly_shares(terms)):
        first = year * MONTHS_PER_YEAR + 1
        if first > horizon_months:
            break
        last = min(first + MONTHS_PER_YEAR - 1, horizon_months)
        months[first:last + 1] = basis * share / MONTHS_PER_YEAR
    return months


def book_depreciation_per_month(basis: float, life_months: int, horizon_months: int) -> NDArray[np.float64]:
    """Straight line over the book life, months 1..life, within months 0..H."""
    months = np.zeros(horizon_months + 1)
    months[1:min(life_months, horizon_months) + 1] = basis / life_months
    return months


def loan_interest_per_month(principal: float, rate_per_year: float, term_months: int,
                            horizon_months: int) -> NDArray[np.float64]:
    """Interest part of a level-payment loan in months 0..H (nominal rate / 12 on the balance
    owed; a balance still owed at the horizon is repaid then, with no further interest)."""
    interest = np.zeros(horizon_months + 1)
    rate = rate_per_year / MONTHS_PER_YEAR
    if principal <= 0 or rate <= 0:
        return interest
    payment = principal * rate / (1.0 - (1.0 + rate) ** -term_months)
    balance = principal
    for month in range(1, min(term_months, horizon_months) + 1):
        interest[month] = balance * rate
        balance -= payment - interest[month]
    return interest


@dataclass(frozen=True)
class AfterTax:
    """One option's costs before and after tax, months 0..H [reporting currency].

    ``shield`` is what the deductions save each month (tax rate x deductions, with the tax on
    the sale's gain counted negative at the horizon); ``after_tax`` = ``pre_tax`` - ``shield``.
    """

    pre_tax: NDArray[np.float64]
    shield: NDArray[np.float64]
    after_tax: NDArray[np.float64]
    discount_rate_per_year: float
    # What the shield is made of: shield = rate x (deductible + depreciation - gain).
    deductible: NDArray[np.float64] | None = None
    depreciation: NDArray[np.float64] | None = None
    gain: NDArray[np.float64] | None = None

    @property
    def total_pre_tax(self) -> float:
        return float(self.pre_tax.sum())

    @property
    def total_after_tax(self) -> float:
        return float(self.after_tax.sum())

    @property
    def npv_pre_tax(self) -> float:
        return float(npv_usd(self.pre_tax, self.discount_rate_per_year))

    @property
    def npv_after_tax(self) -> float:
        return float(npv_usd(self.after_tax, self.discount_rate_per_year))


@dataclass(frozen=True)
class OwnedCosts:
    """What tax needs of an owned option, months 0..H: its pre-tax cash flows, the deductible
    operating costs and interest in them, the depreciable basis and the sale proceeds at H."""

    pre_tax: NDArray[np.float64]
    deductible: NDArray[np.float64]
    basis: float
    sale_proceeds: float


def after_tax_owned(costs: OwnedCosts, terms: TaxTerms, discount_rate_per_year: float) -> AfterTax:
    """An owned option after tax: deductions are operating costs, interest and tax depreciation;
    at the horizon the undepreciated basis is written off and the sale proceeds are taxed."""
    horizon = len(costs.pre_tax) - 1
    depreciation = tax_depreciation_per_month(costs.basis, terms, horizon)
    deductions = costs.deductible + depreciation
    undepreciated = costs.basis - float(depreciation.sum())
    gain = np.zeros(horizon + 1)
    gain[horizon] = costs.sale_proceeds - undepreciated
    shield = terms.rate * (deductions - gain)
    return AfterTax(costs.pre_tax, shield, costs.pre_tax - shield, discount_rate_per_year,
                    costs.deductible, depreciation, gain)


def after_tax_expensed(pre_tax: NDArray[np.float64], terms: TaxTerms,
                       discount_rate_per_year: float) -> AfterTax:
    """A rented (or operating-leased) option after tax: every cost is deductible when paid."""
    shield = terms.rate * pre_tax
    zeros = np.zeros_like(pre_tax)
    return AfterTax(pre_tax, shield, pre_tax - shield, discount_rate_per_year, pre_tax, zeros, zeros)


def after_tax_breakeven_month(buy: AfterTax, rent: AfterTax) -> float:
    """First month m >= 1 whose running after-tax cost of buying is no more than renting's
    (NaN = never within the horizon)."""
    saving = np.cumsum(rent.after_tax - buy.after_tax)
    month = float(breakeven_month(saving, 1e-6))
    return month if not math.isnan(month) else math.nan
