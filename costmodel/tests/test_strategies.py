"""Strategies over time on the engine: a worked example to the cent, the old contract's exit,
forward renewals and strategies listed with the reason they could not be costed."""

from __future__ import annotations

from dataclasses import replace

import pytest

from costmodel import Finance
from costmodel import InputError
from costmodel import Workload
from costmodel.market_resale import MarketResale
from costmodel.strategies import Mix
from costmodel.strategies import NextGeneration
from costmodel.strategies import StrategyInputs
from costmodel.strategies import evaluate_strategies
from costmodel.term_structure import TermPrice
from costmodel.term_structure import TermStructure
from costmodel.tests.scenarios import flat_scenario

TWO_TERMS = TermStructure((TermPrice("on_demand", 2.50), TermPrice("12", 2.00)))
TWICE_AS_FAST = NextGeneration("next", available_month=12.0, system_price_usd=200_000.0, throughput_ratio=2.0)


def _inputs(**changes) -> StrategyInputs:
    """16 accelerators busy every hour for 24 months, undiscounted; systems of 8 at $200,000 drawing
    10.2 kW at $0.10/kWh, nothing else costed (``flat_scenario``)."""
    scenario = flat_scenario(workload=Workload(16.0, 1.0), finance=Finance(24.0, 0.0))
    scenario = replace(scenario, buy=replace(scenario.buy, system_price_usd=200_000.0))
    return replace(StrategyInputs(scenario, TWO_TERMS, TWICE_AS_FAST, Mix("12", 0.75)), **changes)


def _cents(value) -> float:
    return round(float(value), 2)


def test_each_strategy_costs_the_worked_example_to_the_cent_and_waiting_is_their_difference() -> None:
    # Renting 16 accelerators 730 h a month: 11,680 accelerator-hours a month.
    # Buy now: 2 systems x $200,000 = $400,000 at month 0, power 2 x 10.2 kW x 730 h x $0.10 =
    #   $1,489.20 a month for 24 months = $35,740.80: $435,740.80.
    # Lock 12 months, renewed at the (flat) forward price: 11,680 x $2.00 x 24 = $560,640.00.
    # On demand: 11,680 x $2.50 x 24 = $700,800.00.
    # Next generation at month 12, twice the throughput at the same price: 12 months on the
    #   12-month term, 11,680 x $2.00 x 12 = $280,320.00, then 16 / 2 = 8 accelerators: 1 system
    #   at $200,000 and its power 10.2 x 730 x 0.10 = $744.60 for 12 months = $8,935.20:
    #   $489,255.20.
    # Mix, 75 % of the peak on 12 months: 12 x 730 x $2.00 x 24 = $420,480.00 plus the other 4 on
    #   demand, 4 x 730 x $2.50 x 24 = $175,200.00: $595,680.00.
    verdict = evaluate_strategies(_inputs())
    totals = {cost.key: _cents(cost.total_usd) for cost in verdict.strategies}
    assert totals == {
        "buy_now": 435_740.80,
        "next_generation": 489_255.20,
        "lock_12": 560_640.00,
        "mix": 595_680.00,
        "on_demand": 700_800.00,
    }
    assert {cost.key: _cents(cost.npv_usd) for cost in verdict.strategies} == totals  # undiscounted
    assert verdict.winner.key == "buy_now"
    assert _cents(verdict.margin_usd) == 53_514.40  # $489,255.20 - $435,740.80
    # Waiting costs what the next generation's way costs more than buying now.
    assert _cents(verdict.value_of_waiting_usd) == round(435_740.80 - 489_255.20, 2) == -53_514.40
    assert "Waiting 12 months to buy next instead of buying now costs $53,514.40." in verdict.sentence
    lines = verdict.strategy("next_generation").lines_usd
    assert _cents(lines["buy next generation"][12]) == 200_000.00
    assert _cents(lines["rent 12 months"][12]) == 23_360.00 and _cents(lines["rent 12 months"][13]) == 0.0


def test_the_bridge_pays_the_old_contracts_exit_and_takes_the_term_only_when_it_is_cheaper() -> None:
    # Next generation at month 6. On demand for 6 months: 11,680 x $2.50 x 6 = $175,200.00.
    # The 12-month term: 6 months paid, $140,160.00, and leaving it at month 6 pays its other 6
    # months, $140,160.00: $280,320.00, so the bridge is on demand.
    at_six = replace(TWICE_AS_FAST, available_month=6.0)
    verdict = evaluate_strategies(_inputs(next_generation=at_six))
    lines = verdict.strategy("next_generation").lines_usd
    assert set(lines) == {"rent on demand", "buy next generation"}
    assert _cents(lines["rent on demand"].sum()) == 175_200.00
    # A contract that can be left for 20 % of what remains: $140,160.00 + $28,032.00 = $168,192.00.
    verdict = evaluate_strategies(_inputs(next_generation=at_six, exit_share=0.2))
    lines = verdict.strategy("next_generation").lines_usd
    assert _cents(lines["rent 12 months"].sum()) == 140_160.00
    assert _cents(lines["contract exit"][6]) == 28_032.00 == _cents(lines["contract exit"].sum())


def test_a_renewal_is_priced_at_the_forward_price_of_its_start() -> None:
    # The 12-month term at $2.00 today and $2.40 for a contract starting at month 12:
    # 11,680 x 12 x ($2.00 + $2.40) = $616,704.00.
    rising = TermStructure((TermPrice("on_demand", 2.50), TermPrice("12", 2.00, forward=((12.0, 2.40),))))
    verdict = evaluate_strategies(_inputs(terms=rising))
    assert _cents(verdict.strategy("lock_12").total_usd) == 616_704.00


def test_a_strategy_without_its_inputs_is_listed_with_the_reason() -> None:
    only_on_demand = TermStructure((TermPrice("on_demand", 2.50),))
    verdict = evaluate_strategies(_inputs(terms=only_on_demand, next_generation=None, mix=Mix("6", 0.5)))
    reasons = {gap.key: gap.reason for gap in verdict.unavailable}
    assert reasons == {
        "next_generation": "no next generation given: its system price, performance per accelerator "
        "and availability month",
        "lock": "the curve offers no 1 to 36-month term",
        "spot": "no spot price",
        "mix": "the curve does not offer 6 months",
        "buy_now_market": "no market resale given: the systems' useful life and the risk share",
    }
    assert [cost.key for cost in verdict.strategies] == ["buy_now", "on_demand"]
    missing_price = replace(TWICE_AS_FAST, system_price_usd=None, throughput_ratio=None)
    verdict = evaluate_strategies(_inputs(next_generation=missing_price))
    assert {gap.key: gap.reason for gap in verdict.unavailable}["next_generation"] == (
        "next: missing system price, performance per accelerator"
    )
    too_late = replace(TWICE_AS_FAST, available_month=30.0)
    verdict = evaluate_strategies(_inputs(next_generation=too_late))
    assert {gap.key: gap.reason for gap in verdict.unavailable}["next_generation"] == (
        "next arrives at month 30, outside the horizon's months 0 to 23"
    )


def test_a_demand_curve_of_the_wrong_length_or_above_the_fleet_is_refused() -> None:
    with pytest.raises(InputError, match="demand_accelerators: gives 3 months; the horizon has 24"):
        evaluate_strategies(_inputs(demand_accelerators=(1.0, 2.0, 3.0)))
    with pytest.raises(InputError, match="peaks at 20, above the 16 the scenario buys"):
        evaluate_strategies(_inputs(demand_accelerators=(20.0,) * 24))


def test_resale_from_the_rental_market_stands_beside_the_fixed_share() -> None:
    # At month 24 of a 48-month life, 24 months left at $2.50 x 730 h on demand, half kept for
    # risk: $21,900 an accelerator, $175,200 a system of 8 (87.6 % of $200,000). Buying now and
    # selling the 2 systems for that: $435,740.80 - $350,400.00 = $85,340.80.
    verdict = evaluate_strategies(_inputs(market_resale=MarketResale(48.0, 0.5)))
    market = verdict.strategy("buy_now_market")
    assert market.label == "Buy now, resale at the rental market's value (87.6% of the system price)"
    assert _cents(market.total_usd) == 85_340.80
    assert _cents(market.lines_usd["buy"][24]) == 1_489.20 - 350_400.00
    assert _cents(verdict.strategy("buy_now").total_usd) == 435_740.80
