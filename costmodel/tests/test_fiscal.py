"""Fiscal years and quarters, worked by hand for a year starting in July."""
from __future__ import annotations

import numpy as np
import pytest

from costmodel.fiscal import by_period
from costmodel.fiscal import fiscal_periods
from costmodel.fiscal import fiscal_year_and_quarter


@pytest.mark.parametrize(("year", "month", "expected"), [
    (2026, 7, (2027, 1)), (2026, 9, (2027, 1)), (2026, 10, (2027, 2)), (2027, 1, (2027, 3)),
    (2027, 6, (2027, 4)), (2027, 7, (2028, 1)),
])
def test_a_fiscal_year_starting_in_july_is_named_by_the_year_it_ends_in(year, month, expected):
    assert fiscal_year_and_quarter(year, month, 7) == expected


def test_a_year_starting_in_january_is_the_calendar_year():
    assert fiscal_year_and_quarter(2026, 3, 1) == (2026, 1)
    assert fiscal_year_and_quarter(2026, 12, 1) == (2026, 4)


def test_months_from_may_2026_gathered_by_fiscal_year_from_july():
    # Month 0 = May 2026 and month 1 = June 2026 end FY2026; July 2026 (month 2) opens FY2027.
    years = fiscal_periods(2026, 5, 36, 7, quarters=False)
    assert [(p.label, p.first_month, p.last_month) for p in years] == [
        ("FY2026", 0, 1), ("FY2027", 2, 13), ("FY2028", 14, 25), ("FY2029", 26, 36)]
    quarters = fiscal_periods(2026, 5, 36, 7, quarters=True)
    assert [(p.label, p.first_month, p.last_month) for p in quarters[:3]] == [
        ("FY2026 Q4", 0, 1), ("FY2027 Q1", 2, 4), ("FY2027 Q2", 5, 7)]
    rows = by_period({"cost": np.r_[400_000.0, [744.60] * 36]}, years)
    assert [round(row["cost"], 2) for row in rows] == [400_744.60, 8_935.20, 8_935.20, 8_190.60]


def test_a_start_month_outside_1_12_is_refused():
    with pytest.raises(ValueError, match="fiscal_year_start_month: 13 is not a month"):
        fiscal_year_and_quarter(2026, 1, 13)
