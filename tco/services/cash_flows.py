"""A scenario's cash flows by month, fiscal quarter or fiscal year, before and after tax.

One table serves the API (JSON and text/csv carry the same figures), the page, the PDF and the
workbook: buying as the scenario pays for it (pre-tax, tax shield, after tax), book and tax
depreciation, and each rent option before and after tax. Money in the evaluation's currency,
rounded to the cent once the periods are summed.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

import numpy as np
from django.utils import timezone

from costmodel.fiscal import FiscalPeriod
from costmodel.fiscal import by_period
from costmodel.fiscal import fiscal_periods
from tco.models import Scenario
from tco.services.evaluation import Evaluation

PERIODS = ("month", "quarter", "year")


@dataclass(frozen=True)
class CashFlowTable:
    """Rows of figures by period, with what they are: currency, fiscal-year start, first month,
    and the rent options' names (``rent_<i>_...`` columns are the i-th option's)."""

    currency: str
    period: str
    fiscal_year_start_month: int
    first_month: date
    rent_options: tuple[str, ...]
    rows: tuple[dict[str, Any], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"currency": self.currency, "period": self.period,
                "fiscal_year_start_month": self.fiscal_year_start_month,
                "first_month": self.first_month.strftime("%Y-%m"),
                "rent_options": list(self.rent_options), "rows": list(self.rows)}


def first_month(scenario: Scenario) -> date:
    """The calendar month of month 0: the scenario's start, else its price date, else today."""
    day = scenario.starts_on or scenario.prices_as_of or timezone.localdate()
    return day.replace(day=1)


def fiscal_year_start_month(scenario: Scenario) -> int:
    return scenario.team.fiscal_year_start_month if scenario.team_id is not None else 1


def cash_flow_table(scenario: Scenario, evaluation: Evaluation, period: str = "year") -> CashFlowTable:
    """The scenario's cash flows summed by ``period`` ("month", "quarter" or "year")."""
    if period not in PERIODS:
        raise ValueError(f"period: {period!r} is not one of {', '.join(PERIODS)}")
    view = evaluation.after_tax
    lines: dict[str, np.ndarray] = {
        "buy_pre_tax": view.buy.pre_tax, "buy_tax_shield": view.buy.shield,
        "buy_after_tax": view.buy.after_tax, "book_depreciation": view.book_depreciation,
        "tax_depreciation": view.tax_depreciation}
    for index, option in enumerate(view.rent):
        lines[f"rent_{index}_pre_tax"] = option.flows.pre_tax
        lines[f"rent_{index}_after_tax"] = option.flows.after_tax
    start, fiscal = first_month(scenario), fiscal_year_start_month(scenario)
    horizon = len(view.buy.pre_tax) - 1
    if period == "month":
        periods = [FiscalPeriod(0, None, month, month) for month in range(horizon + 1)]
    else:
        periods = fiscal_periods(start.year, start.month, horizon, fiscal, quarters=period == "quarter")
    rows = []
    for row in by_period(lines, periods):
        if period == "month":
            month = row["first_month"]
            calendar = start.year * 12 + start.month - 1 + int(month)
            row = {"period": f"{calendar // 12}-{calendar % 12 + 1:02d}", "month": month,
                   **{name: row[name] for name in lines}}
        rows.append({name: round(value, 2) + 0.0 if isinstance(value, float) else value
                     for name, value in row.items()})
    return CashFlowTable(evaluation.currency, period, fiscal, start,
                         tuple(option.name for option in view.rent), tuple(rows))
