"""Ways to pay for the owned systems, side by side: cash, loan, finance lease, operating lease.

Every way buys the same systems and runs them the same way (the same operating costs); only
how the capex is paid, and so its taxes, differs. Months 0..H, costs positive, in the
reporting currency; a batch of one scenario.

- Cash: all capex at month 0; the systems are sold at the horizon for their residual value.
- Loan: the scenario's financed share as the engine costs it (down payment at month 0, level
  payments over the term, a balance still owed at the horizon repaid then).
- Finance lease: the lessor pays the hardware (systems, network, storage, spares); the rest of
  the capex is paid at month 0. Monthly payments for the term, then the buy-out; the lessee
  owns the hardware, depreciates it for tax as if bought and deducts the lease's implicit
  interest. Payments and buy-out still due at the horizon are paid then, and the systems are
  sold for their residual value as when bought.
- Operating lease: the same hardware for a monthly payment, returned at the end (no residual
  value); the payments are deductible as paid. A term shorter than the horizon is renewed at
  the same payment; payments still due after the horizon are paid at the horizon.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from costmodel.inputs import InputError
from costmodel.inputs import numeric
from costmodel.tax import AfterTax
from costmodel.tax import OwnedCosts
from costmodel.tax import TaxTerms
from costmodel.tax import after_tax_owned
from costmodel.tax import loan_interest_per_month

MONTHS_PER_YEAR = 12


@dataclass(frozen=True)
class OwnedSystems:
    """What every way pays for: capex [total, and the hardware part a lessor pays], the
    operating costs per month (0..H, deductible) and the sale proceeds at the horizon."""

    capex: float
    hardware_capex: float
    operating: NDArray[np.float64]
    sale_proceeds: float

    @property
    def horizon(self) -> int:
        return len(self.operating) - 1


@dataclass(frozen=True)
class Loan:
    share: float
    rate_per_year: float
    term_months: int


@dataclass(frozen=True)
class Lease:
    """A lease of the hardware: the monthly payment, the term and (finance lease) the buy-out."""

    payment_per_month: float = numeric(label="Lease payment", unit="a month", kind="usd")
    term_months: int = numeric(low=1.0, whole=True, label="Lease term", unit="months", kind="month")
    buyout: float = numeric(0.0, label="Lease buy-out", kind="usd")


@dataclass(frozen=True)
class WayToPay:
    """One way, its cash flows before and after tax, and what it means in words."""

    name: str
    description: str
    flows: AfterTax


def cash(owned: OwnedSystems, tax: TaxTerms, discount: float) -> WayToPay:
    flows = _months(owned)
    flows[0] += owned.capex
    flows[-1] -= owned.sale_proceeds
    costs = OwnedCosts(flows, owned.operating.copy(), owned.capex, owned.sale_proceeds)
    return WayToPay("cash", "all capex paid up front", after_tax_owned(costs, tax, discount))


def loan(owned: OwnedSystems, terms: Loan, tax: TaxTerms, discount: float) -> WayToPay:
    principal = owned.capex * terms.share
    rate = terms.rate_per_year / MONTHS_PER_YEAR
    payment = (principal / terms.term_months if rate == 0
               else principal * rate / (1.0 - (1.0 + rate) ** -terms.term_months))
    horizon = owned.horizon
    flows = _months(owned)
    flows[0] += owned.capex - principal
    paid_months = min(terms.term_months, horizon)
    flows[1:paid_months + 1] += payment
    if terms.term_months > horizon:
        flows[horizon] += _balance(principal, rate, payment, horizon)
    flows[-1] -= owned.sale_proceeds
    interest = loan_interest_per_month(principal, terms.rate_per_year, terms.term_months, horizon)
    costs = OwnedCosts(flows, owned.operating + interest, owned.capex, owned.sale_proceeds)
    return WayToPay("loan", f"{terms.share:.0%} financed at {terms.rate_per_year:.2%} a year over "
                            f"{terms.term_months} months", after_tax_owned(costs, tax, discount))


def finance_lease(owned: OwnedSystems, lease: Lease, tax: TaxTerms, discount: float) -> WayToPay:
    horizon = owned.horizon
    flows = _months(owned)
    flows[0] += owned.capex - owned.hardware_capex
    flows += _lease_payments(lease, horizon, renew=False)
    flows[min(lease.term_months, horizon)] += lease.buyout
    flows[-1] -= owned.sale_proceeds
    interest = _implicit_interest(owned.hardware_capex, lease, horizon)
    costs = OwnedCosts(flows, owned.operating + interest, owned.capex, owned.sale_proceeds)
    return WayToPay("finance_lease", f"{lease.term_months} monthly payments, then a buy-out of "
                                     f"{lease.buyout:,.2f}; owned and depreciated",
                    after_tax_owned(costs, tax, discount))


def operating_lease(owned: OwnedSystems, lease: Lease, tax: TaxTerms, discount: float) -> WayToPay:
    horizon = owned.horizon
    payments = _lease_payments(lease, horizon, renew=True)
    flows = _months(owned) + payments
    rest = owned.capex - owned.hardware_capex
    flows[0] += rest
    # The hardware goes back to the lessor: no resale; the rest of the capex is written off.
    costs = OwnedCosts(flows, owned.operating + payments, rest, 0.0)
    return WayToPay("operating_lease", f"{lease.term_months}-month lease, payments expensed, "
                                       "hardware returned at the end",
                    after_tax_owned(costs, tax, discount))


def _months(owned: OwnedSystems) -> NDArray[np.float64]:
    return owned.operating.astype(np.float64).copy()


def _lease_payments(lease: Lease, horizon: int, *, renew: bool) -> NDArray[np.float64]:
    """Payments in months 1..H; those due after the horizon are paid at the horizon; with
    ``renew`` a term shorter than the horizon is renewed at the same payment."""
    payments = np.zeros(horizon + 1)
    months = horizon if renew else min(lease.term_months, horizon)
    payments[1:months + 1] = lease.payment_per_month
    payments[horizon] += lease.payment_per_month * max(lease.term_months - horizon, 0)
    return payments


def _balance(principal: float, rate: float, payment: float, months: int) -> float:
    if rate == 0:
        return principal - payment * months
    growth = (1.0 + rate) ** months
    return principal * growth - payment * (growth - 1.0) / rate


def implicit_rate(price: float, lease: Lease) -> float:
    """The monthly rate at which the payments and the buy-out are worth the hardware's price
    (bisection; the present value falls as the rate rises)."""

    def value(rate: float) -> float:
        months = np.arange(1, lease.term_months + 1)
        factors = (1.0 + rate) ** -months
        return float(lease.payment_per_month * factors.sum() + lease.buyout * factors[-1])

    low, high = -0.5, 1.0
    if not value(high) <= price <= value(low):
        raise InputError("finance_lease.payment_per_month",
                         f"the lease's payments are worth {value(0.0):,.2f} undiscounted against "
                         f"a hardware price of {price:,.2f}: no interest rate links them")
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if value(middle) > price else (low, middle)
    return (low + high) / 2


def _implicit_interest(price: float, lease: Lease, horizon: int) -> NDArray[np.float64]:
    """Interest part of each lease payment at the implicit rate, months 0..H."""
    interest = np.zeros(horizon + 1)
    if price <= 0:
        return interest
    rate, balance = implicit_rate(price, lease), price
    for month in range(1, min(lease.term_months, horizon) + 1):
        interest[month] = balance * rate
        balance += interest[month] - lease.payment_per_month
    if lease.term_months > horizon:  # the rest is settled at the horizon, interest as scheduled
        for _month in range(horizon + 1, lease.term_months + 1):
            owed = balance * rate
            interest[horizon] += owed
            balance += owed - lease.payment_per_month
    return interest
