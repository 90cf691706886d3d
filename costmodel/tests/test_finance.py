"""Discounting, NPV, IRR, breakevens and loans against numpy-financial and hand figures."""

from __future__ import annotations

import math

import numpy as np
import numpy_financial as npf
from numpy.testing import assert_allclose
from numpy.testing import assert_array_equal

from costmodel.finance import breakeven_month
from costmodel.finance import breakeven_utilisation
from costmodel.finance import discount_factors
from costmodel.finance import irr_per_month
from costmodel.finance import irr_per_year
from costmodel.finance import loan_balance_usd
from costmodel.finance import loan_payment_usd_per_month
from costmodel.finance import monthly_rate
from costmodel.finance import npv_usd
from costmodel.timeline import price_factor_sum


def test_monthly_rate_compounds_back_to_the_yearly_rate() -> None:
    # (1 + 0.01) ** 12 - 1 = 12.6825 % a year
    assert_allclose(monthly_rate(1.01**12 - 1), 0.01)
    assert_allclose((1 + monthly_rate([0.0, 0.08, 0.2])) ** 12 - 1, [0.0, 0.08, 0.2])


def test_discount_factor_after_one_year_is_one_over_one_plus_the_rate() -> None:
    # 1 / 1.21 = 0.826446 after 12 months, 1 / 1.21^2 after 24
    assert_allclose(discount_factors(0.21, 24)[[0, 12, 24]], [1.0, 1 / 1.21, 1 / 1.21**2])


def test_npv_matches_numpy_financial_with_month_zero_undiscounted() -> None:
    flows = np.r_[-1_000_000.0, np.full(36, 40_000.0)]
    for rate_per_year in (0.0, 0.08, 0.25):
        assert_allclose(npv_usd(flows, rate_per_year), npf.npv(float(monthly_rate(rate_per_year)), flows))


def test_npv_broadcasts_rates_against_scenarios() -> None:
    rng = np.random.default_rng(7)
    flows = rng.normal(size=(4, 25)) * 1000
    rates = np.array([[0.0], [0.05], [0.3]])
    npv = npv_usd(flows, rates)
    assert npv.shape == (3, 4)
    expected = [[npf.npv(float(monthly_rate(r)), row) for row in flows] for r in rates.ravel()]
    assert_allclose(npv, expected)


def test_irr_matches_numpy_financial_on_its_documented_examples() -> None:
    for flows in (
        [-100, 39, 59, 55, 20],
        [-100, 0, 0, 74],
        [-100, 100, 0, -7],
        [-100, 100, 0, 7],
        [-5, 10.5, 1, -8, 1],
    ):
        assert_allclose(irr_per_month(np.array(flows, dtype=float)), npf.irr(flows), rtol=1e-9)


def test_irr_of_a_batch_matches_numpy_financial_row_by_row() -> None:
    rng = np.random.default_rng(11)
    capex = rng.uniform(1e5, 1e6, size=(200, 1))
    savings = rng.uniform(-1e3, 3e4, size=(200, 120))
    flows = np.concatenate([-capex, savings], axis=1)
    expected = [npf.irr(row) for row in flows]
    assert_allclose(irr_per_month(flows), expected, rtol=1e-6)
    assert_allclose(irr_per_year(flows), (1 + np.array(expected)) ** 12 - 1, rtol=1e-6)


def test_irr_is_nan_when_buying_never_pays_back() -> None:
    # only costs: no rate makes the NPV zero
    assert math.isnan(irr_per_month(np.array([-1000.0, -10.0, -10.0])))
    assert math.isnan(irr_per_month(np.zeros(5)))


def test_irr_of_a_twelve_month_payback_is_zero() -> None:
    # -1,200 then 100 a month for 12 months returns exactly the capex: IRR 0
    assert_allclose(irr_per_year(np.r_[-1200.0, np.full(12, 100.0)]), 0.0, atol=1e-12)


def test_irr_takes_months_on_either_axis() -> None:
    flows = np.array([[-100.0, 39, 59, 55, 20], [-100.0, 0, 0, 74, 0]])
    assert_allclose(irr_per_month(flows.T, months_axis=0), irr_per_month(flows))


def test_loan_payment_matches_numpy_financial_pmt_over_a_grid() -> None:
    rates, terms = np.meshgrid([0.0, 0.03, 0.07, 0.15], [12.0, 36.0, 60.0], indexing="ij", sparse=True)
    payment = loan_payment_usd_per_month(250_000.0, rates, terms)
    assert payment.shape == (4, 3)
    assert_allclose(payment, -npf.pmt(rates / 12, terms, 250_000.0))


def test_a_zero_rate_loan_repays_principal_over_term() -> None:
    # $120,000 over 24 months = $5,000 a month
    assert_allclose(loan_payment_usd_per_month(120_000.0, 0.0, 24.0), 5000.0)


def test_a_tiny_loan_rate_does_not_divide_by_zero() -> None:
    assert_allclose(loan_payment_usd_per_month(120_000.0, 1e-300, 24.0), 5000.0)


def test_loan_balance_matches_numpy_financial_fv_and_is_repaid_at_term() -> None:
    payment = loan_payment_usd_per_month(100_000.0, 0.06, 36)
    # balance after k payments = -fv(rate, k, -payment, principal)
    for months_paid in (0, 12, 35):
        expected = -npf.fv(0.005, months_paid, -payment, 100_000.0)
        assert_allclose(loan_balance_usd(100_000.0, 0.06, payment, months_paid), expected)
    assert_allclose(loan_balance_usd(100_000.0, 0.06, payment, 36), 0.0, atol=1e-6)


def test_breakeven_month_is_the_first_month_the_running_saving_reaches_zero() -> None:
    # capex 1,000 then a saving of 300 a month: -700, -400, -100, +200 -> month 4 = ceil(1000 / 300)
    assert breakeven_month(np.cumsum([-1000.0, 300.0, 300.0, 300.0, 300.0, 300.0])) == 4
    # exactly zero counts: -900 + 3 x 300 = 0 at month 3
    assert breakeven_month(np.cumsum([-900.0, 300.0, 300.0, 300.0])) == 3


def test_breakeven_month_is_nan_when_buying_never_catches_up() -> None:
    assert math.isnan(breakeven_month(np.cumsum([-1000.0, 100.0, 100.0, 100.0])))


def test_breakeven_month_ignores_month_zero() -> None:
    # nothing bought up front and a reserved fee paid at month 0: buying "wins" at month 0, but
    # breakeven counts operating months only, and here renting is cheaper afterwards
    assert math.isnan(breakeven_month(np.cumsum([50.0, -100.0, -100.0])))


def test_breakeven_month_broadcasts_with_months_first() -> None:
    cumulative = np.cumsum(
        np.array([[-1000.0, -1000.0], [300.0, 600.0], [300.0, 600.0], [300.0, 600.0], [300.0, 600.0]]), axis=0
    )
    assert_array_equal(breakeven_month(cumulative, months_axis=0), [4.0, 2.0])


def test_breakeven_utilisation_solves_the_linear_saving() -> None:
    # saving 500 at utilisation 0.8, rising 1,000 per unit: zero at 0.8 - 500 / 1000 = 0.3
    assert_allclose(breakeven_utilisation(500.0, 1000.0, 0.8), 0.3)
    assert_array_equal(
        breakeven_utilisation([500.0, 500.0, 2000.0], [0.0, -1000.0, 1000.0], 0.8), [np.nan, np.nan, np.nan]
    )


def test_price_factor_sum_adds_calendar_years_of_price_changes() -> None:
    # 12 x 1 + 12 x 1.1 + 6 x 1.21 = 12 + 13.2 + 7.26 = 32.46
    assert_allclose(price_factor_sum(0.1, 30), 32.46)
    assert_allclose(price_factor_sum(0.0, 30), 30.0)
    # a tiny change behaves like no change, without cancellation
    assert_allclose(price_factor_sum(1e-13, 12), 12.0)


def test_irr_finds_two_roots_inside_one_grid_cell_as_numpy_financial_does() -> None:
    # -1 + 2.2 x - 1.20999 x^2 with x = 1/(1+r) has roots r = 9.68 % and 10.32 %: both lie
    # between two neighbouring grid rates, whose NPVs therefore have the same sign.
    flows = np.array([-1.0, 2.2, -1.20999])

    assert_allclose(irr_per_month(flows), npf.irr(flows), rtol=1e-9)
    assert_allclose(irr_per_month(flows), 0.0968377223, rtol=1e-9)


def test_irr_of_a_batch_keeps_each_columns_own_root_when_one_has_a_hidden_pair() -> None:
    flows = np.array([[-1.0, 2.2, -1.20999], [-100.0, 39, 59, 55, 20][:3], [-1.0, 0.5, 0.2]]).T

    expected = [npf.irr(column) for column in flows.T]

    assert_allclose(irr_per_month(flows, months_axis=0), expected, rtol=1e-9, equal_nan=True)
