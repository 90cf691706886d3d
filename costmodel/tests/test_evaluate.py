"""End-to-end evaluation: hand-checkable totals, breakevens, unit costs, batches and output forms."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import numpy_financial as npf
import pytest
from numpy.testing import assert_allclose
from numpy.testing import assert_array_equal

from costmodel import Finance
from costmodel import RentOption
from costmodel import Workload
from costmodel import evaluate
from costmodel import with_overrides
from costmodel.tests.scenarios import flat_scenario
from costmodel.tests.scenarios import rich_scenario

# flat_scenario: capex 32 x $300,000; buy runs at $23,827.20 a month, rent at $2,296,755.20.
CAPEX_USD = 9_600_000.0
BUY_USD_PER_MONTH = 23_827.20
RENT_USD_PER_MONTH = 2_296_755.20


def test_totals_of_the_flat_scenario_match_hand_computation() -> None:
    result = evaluate(flat_scenario(), recommend=False)
    # buy: 9,600,000 + 36 x 23,827.20 = 10,457,779.20; rent: 36 x 2,296,755.20 = 82,683,187.20
    assert_allclose(result.buy.total_usd, CAPEX_USD + 36 * BUY_USD_PER_MONTH)
    assert_allclose(result.rent[0].total_usd, 36 * RENT_USD_PER_MONTH)
    assert_allclose(result.rent[0].saving_usd, 36 * RENT_USD_PER_MONTH - CAPEX_USD - 36 * BUY_USD_PER_MONTH)
    # discount rate 0: NPV = total
    assert_allclose(result.rent[0].npv_saving_usd, result.rent[0].saving_usd)
    assert_allclose(result.buy.cash_flows.cumulative_usd[-1], result.buy.total_usd)
    assert_allclose(result.buy.cash_flows.cumulative_usd[0], CAPEX_USD)


def test_breakeven_month_of_a_constant_cost_case_is_capex_over_monthly_saving_rounded_up() -> None:
    result = evaluate(flat_scenario(), recommend=False)
    # ceil(9,600,000 / (2,296,755.20 - 23,827.20)) = ceil(4.2236) = 5
    assert (
        result.rent[0].breakeven_month == math.ceil(CAPEX_USD / (RENT_USD_PER_MONTH - BUY_USD_PER_MONTH)) == 5
    )


def test_breakeven_month_agrees_with_the_closed_form_over_many_rent_prices() -> None:
    prices = np.linspace(5.0, 150.0, 30)
    result = evaluate(
        with_overrides(flat_scenario(), {"rent.0.price_usd_per_instance_hour": prices}), detail=False
    )
    monthly_saving = 32 * prices * 730 - BUY_USD_PER_MONTH
    assert (monthly_saving > 0).all()
    expected = np.where(CAPEX_USD / monthly_saving <= 36, np.ceil(CAPEX_USD / monthly_saving), np.nan)
    assert_array_equal(result.rent[0].breakeven_month, expected)


def test_buying_never_breaks_even_against_a_cheap_enough_offer() -> None:
    cheap = RentOption("cheap", "on_demand", price_usd_per_instance_hour=1.0, accelerators_per_instance=8.0)
    result = evaluate(flat_scenario(rent=(cheap,)), recommend=False)
    # rent 32 x $1 x 730 = $23,360 a month < buy's $23,827.20 before counting capex
    assert math.isnan(result.rent[0].breakeven_month)
    assert math.isnan(result.rent[0].irr_per_year)
    assert result.summary()["cheap"]["winner"] == "rent"
    assert result.to_dict()["rent"][0]["breakeven_month"] is None


def test_breakeven_utilisation_is_where_the_rent_bill_equals_the_buy_total() -> None:
    result = evaluate(flat_scenario(), recommend=False)
    # buy does not depend on utilisation (idle = max); rent is linear in it:
    # u x 82,683,187.20 = 10,457,779.20 -> u = 0.126480...
    expected = (CAPEX_USD + 36 * BUY_USD_PER_MONTH) / (36 * RENT_USD_PER_MONTH)
    assert_allclose(result.rent[0].breakeven_utilisation, expected)
    at_breakeven = evaluate(
        replace(flat_scenario(), workload=replace(flat_scenario().workload, utilisation=expected)),
        recommend=False,
    )
    assert_allclose(at_breakeven.rent[0].saving_usd, 0.0, atol=1e-6)


def test_cost_per_useful_accelerator_hour_of_both_options() -> None:
    result = evaluate(flat_scenario(), recommend=False)
    useful_hours = 256 * 730 * 1.0 * 36  # 6,727,680 accelerator-hours
    # rent: $98.32 per 8-accelerator hour = $12.29; buy: 10,457,779.20 / 6,727,680 = $1.5544
    assert_allclose(result.rent[0].cost_per_useful_accelerator_hour_usd, 12.29)
    assert_allclose(
        result.buy.cost_per_useful_accelerator_hour_usd, (CAPEX_USD + 36 * BUY_USD_PER_MONTH) / useful_hours
    )
    assert math.isnan(result.rent[0].cost_per_million_tokens_usd)


def test_an_a100_at_1_07_an_hour_serving_520_tokens_a_second_costs_0_57_per_million_tokens() -> None:
    scenario = flat_scenario(
        workload=Workload(accelerators=1.0, utilisation=1.0, tokens_per_s_per_accelerator=520.0),
        rent=(
            RentOption(
                "spheron-a100", "on_demand", price_usd_per_instance_hour=1.07, accelerators_per_instance=1.0
            ),
        ),
    )
    option = evaluate(scenario, recommend=False).rent[0]
    # seed 003: 1.07 / (520 x 3,600) x 10^6 = $0.5716
    assert_allclose(option.cost_per_useful_accelerator_hour_usd, 1.07)
    assert_allclose(option.cost_per_million_tokens_usd, 1.07 / (520 * 3600) * 1e6)
    assert round(float(option.cost_per_million_tokens_usd), 2) == 0.57


def test_financing_turns_capex_into_numpy_financial_payments() -> None:
    scenario = flat_scenario()
    financed = replace(
        scenario,
        buy=replace(scenario.buy, financed_share=1.0, loan_rate_per_year=0.06, loan_term_months=36.0),
    )
    lines = evaluate(financed, recommend=False).buy.cash_flows.lines_usd
    assert lines["capex_systems"][0] == 0.0
    assert_allclose(lines["loan_payments"][1:], -npf.pmt(0.06 / 12, 36, CAPEX_USD))
    assert lines["loan_payments"][0] == 0.0


def test_a_loan_outliving_the_horizon_is_paid_off_at_the_horizon() -> None:
    scenario = flat_scenario()
    loan_rate = 0.06
    financed = replace(
        scenario,
        buy=replace(scenario.buy, financed_share=0.5, loan_rate_per_year=loan_rate, loan_term_months=60.0),
        # discounting at the loan's own effective rate values every loan schedule at its principal
        finance=Finance(horizon_months=36.0, discount_rate_per_year=(1 + loan_rate / 12) ** 12 - 1),
    )
    result = evaluate(financed, recommend=False)
    loan = result.buy.cash_flows.lines_usd["loan_payments"]
    payment = -npf.pmt(loan_rate / 12, 60, 0.5 * CAPEX_USD)
    assert_allclose(loan[1:36], payment)
    assert loan[36] > payment  # last payment plus the balance still owed
    factors = (1 + loan_rate / 12) ** -np.arange(37)
    assert_allclose(loan @ factors, 0.5 * CAPEX_USD)


def test_residual_value_comes_back_at_the_horizon() -> None:
    scenario = flat_scenario()
    result = evaluate(
        replace(scenario, buy=replace(scenario.buy, residual_value_share=0.25)), recommend=False
    )
    residual = result.buy.cash_flows.lines_usd["residual_value"]
    # 25 % of $9.6M of systems, as a negative cost at month 36
    assert np.flatnonzero(residual).tolist() == [36]
    assert_allclose(residual[36], -2_400_000.0)


def test_depreciation_is_reported_but_not_part_of_cash_totals() -> None:
    result = evaluate(
        flat_scenario(finance=Finance(horizon_months=72.0, discount_rate_per_year=0.0)), recommend=False
    )
    # $9.6M over 60 months = $160,000 a month for months 1..60
    assert_allclose(result.buy.depreciation_usd_per_month, 160_000.0)
    assert_allclose(result.buy.depreciation_line_usd.sum(), CAPEX_USD)
    assert result.buy.depreciation_line_usd[61:].sum() == 0.0
    assert "depreciation" not in result.buy.cash_flows.lines_usd
    assert_allclose(result.buy.total_usd, CAPEX_USD + 72 * BUY_USD_PER_MONTH)


def test_every_buy_line_is_named_and_they_add_up_to_the_total() -> None:
    result = evaluate(rich_scenario(), recommend=False)
    lines = result.buy.cash_flows.lines_usd
    assert set(lines) == {
        "capex_systems",
        "capex_network",
        "capex_storage",
        "capex_racks_install",
        "capex_spares",
        "capex_cooling_plant",
        "capex_facility_buildout",
        "capex_import_duty_vat",
        "energy",
        "colocation",
        "owned_facility",
        "cooling_plant_opex",
        "support",
        "staff",
        "licences",
        "loan_payments",
        "residual_value",
        "carbon",
    }
    assert_allclose(sum(lines.values()), result.buy.cash_flows.per_month_usd)
    assert all(
        option.cash_flows.lines_usd.keys() == {"compute", "upfront", "egress", "storage", "carbon"}
        for option in result.rent
    )


def test_a_grid_of_3_by_4_gives_3_by_4_summaries_and_3_by_4_by_months_lines() -> None:
    utilisation, price = np.meshgrid([0.3, 0.6, 0.9], [0.05, 0.1, 0.2, 0.4], indexing="ij", sparse=True)
    grid = with_overrides(
        rich_scenario(), {"workload.utilisation": utilisation, "facility.electricity_usd_per_kwh": price}
    )
    result = evaluate(grid)
    assert result.batch_shape == (3, 4)
    assert result.recommendation is None
    for figures in result.summary().values():
        assert all(np.shape(values) == (3, 4) for values in figures.values())
    assert result.buy.cash_flows.lines_usd["energy"].shape == (3, 4, 61)
    assert result.rent[0].cash_flows.cumulative_usd.shape == (3, 4, 61)
    # each grid point equals the scenario evaluated on its own
    single = evaluate(
        with_overrides(
            rich_scenario(), {"workload.utilisation": 0.6, "facility.electricity_usd_per_kwh": 0.2}
        ),
        recommend=False,
    )
    assert_allclose(result.buy.total_usd[1, 2], single.buy.total_usd)
    for option, alone in zip(result.rent, single.rent, strict=True):
        assert_allclose(option.npv_saving_usd[1, 2], alone.npv_saving_usd)
        assert_array_equal(option.breakeven_month[1, 2], alone.breakeven_month)
        assert_allclose(option.irr_per_year[1, 2], alone.irr_per_year)


def test_a_single_scenario_gives_scalars() -> None:
    result = evaluate(rich_scenario())
    assert result.batch_shape == ()
    assert np.shape(result.buy.total_usd) == ()
    assert np.shape(result.rent[1].breakeven_month) == ()
    assert result.buy.cash_flows.per_month_usd.shape == (61,)


def test_detail_false_keeps_the_same_figures_without_monthly_arrays() -> None:
    rates = np.array([0.0, 0.05, 0.1])
    scenario = with_overrides(rich_scenario(), {"finance.discount_rate_per_year": rates})
    detailed, lean = evaluate(scenario), evaluate(scenario, detail=False)
    assert lean.buy.cash_flows.lines_usd == {} and lean.rent[0].cash_flows.per_month_usd is None
    for name, figures in detailed.summary().items():
        for key, values in figures.items():
            if key == "winner":
                assert_array_equal(lean.summary()[name][key], values)
            else:
                assert_allclose(lean.summary()[name][key], values, rtol=1e-12)


def test_a_batch_of_horizons_equals_each_horizon_alone() -> None:
    horizons = np.array([12.0, 36.0, 60.0])
    batch = evaluate(with_overrides(rich_scenario(), {"finance.horizon_months": horizons}), recommend=False)
    assert batch.months.tolist() == list(range(61))
    for index, horizon in enumerate(horizons):
        alone = evaluate(
            with_overrides(rich_scenario(), {"finance.horizon_months": horizon}), recommend=False
        )
        assert_allclose(batch.buy.total_usd[index], alone.buy.total_usd)
        assert_allclose(batch.buy.npv_usd[index], alone.buy.npv_usd)
        for option, single in zip(batch.rent, alone.rent, strict=True):
            assert_allclose(option.total_usd[index], single.total_usd)
            assert_array_equal(option.breakeven_month[index], single.breakeven_month)
            assert_allclose(option.breakeven_utilisation[index], single.breakeven_utilisation, equal_nan=True)


def test_to_dict_of_one_scenario_is_json_with_none_for_nan() -> None:
    result = evaluate(rich_scenario())
    payload = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert payload["recommendation"] == result.recommendation
    assert len(payload["buy"]["cash_flows"]["lines_usd"]["energy"]) == 61
    assert payload["footprint"]["cooling_tier_name"] == "rear-door heat exchanger"
    assert payload["summary"]["spot"]["winner"] in {"buy", "rent"}
    assert payload["rent"][1]["breakeven_utilisation"] is None  # reserved: never crosses


def test_to_dict_refuses_a_batch_of_many() -> None:
    with pytest.raises(ValueError, match="batch of one"):
        evaluate(with_overrides(rich_scenario(), {"workload.utilisation": np.array([0.5, 0.6])})).to_dict()


def test_a_single_scenario_gets_a_recommendation_naming_what_moves_it() -> None:
    result = evaluate(rich_scenario())
    # Issue 23: the recommendation opens with the verdict's sentence ("Buy is the cheapest ...").
    assert result.recommendation.startswith(result.verdict.sentence()[:-1])
    assert result.recommendation.startswith(("Buy is the cheapest", "Rent "))
    assert "moves most with" in result.recommendation
    assert evaluate(rich_scenario(), recommend=False).recommendation is None
