"""Resale value from the rental market: a used accelerator is worth what renting it out earns over
its remaining life, less a share for the risk (failures, idle months, the buyer's margin).

At the horizon H the systems are H months old; over their remaining useful life (L - H months)
each accelerator would rent for the on-demand forward price of each month, every hour of it;
those earnings, discounted at the scenario's rate to the horizon and less ``risk_share`` of them,
are its resale value. As a share of the system's price it replaces the fixed residual share,
capped at 1 (no one pays more for a used system than a new one).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from costmodel.inputs import Scenario
from costmodel.term_structure import ON_DEMAND
from costmodel.term_structure import TermStructure
from costmodel.timeline import MONTHS_PER_YEAR


@dataclass(frozen=True)
class MarketResale:
    """The useful life of the systems [months] and the share of the rental earnings a buyer
    discounts for risk [-]."""

    useful_life_months: float
    risk_share: float


def market_resale_share(scenario: Scenario, terms: TermStructure, resale: MarketResale) -> float:
    """Resale value at the horizon as a share of the system price, from the on-demand curve.

    Examples
    --------
    >>> from costmodel.examples import flat_scenario
    >>> from costmodel.term_structure import TermPrice
    >>> curve = TermStructure((TermPrice("on_demand", 2.50),))

    A 60-month life at the 36-month horizon leaves 24 months at $2.50 x 730 h; half kept for
    risk, undiscounted: $21,900 an accelerator, 8 a system: $175,200 of $300,000.

    >>> round(market_resale_share(flat_scenario(), curve, MarketResale(60, 0.5)), 6)
    0.584
    """
    horizon = int(np.rint(float(scenario.finance.horizon_months)))
    remaining = max(int(np.rint(resale.useful_life_months)) - horizon, 0)
    months = np.arange(1, remaining + 1, dtype=np.float64)
    prices = terms.forward_usd(ON_DEMAND, horizon + months - 1)
    discount = (1.0 + float(scenario.finance.discount_rate_per_year)) ** (-months / MONTHS_PER_YEAR)
    hours = float(scenario.workload.hours_per_month)
    per_accelerator = (1.0 - resale.risk_share) * float(np.sum(prices * hours * discount))
    per_system = per_accelerator * float(scenario.buy.accelerators_per_system)
    price = float(scenario.buy.system_price_usd)
    return min(per_system / price, 1.0) if price > 0 else 0.0
