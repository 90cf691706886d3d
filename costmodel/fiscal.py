"""Monthly figures gathered by fiscal year and quarter, as a budget owner plans.

Month 0 (the up-front payment) falls in the scenario's first calendar month; month m is m
calendar months later. A fiscal year is named by the calendar year it ends in (a year starting
in July 2026 is FY2027), as most companies name theirs; a year starting in January is the
calendar year. Quarter 1 is the fiscal year's first three months.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class FiscalPeriod:
    """A fiscal year, or one of its quarters, and the scenario months in it."""

    fiscal_year: int
    quarter: int | None
    first_month: int
    last_month: int

    @property
    def label(self) -> str:
        """'FY2027' or 'FY2027 Q1'."""
        return f"FY{self.fiscal_year}" + ("" if self.quarter is None else f" Q{self.quarter}")


def fiscal_year_and_quarter(year: int, month: int, start_month: int) -> tuple[int, int]:
    """The fiscal year (named by the calendar year it ends in) and quarter of a calendar month.

    >>> fiscal_year_and_quarter(2026, 7, 7), fiscal_year_and_quarter(2026, 6, 7)
    ((2027, 1), (2026, 4))
    >>> fiscal_year_and_quarter(2026, 11, 1)
    (2026, 4)
    """
    if not 1 <= start_month <= 12:
        raise ValueError(f"fiscal_year_start_month: {start_month} is not a month (1-12)")
    offset = (month - start_month) % 12
    ends_in = year if start_month == 1 or month < start_month else year + 1
    return ends_in, offset // 3 + 1


def fiscal_periods(first_year: int, first_month: int, months: int, start_month: int, *,
                   quarters: bool) -> list[FiscalPeriod]:
    """The fiscal years (or quarters) that scenario months 0..``months`` fall in, in order."""
    periods: list[FiscalPeriod] = []
    for index in range(months + 1):
        calendar = first_year * 12 + first_month - 1 + index
        year, quarter = fiscal_year_and_quarter(calendar // 12, calendar % 12 + 1, start_month)
        key = (year, quarter if quarters else None)
        if periods and (periods[-1].fiscal_year, periods[-1].quarter) == key:
            periods[-1] = FiscalPeriod(year, key[1], periods[-1].first_month, index)
        else:
            periods.append(FiscalPeriod(year, key[1], index, index))
    return periods


def by_period(lines: Mapping[str, NDArray[np.float64]],
              periods: list[FiscalPeriod]) -> list[dict[str, float | str | int]]:
    """Each period's sum of each line (months 0..H arrays), in the order of ``periods``."""
    rows = []
    for period in periods:
        row: dict[str, float | str | int] = {"period": period.label, "fiscal_year": period.fiscal_year,
                                             "first_month": period.first_month,
                                             "last_month": period.last_month}
        if period.quarter is not None:
            row["quarter"] = period.quarter
        for name, values in lines.items():
            row[name] = float(np.sum(values[period.first_month:period.last_month + 1]))
        rows.append(row)
    return rows
