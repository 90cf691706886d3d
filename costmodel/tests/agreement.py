"""Holding an engine result to the month-by-month reference model (``costmodel.reference``)."""

from __future__ import annotations

from typing import Any

from numpy.testing import assert_allclose
from numpy.testing import assert_array_equal


def money_at_stake(reference: dict[str, Any]) -> float:
    """What the buy option moves in and out over the horizon, at least $1 [USD]."""
    return max(1.0, sum(abs(x) for x in reference["buy"]["flow"]))


def assert_close(actual: object, expected: object, money: float, rtol: float) -> None:
    """Equal to ``rtol`` relative, with an absolute floor of ``rtol`` x the money at stake."""
    assert_allclose(actual, expected, rtol=rtol, atol=rtol * money, equal_nan=True)


def assert_totals_agree(result: Any, reference: dict[str, Any], rtol: float) -> None:
    """Every option's total, NPV and savings to ``rtol`` of the money at stake; breakeven months exactly.

    A rent option's money at stake adds its own total to the buy option's.
    """
    money = money_at_stake(reference)
    assert_close(result.buy.total_usd, reference["buy"]["total_usd"], money, rtol)
    assert_close(result.buy.npv_usd, reference["buy"]["npv_usd"], money, rtol)
    for option, expected in zip(result.rent, reference["rent"], strict=True):
        for name in ("total_usd", "npv_usd", "saving_usd", "npv_saving_usd"):
            assert_close(getattr(option, name), expected[name], money + expected["total_usd"], rtol)
        assert_array_equal(option.breakeven_month, expected["breakeven_month"])
