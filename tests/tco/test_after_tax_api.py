"""After-tax figures and the ways to pay through the API, on the hand-checkable scenario.

Buying: $400,000 at month 0, then $744.60 of energy a month; renting: $36,500 a month; 36
months, no discounting, no residual value. At a 25 % tax rate on MACRS 5-year:
- rent after tax: 0.75 x 36 x 36,500 = $985,500.00;
- buy: tax depreciation of the first three years 20 % + 32 % + 19.2 % = 71.2 % = $284,800,
  the remaining $115,200 written off at the sale (for nothing) at month 36; the energy
  0.25 x 36 x 744.60 = $6,701.40 shielded: shield $106,701.40, after tax $320,104.20
  (= 0.75 x 426,805.60).
"""
from __future__ import annotations

import pytest

from tests.tco.scenario_body import scenario_body


def evaluate(api, **overrides) -> dict:
    response = api.post("/api/v1/evaluate/", scenario_body(**overrides), content_type="application/json")
    assert response.status_code == 200, response.json()
    return response.json()


def test_after_tax_figures_with_macrs_5(api, catalog):
    data = evaluate(api, tax_rate="0.25", tax_depreciation="macrs_5")["after_tax"]
    assert data["tax_depreciation_shares_by_year"] == [0.2, 0.32, 0.192, 0.1152, 0.1152, 0.0576]
    assert data["rent"][0]["total_after_tax_usd"] == pytest.approx(985_500.00, abs=0.01)
    assert data["buy"]["total_pre_tax_usd"] == pytest.approx(426_805.60, abs=0.01)
    assert data["buy"]["tax_shield_usd"] == pytest.approx(106_701.40, abs=0.01)
    assert data["buy"]["total_after_tax_usd"] == pytest.approx(320_104.20, abs=0.01)
    assert data["tax_depreciation_usd"][1] == pytest.approx(80_000 / 12, abs=0.01)
    assert data["book_depreciation_usd"][1] == pytest.approx(400_000 / 60, abs=0.01)
    assert "month 0 undiscounted" in data["convention"]


def test_an_operating_lease_against_a_loan_and_cash(api, catalog):
    data = evaluate(api, tax_rate="0.25", tax_depreciation="straight_line",
                    tax_depreciation_months=36, financed_share="1", loan_rate_per_year="0.06",
                    loan_term_months=36, operating_lease_usd_per_month="12000",
                    operating_lease_term_months=36)
    ways = {way["way"]: way for way in data["after_tax"]["ways_to_pay"]}
    assert list(ways) == ["cash", "loan", "operating_lease"]
    energy = 36 * 744.60
    assert ways["cash"]["total_pre_tax_usd"] == pytest.approx(400_000 + energy, abs=0.01)
    # 400,000 at 0.5 % a month over 36 months: 12,168.775 a month (plus the energy).
    assert ways["loan"]["pre_tax_per_month_usd"][1] == pytest.approx(12_168.775 + 744.60, abs=0.006)
    assert ways["loan"]["total_pre_tax_usd"] == pytest.approx(data["after_tax"]["buy"]["total_pre_tax_usd"],
                                                              abs=0.01)
    assert ways["operating_lease"]["total_pre_tax_usd"] == pytest.approx(36 * 12_000 + energy, abs=0.01)
    # Undiscounted and fully deducted within the horizon, every way costs 75 % after tax.
    for way in ways.values():
        assert way["total_after_tax_usd"] == pytest.approx(0.75 * way["total_pre_tax_usd"], abs=0.01)


@pytest.mark.parametrize(("overrides", "field"), [
    ({"tax_rate": "1.5"}, "tax_rate"),
    ({"tax_depreciation": "sum_of_years"}, "tax_depreciation"),
    ({"tax_depreciation_months": 30}, "tax_depreciation_months"),
])
def test_bad_tax_input_is_refused_naming_the_field(api, catalog, overrides, field):
    response = api.post("/api/v1/evaluate/", scenario_body(**overrides), content_type="application/json")
    assert response.status_code == 400
    assert field in response.json()
