"""The after-tax view of one evaluated scenario: book and tax depreciation, the tax shield,
after-tax cash flows, NPV and breakeven of buying (as the scenario pays for it) against each
rent option and each per-token API (both expensed when paid), the ways to pay side by side,
and the verdict ranked after tax. Conventions: costmodel/tax.py and
costmodel/payment.py.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from costmodel.buy import hardware_capex_usd
from costmodel.inputs import Scenario
from costmodel.payment import Lease
from costmodel.payment import Loan
from costmodel.payment import OwnedSystems
from costmodel.payment import WayToPay
from costmodel.payment import cash
from costmodel.payment import finance_lease
from costmodel.payment import loan
from costmodel.payment import operating_lease
from costmodel.result import CashFlows
from costmodel.result import Result
from costmodel.tax import AfterTax
from costmodel.tax import OwnedCosts
from costmodel.tax import TaxTerms
from costmodel.tax import after_tax_breakeven_month
from costmodel.tax import after_tax_expensed
from costmodel.tax import after_tax_owned
from costmodel.tax import book_depreciation_per_month
from costmodel.tax import loan_interest_per_month
from costmodel.tax import tax_depreciation_per_month
from costmodel.tax import yearly_shares
from costmodel.validation import check_section
from costmodel.verdict import AFTER_TAX
from costmodel.verdict import API
from costmodel.verdict import BUY
from costmodel.verdict import RENT
from costmodel.verdict import Verdict
from costmodel.verdict import on_basis

CONVENTION = ("Costs are positive. Tax shield = tax rate x (operating costs and interest when "
              "paid + tax depreciation, each tax year's share spread over its 12 months); at the "
              "horizon the undepreciated basis is deducted and the sale proceeds taxed. Rent is "
              "deducted when paid. NPV: month 0 undiscounted, month m discounted by "
              "(1 + rate)^(m/12). Breakeven: first month whose running after-tax cost of buying "
              "is no more than renting's.")


@dataclass(frozen=True)
class RentAfterTax:
    name: str
    flows: AfterTax
    breakeven_month: float


@dataclass(frozen=True)
class AfterTaxView:
    """Everything after tax for a batch-of-one result."""

    tax: TaxTerms
    buy: AfterTax
    rent: tuple[RentAfterTax, ...]
    ways: tuple[WayToPay, ...]
    book_depreciation: NDArray[np.float64]
    tax_depreciation: NDArray[np.float64]
    api: tuple[RentAfterTax, ...] = ()

    def verdict(self, pre_tax: Verdict) -> Verdict:
        """The verdict's options ranked on their after-tax costs."""
        costs = {(BUY, "Buy"): self.buy.after_tax,
                 **{(RENT, option.name): option.flows.after_tax for option in self.rent},
                 **{(API, option.name): option.flows.after_tax for option in self.api}}
        return on_basis(pre_tax, costs, self.buy.discount_rate_per_year, AFTER_TAX)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, money to the cent as floats; null = never."""
        return {
            "convention": CONVENTION,
            "tax_rate": self.tax.rate,
            "tax_depreciation": str(self.tax.method),
            "tax_depreciation_shares_by_year": [round(share, 6) for share in yearly_shares(self.tax)],
            "book_depreciation_usd": _cents(self.book_depreciation),
            "tax_depreciation_usd": _cents(self.tax_depreciation),
            "buy": _flows(self.buy),
            "rent": [{"name": option.name, **_flows(option.flows),
                      "breakeven_month": None if math.isnan(option.breakeven_month)
                      else int(option.breakeven_month)} for option in self.rent],
            "api": [{"name": option.name, **_flows(option.flows),
                     "breakeven_month": None if math.isnan(option.breakeven_month)
                     else int(option.breakeven_month)} for option in self.api],
            "ways_to_pay": [{"way": way.name, "description": way.description, **_flows(way.flows)}
                            for way in self.ways],
        }


def _per_month_usd(flows: CashFlows) -> NDArray[np.float64]:
    """An option's monthly total, which the after-tax view needs (an evaluation with detail)."""
    if flows.per_month_usd is None:
        raise ValueError("the after-tax view needs a result evaluated with detail=True")
    return np.reshape(flows.per_month_usd, -1)


def after_tax_view(inputs: Scenario, result: Result, tax: TaxTerms, *,
                   finance_lease_terms: Lease | None = None,
                   operating_lease_terms: Lease | None = None) -> AfterTaxView:
    """The after-tax view of ``result`` (a batch of one evaluated with its monthly detail)."""
    tax.check()
    for prefix, lease in (("finance_lease", finance_lease_terms), ("operating_lease", operating_lease_terms)):
        if lease is not None:
            check_section(prefix, lease)
    discount = float(inputs.finance.discount_rate_per_year)
    lines = {name: np.reshape(values, -1) for name, values in result.buy.cash_flows.lines_usd.items()}
    horizon = len(lines["energy"]) - 1
    operating = sum((values for name, values in lines.items()
                     if not name.startswith("capex_") and name not in ("loan_payments", "residual_value")),
                    np.zeros(horizon + 1))
    capex = float(np.sum(result.buy.total_capex_usd))
    sale = -float(lines["residual_value"][horizon])
    owned = OwnedSystems(capex, float(np.sum(hardware_capex_usd(result.buy.capex_usd))), operating, sale)

    buy_terms = inputs.buy
    interest = loan_interest_per_month(capex * float(buy_terms.financed_share),
                                       float(buy_terms.loan_rate_per_year),
                                       int(round(float(buy_terms.loan_term_months))), horizon)
    pre_tax = _per_month_usd(result.buy.cash_flows)
    buy = after_tax_owned(OwnedCosts(pre_tax, operating + interest, capex, sale), tax, discount)
    rent, api = (tuple(
        RentAfterTax(option.name,
                     flows := after_tax_expensed(_per_month_usd(option.cash_flows), tax, discount),
                     after_tax_breakeven_month(buy, flows))
        for option in options) for options in (result.rent, result.api))

    ways = [cash(owned, tax, discount)]
    if float(buy_terms.financed_share) > 0:
        ways.append(loan(owned, Loan(float(buy_terms.financed_share), float(buy_terms.loan_rate_per_year),
                                     int(round(float(buy_terms.loan_term_months)))), tax, discount))
    if finance_lease_terms is not None:
        ways.append(finance_lease(owned, finance_lease_terms, tax, discount))
    if operating_lease_terms is not None:
        ways.append(operating_lease(owned, operating_lease_terms, tax, discount))
    return AfterTaxView(tax, buy, rent, tuple(ways),
                        book_depreciation_per_month(capex, int(round(float(buy_terms.depreciation_months))),
                                                    horizon),
                        tax_depreciation_per_month(capex, tax, horizon), api)


def _flows(flows: AfterTax) -> dict[str, Any]:
    return {
        "total_pre_tax_usd": round(flows.total_pre_tax, 2),
        "total_after_tax_usd": round(flows.total_after_tax, 2),
        "npv_pre_tax_usd": round(flows.npv_pre_tax, 2),
        "npv_after_tax_usd": round(flows.npv_after_tax, 2),
        "tax_shield_usd": round(float(flows.shield.sum()), 2),
        "pre_tax_per_month_usd": _cents(flows.pre_tax),
        "tax_shield_per_month_usd": _cents(flows.shield),
        "after_tax_per_month_usd": _cents(flows.after_tax),
    }


def _cents(values: NDArray[np.float64]) -> list[float]:
    return [round(float(value), 2) + 0.0 for value in values]
