"""A projected cost's FOCUS cost columns: its currency, and its list and contracted figures.

The engine computes in the scenario's reporting currency at the prices a scenario gives, so a
projection is billed in that currency; nothing here knows a list price that differs from the one
costed, so ListCost = ContractedCost = BilledCost. Every FOCUS row takes its cost columns from
``cost_columns``.
"""
from __future__ import annotations

from dataclasses import dataclass

# Costs are written to the micro-dollar so that a month's rows add up to its cash flow to the cent.
COST_DECIMALS = 6


@dataclass(frozen=True)
class CostTerms:
    """How one cost line is billed: whether its cost is effective now or spread over usage."""

    amortised: bool = False  # a purchase covering future usage: EffectiveCost 0 (FOCUS 1.2)


def cost_columns(billed_amount: float, quantity: float | None, currency: str,
                 terms: CostTerms = CostTerms()) -> dict:
    """BilledCost, EffectiveCost, ListCost, ContractedCost and their unit prices of one row, in
    ``currency`` (ISO 4217)."""
    billed = round(billed_amount, COST_DECIMALS)
    unit = round(billed / quantity, COST_DECIMALS) if quantity else None
    return {
        "BillingCurrency": currency,
        "PricingCurrency": currency,
        "BilledCost": billed,
        "EffectiveCost": 0.0 if terms.amortised else billed,
        "ListCost": billed,
        "ContractedCost": billed,
        "ListUnitPrice": unit,
        "ContractedUnitPrice": unit,
        "PricingCurrencyListUnitPrice": unit,
        "PricingCurrencyContractedUnitPrice": unit,
        "PricingCurrencyEffectiveCost": 0.0 if terms.amortised else billed,
    }
