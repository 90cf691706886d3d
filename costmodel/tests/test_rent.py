"""Rent cash flows: pricing models, up-front fees, price changes, data charges."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from numpy.testing import assert_allclose

from costmodel import Finance
from costmodel import RentOption
from costmodel import Workload
from costmodel import evaluate
from costmodel.rent import data_usd_per_month
from costmodel.rent import instances_needed
from costmodel.rent import usage_cost_usd
from costmodel.tests.scenarios import flat_scenario


def _rent_lines(option: RentOption, *, utilisation: float = 1.0, horizon_months: float = 36.0) -> dict:
    scenario = flat_scenario(
        rent=(option,), finance=Finance(horizon_months=horizon_months, discount_rate_per_year=0.0)
    )
    scenario = replace(scenario, workload=replace(scenario.workload, utilisation=utilisation))
    return evaluate(scenario, recommend=False).rent[0].cash_flows.lines_usd


def test_eight_days_of_a_p4d_24xlarge_cost_6291_84_and_2227_20() -> None:
    # Seed 004: 8 days x 24 h = 192 h; 192 x $32.77 = $6,291.84; 192 x $11.60 = $2,227.20
    assert_allclose(usage_cost_usd(1, [32.77, 11.60], 8 * 24), [6291.84, 2227.20])


def test_the_engine_bills_eight_days_of_a_p4d_at_6291_84() -> None:
    scenario = flat_scenario(
        workload=Workload(accelerators=8.0, utilisation=1.0, hours_per_month=192.0),
        rent=(
            RentOption("p4d.24xlarge", "on_demand", 32.77, 8.0),
            RentOption("cheaper", "on_demand", 11.60, 8.0),
        ),
        finance=Finance(horizon_months=1.0, discount_rate_per_year=0.0),
    )
    result = evaluate(scenario, recommend=False)
    assert_allclose([option.total_usd for option in result.rent], [6291.84, 2227.20])


def test_instances_round_up_to_hold_every_accelerator() -> None:
    # 20 accelerators on 8-accelerator instances: 3 instances
    assert instances_needed(20, 8) == 3
    assert instances_needed(16, 8) == 2


def test_on_demand_billed_for_use_pays_only_the_used_hours() -> None:
    # Issue 23: on-demand is billed for every hour held unless the option says "used"; this
    # test (written when use was the only basis) now names the basis it checks.
    lines = _rent_lines(RentOption("od", "on_demand", 98.32, 8.0, billing_basis="used"), utilisation=0.25)
    # 32 instances x $98.32 x 730 h x 0.25 = $574,188.80 a month
    assert lines["compute"][0] == 0.0
    assert_allclose(lines["compute"][1:], 574_188.80)


def test_on_demand_pays_every_hour_held_by_default() -> None:
    held = _rent_lines(RentOption("od", "on_demand", 98.32, 8.0), utilisation=0.25)
    explicit = _rent_lines(RentOption("od", "on_demand", 98.32, 8.0, billing_basis="held"), utilisation=0.25)
    # 32 instances x $98.32 x 730 h = $2,296,755.20 a month, busy or idle
    assert_allclose(held["compute"][1:], 2_296_755.20)
    assert_allclose(explicit["compute"], held["compute"])


def test_spot_held_pays_every_hour_and_no_interruption_overhead() -> None:
    lines = _rent_lines(RentOption("spot", "spot", 35.0, 8.0, spot_interruption_overhead=0.1,
                                   billing_basis="held"), utilisation=0.5)
    # 32 x $35 x 730 h = $817,600 a month: the held hours already cover the re-runs
    assert_allclose(lines["compute"][1:], 817_600.0)


def test_reserved_pays_every_hour_whatever_the_utilisation() -> None:
    option = RentOption("1y", "reserved", 57.63, 8.0, commitment_months=12.0)
    busy = _rent_lines(option, utilisation=1.0)
    idle = _rent_lines(option, utilisation=0.25)
    # 32 x $57.63 x 730 h = $1,346,236.80 a month either way
    assert_allclose(busy["compute"][1:], 1_346_236.80)
    assert_allclose(idle["compute"], busy["compute"])


def test_spot_adds_the_interruption_overhead_to_the_used_hours() -> None:
    lines = _rent_lines(
        RentOption("spot", "spot", 35.0, 8.0, spot_interruption_overhead=0.1), utilisation=0.5
    )
    # 32 x $35 x 730 h x 0.5 x 1.1 = $449,680 a month
    assert_allclose(lines["compute"][1:], 449_680.0)


def test_reserved_upfront_is_paid_at_the_start_of_each_term_before_the_horizon() -> None:
    option = RentOption("1y", "reserved", 10.0, 8.0, commitment_months=12.0, upfront_usd_per_instance=1000.0)
    upfront = _rent_lines(option, horizon_months=30.0)["upfront"]
    # terms start at months 0, 12 and 24 (a term at 36 would start after the horizon); 32 x $1,000 each
    assert np.flatnonzero(upfront).tolist() == [0, 12, 24]
    assert_allclose(upfront[[0, 12, 24]], 32_000.0)
    assert _rent_lines(option, horizon_months=24.0)["upfront"].nonzero()[0].tolist() == [0, 12]


def test_on_demand_prices_fall_each_calendar_year() -> None:
    option = RentOption("od", "on_demand", 10.0, 8.0, price_change_per_year=-0.1)
    compute = _rent_lines(option)["compute"]
    # 32 x $10 x 730 = $233,600 in year 1, x 0.9 in year 2, x 0.81 in year 3
    assert_allclose(
        compute[[1, 12, 13, 24, 25, 36]], [233_600.0, 233_600.0, 210_240.0, 210_240.0, 189_216.0, 189_216.0]
    )


def test_reserved_prices_stay_locked_for_the_whole_term() -> None:
    option = RentOption("3y", "reserved", 10.0, 8.0, commitment_months=36.0, price_change_per_year=-0.1)
    compute = _rent_lines(option, horizon_months=48.0)["compute"]
    # months 1..36 at the year-0 price; the renewal at month 37 starts in year 3: x 0.9^3 = 0.729
    assert_allclose(compute[1:37], 233_600.0)
    assert_allclose(compute[37:], 233_600.0 * 0.729)


def test_egress_and_storage_are_priced_per_gb_at_1000_gb_per_tb() -> None:
    # 50 TB x 1,000 GB x $0.09 = $4,500; 200 TB x 1,000 x $0.023 = $4,600
    assert_allclose(data_usd_per_month(50.0, 0.09), 4500.0)
    option = RentOption(
        "od",
        "on_demand",
        10.0,
        8.0,
        egress_tb_per_month=50.0,
        egress_usd_per_gb=0.09,
        storage_tb=200.0,
        storage_usd_per_gb_month=0.023,
        price_change_per_year=-0.5,
    )
    lines = _rent_lines(option)
    # data charges do not follow the instance price change
    assert_allclose(lines["egress"][1:], 4500.0)
    assert_allclose(lines["storage"][1:], 4600.0)
    assert lines["egress"][0] == lines["storage"][0] == 0.0


def test_rent_lines_stop_at_the_horizon_of_each_scenario_in_a_batch() -> None:
    scenario = flat_scenario(
        finance=Finance(horizon_months=np.array([12.0, 24.0]), discount_rate_per_year=0.0)
    )
    result = evaluate(scenario, recommend=False)
    compute = result.rent[0].cash_flows.lines_usd["compute"]
    assert compute.shape == (2, 25)
    assert (compute[0, 13:] == 0.0).all() and (compute[1, 1:] > 0.0).all()
    # 12 and 24 months of 32 x $98.32 x 730 = $2,296,755.20
    assert_allclose(result.rent[0].total_usd, [12 * 2_296_755.20, 24 * 2_296_755.20])
