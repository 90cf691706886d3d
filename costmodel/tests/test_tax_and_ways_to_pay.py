"""Tax depreciation, the tax shield and the ways to pay, worked by hand."""
from __future__ import annotations

import numpy as np
import pytest

from costmodel.inputs import InputError
from costmodel.payment import Lease
from costmodel.payment import Loan
from costmodel.payment import OwnedSystems
from costmodel.payment import cash
from costmodel.payment import finance_lease
from costmodel.payment import implicit_rate
from costmodel.payment import loan
from costmodel.payment import operating_lease
from costmodel.tax import MACRS_HALF_YEAR
from costmodel.tax import OwnedCosts
from costmodel.tax import TaxMethod
from costmodel.tax import TaxTerms
from costmodel.tax import after_tax_breakeven_month
from costmodel.tax import after_tax_expensed
from costmodel.tax import after_tax_owned
from costmodel.tax import declining_balance_shares
from costmodel.tax import tax_depreciation_per_month
from costmodel.tax import yearly_shares


def test_macrs_5_year_shares_are_the_irs_table() -> None:
    assert [round(100 * share, 2) for share in yearly_shares(TaxTerms(0.25, TaxMethod.MACRS_5))] == [
        20.0, 32.0, 19.2, 11.52, 11.52, 5.76]


@pytest.mark.parametrize("years", [3, 5, 7])
def test_double_declining_balance_with_the_half_year_convention_rebuilds_macrs(years) -> None:
    built = declining_balance_shares(years, 2.0, half_year=True)
    # The table rounds to 0.01 % so that each column sums to 100 %.
    assert built == pytest.approx(MACRS_HALF_YEAR[years], abs=0.0001)
    assert sum(MACRS_HALF_YEAR[years]) == pytest.approx(1.0, abs=1e-9)


def test_double_declining_balance_switches_to_straight_line() -> None:
    # 5 years at 40 %: 40, 24, 14.4, then straight line over the last two years: 10.8, 10.8.
    shares = yearly_shares(TaxTerms(0.25, TaxMethod.DECLINING_BALANCE, 60, 2.0))
    assert [round(100 * s, 2) for s in shares] == [40.0, 24.0, 14.4, 10.8, 10.8]


def test_a_tax_years_depreciation_is_spread_over_its_twelve_months() -> None:
    # 120,000 on MACRS 5: 24,000 in year 1 = 2,000 a month; 38,400 in year 2 = 3,200 a month.
    months = tax_depreciation_per_month(120_000.0, TaxTerms(0.25, TaxMethod.MACRS_5), 36)
    assert months[0] == 0
    assert months[1:13] == pytest.approx([2000.0] * 12)
    assert months[13:25] == pytest.approx([3200.0] * 12)
    assert months.sum() == pytest.approx(120_000 * (0.2 + 0.32 + 0.192))


def test_the_tax_shield_of_depreciation_operating_costs_and_a_loss_on_sale() -> None:
    # Capex 100,000; 1,000 a month to run for 24 months; sold for 40,000 at month 24; 25 % tax,
    # straight line over 5 years. Depreciated by month 24: 40,000, so 60,000 is still on the
    # books and the sale loses 20,000. Shield = 25 % x (24,000 + 40,000 + 20,000) = 21,000.
    flows = np.r_[100_000.0, [1000.0] * 24]
    flows[24] -= 40_000
    costs = OwnedCosts(flows, np.r_[0.0, [1000.0] * 24], 100_000.0, 40_000.0)
    view = after_tax_owned(costs, TaxTerms(0.25, TaxMethod.STRAIGHT_LINE, 60), 0.0)
    assert view.total_pre_tax == pytest.approx(84_000.0)
    assert view.shield.sum() == pytest.approx(21_000.0)
    assert view.total_after_tax == pytest.approx(63_000.0)  # (1 - 25 %) x 84,000 undiscounted
    assert view.shield[24] == pytest.approx(0.25 * (1000 + 100_000 / 60 + 20_000))


def test_rent_is_deducted_when_paid_and_breakeven_moves_with_tax() -> None:
    rent = after_tax_expensed(np.r_[0.0, [36_500.0] * 36], TaxTerms(0.25), 0.0)
    assert rent.total_after_tax == pytest.approx(0.75 * 36 * 36_500)
    buy_flows = np.r_[400_000.0, [744.60] * 36]
    buy = after_tax_owned(OwnedCosts(buy_flows, np.r_[0.0, [744.60] * 36], 400_000.0, 0.0),
                          TaxTerms(0.25, TaxMethod.MACRS_5), 0.0)
    # Month 12: rent 12 x 27,375 = 328,500 against buy 400,000 - 80,000 x 25 % + 12 x 558.45
    # = 386,701.40; month 14: 383,250 against 400,000 - 20,000 - 25 % x 2 x 10,666.67 + 14 x
    # 558.45 = 382,484.97: buying has caught up.
    assert after_tax_breakeven_month(buy, rent) == 14.0


OWNED = OwnedSystems(capex=100_000.0, hardware_capex=100_000.0, operating=np.zeros(37),
                     sale_proceeds=20_000.0)
TAX = TaxTerms(0.25, TaxMethod.STRAIGHT_LINE, 36)


def test_cash_loan_and_operating_lease_side_by_side() -> None:
    paid_cash = cash(OWNED, TAX, 0.0).flows
    borrowed = loan(OWNED, Loan(1.0, 0.06, 36), TAX, 0.0).flows
    leased = operating_lease(OWNED, Lease(2_500.0, 36), TAX, 0.0).flows
    # Cash: 100,000 now, 20,000 back at month 36; after tax: 25 % of the 80,000 net is shielded.
    assert paid_cash.total_pre_tax == pytest.approx(80_000.0)
    assert paid_cash.total_after_tax == pytest.approx(60_000.0)
    # Loan: 36 payments of 3,042.19 (100,000 at 6 %/12 a month), interest 9,518.95 deductible.
    assert borrowed.pre_tax[1] == pytest.approx(3_042.19, abs=0.005)
    assert borrowed.total_pre_tax == pytest.approx(36 * 3_042.1937 - 20_000, abs=0.01)
    assert borrowed.total_after_tax == pytest.approx(0.75 * borrowed.total_pre_tax, abs=0.01)
    # Operating lease: 36 x 2,500 expensed, nothing back at the end.
    assert leased.total_pre_tax == pytest.approx(90_000.0)
    assert leased.total_after_tax == pytest.approx(67_500.0)


def test_a_finance_lease_is_owned_its_implicit_interest_deductible() -> None:
    lease = Lease(2_900.0, 36, buyout=1_000.0)
    rate = implicit_rate(100_000.0, lease)
    months = np.arange(1, 37)
    worth = (2_900 * (1 + rate) ** -months).sum() + 1_000 * (1 + rate) ** -36
    assert worth == pytest.approx(100_000, abs=1e-6)
    way = finance_lease(OWNED, lease, TAX, 0.0).flows
    assert way.total_pre_tax == pytest.approx(36 * 2_900 + 1_000 - 20_000)
    # Undiscounted, everything paid is deductible in the end: depreciation 100,000 + interest
    # (paid - 100,000) - gain 20,000.
    assert way.total_after_tax == pytest.approx(0.75 * way.total_pre_tax)


def test_an_operating_lease_longer_than_the_horizon_pays_the_rest_at_the_horizon() -> None:
    owned = OwnedSystems(100_000.0, 100_000.0, np.zeros(25), 0.0)
    flows = operating_lease(owned, Lease(2_500.0, 36), TAX, 0.0).flows
    assert flows.pre_tax[24] == pytest.approx(2_500.0 * 13)
    assert flows.total_pre_tax == pytest.approx(90_000.0)


@pytest.mark.parametrize(("terms", "path", "message"), [
    (TaxTerms(1.5), "tax.rate", "must be in [0.0, 1.0]"),
    (TaxTerms(0.2, TaxMethod.STRAIGHT_LINE, 30), "tax.life_months", "must be a whole multiple of 12 (12, 24"),
    (TaxTerms(0.2, TaxMethod.DECLINING_BALANCE, 60, 4.0), "tax.declining_balance_factor",
     "must be in [1.0, 3.0]"),
])
def test_bad_tax_terms_are_refused_naming_the_field(terms, path, message) -> None:
    with pytest.raises(InputError) as refused:
        terms.check()
    assert refused.value.path == path
    assert refused.value.message.startswith(message)
