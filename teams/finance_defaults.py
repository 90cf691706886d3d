"""Finance defaults a new scenario starts from, each with the reason it is a sensible figure.

A team overrides any of them (teams.FinanceDefault rows, in the team's admin page); a scenario
created without a figure gets its team's (tco/services/scenarios.py, the scenario admin's add
form), so no cost line is left at zero unless someone typed zero.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class FinanceFigure:
    """A default value and why it is a sensible one."""

    value: Decimal
    reason: str


FINANCE_DEFAULTS: dict[str, FinanceFigure] = {
    "discount_rate_per_year": FinanceFigure(
        Decimal("0.08"), "cost of capital: a typical corporate WACC of 7-10 % a year; use your "
                         "treasury's hurdle rate"),
    "support_share_per_year": FinanceFigure(
        Decimal("0.08"), "vendor support and warranty extension: about 8 % of the hardware price a "
                         "year in enterprise server support quotes"),
    "staff_fte_per_system": FinanceFigure(
        Decimal("0.10"), "operations staff: one infrastructure engineer looks after about ten "
                         "GPU nodes"),
    "staff_usd_per_fte_year": FinanceFigure(
        Decimal("180000"), "fully loaded cost of a US infrastructure engineer (salary, benefits, "
                           "overhead)"),
    "spares_share": FinanceFigure(
        Decimal("0.02"), "spare parts held on site: 2 % of the hardware price"),
    "network_share_of_compute": FinanceFigure(
        Decimal("0.10"), "cluster fabric (switches, NICs, optics, cables): about 10 % of the "
                         "compute price"),
    "residual_value_share": FinanceFigure(
        Decimal("0.20"), "resale value at the end of the horizon: about 20 % of the price for "
                         "three-year-old datacenter GPU systems"),
    "depreciation_months": FinanceFigure(
        Decimal("60"), "accounting life of servers: five years straight line"),
    "electricity_escalation_per_year": FinanceFigure(
        Decimal("0.03"), "electricity prices rising about 3 % a year, close to long-run "
                         "inflation"),
}
