"""Power, energy, rack density, cooling tier and the fleet footprint."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from numpy.testing import assert_allclose
from numpy.testing import assert_array_equal

from costmodel import CoolingTier
from costmodel import evaluate
from costmodel.footprint import accelerators_to_buy
from costmodel.footprint import fleet_footprint
from costmodel.footprint import systems_needed
from costmodel.power import average_power_kw
from costmodel.power import cooling_tier_index
from costmodel.power import densest_rack_kw
from costmodel.power import energy_cost_usd
from costmodel.power import facility_power_kw
from costmodel.power import racks_needed
from costmodel.power import systems_per_rack
from costmodel.tests.scenarios import COOLING
from costmodel.tests.scenarios import flat_scenario

SEED_003_LIMITS = [tier.max_kw_per_rack for tier in COOLING]


def test_a_dgx_h100_at_10_2_kw_all_year_costs_8935_20() -> None:
    # 10.2 kW x 8,760 h x $0.10/kWh = $8,935.20 (design doc; seed 002 rounds it to $9,000)
    assert_allclose(energy_cost_usd(facility_power_kw(10.2, 1.0), 8760.0, 0.10), 8935.20)


def test_32_dgx_h100_cost_285926_40_a_year() -> None:
    # 32 x $8,935.20 = $285,926.40 (seed 002: "$288,000")
    assert_allclose(energy_cost_usd(32 * 10.2, 8760.0, 0.10), 285_926.40)


def test_the_engine_bills_the_dgx_pod_285926_40_in_its_first_year() -> None:
    scenario = flat_scenario()
    scenario = replace(scenario, finance=replace(scenario.finance, horizon_months=12.0))
    energy = evaluate(scenario, recommend=False).buy.cash_flows.lines_usd["energy"]
    # 32 systems x 10.2 kW x 730 h x $0.10 = $23,827.20 a month, 12 months
    assert_allclose(energy[1:], 23_827.20)
    assert_allclose(energy.sum(), 285_926.40)


def test_average_draw_moves_from_idle_to_max_with_utilisation() -> None:
    # idle 2 kW + (10 - 2) x 0.5 = 6 kW
    assert_allclose(average_power_kw(2.0, 10.0, [0.0, 0.5, 1.0]), [2.0, 6.0, 10.0])


def test_pue_scales_it_power_to_facility_power() -> None:
    # 10.2 kW x 1.3 = 13.26 kW
    assert_allclose(facility_power_kw(10.2, 1.3), 13.26)


def test_systems_per_rack_is_limited_by_power_when_the_kw_budget_is_tight() -> None:
    # 40 kW / 10.2 kW = 3.9 -> 3 systems; 42 U / 8 U = 5 would fit
    assert systems_per_rack(40.0, 10.2, 42.0, 8.0) == 3


def test_systems_per_rack_is_limited_by_units_when_the_rack_is_short() -> None:
    # 100 kW / 10.2 kW = 9.8 -> 9 would fit; 24 U / 8 U = 3 systems
    assert systems_per_rack(100.0, 10.2, 24.0, 8.0) == 3


def test_four_systems_exactly_filling_the_rack_budget_still_fit() -> None:
    # 4 x 10.2 = 40.8 kW; floating-point division gives 3.9999999999999996
    assert systems_per_rack(40.8, 10.2, 42.0, 8.0) == 4


def test_racks_and_densest_rack_follow_systems_per_rack() -> None:
    # 10 systems, 4 per rack -> 3 racks; the full ones draw 4 x 10.2 = 40.8 kW
    assert racks_needed(10, 4) == 3
    assert_allclose(densest_rack_kw(10, 4, 10.2), 40.8)
    # 2 systems never fill a rack of 4: 2 x 10.2 = 20.4 kW
    assert_allclose(densest_rack_kw(2, 4, 10.2), 20.4)


def test_cooling_tier_boundaries_belong_to_the_lower_tier() -> None:
    densities = [10.0, 15.0, 15.01, 30.0, 30.01, 50.0, 50.01, 150.0, 150.01, 200.0, 200.01, 1000.0]
    expected = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    assert cooling_tier_index(densities, SEED_003_LIMITS).tolist() == expected


def test_direct_to_chip_handles_120_kw_before_immersion_does() -> None:
    # Seed 003: direct-to-chip 50-150 and single-phase immersion 100-200 overlap; the first tier wins.
    assert COOLING[int(cooling_tier_index(120.0, SEED_003_LIMITS))].name == "direct-to-chip liquid"


def test_cooling_tier_accepts_per_scenario_tier_limits() -> None:
    limits = [np.array([15.0, 20.0]), 30.0, math.inf]
    # 18 kW: above 15 (tier 1) in the first scenario, within 20 (tier 0) in the second
    assert cooling_tier_index(18.0, limits).tolist() == [1, 0]


def test_new_cooling_plant_is_bought_only_above_the_existing_cooling() -> None:
    scenario = flat_scenario()
    # 4 x 10.2 = 40.8 kW/rack -> rear-door tier (index 2): $600/kW x 326.4 kW = $195,840
    with_air_only = replace(
        scenario, facility=replace(scenario.facility, existing_cooling_max_kw_per_rack=15.0)
    )
    result = evaluate(with_air_only, recommend=False)
    assert result.footprint.cooling_tier_name == "rear-door heat exchanger"
    assert_allclose(result.buy.capex_usd["cooling_plant"], 600.0 * 32 * 10.2)
    # its opex: $6/kW-month x 326.4 kW = $1,958.40 a month
    assert_allclose(result.buy.cash_flows.lines_usd["cooling_plant_opex"][1], 6.0 * 326.4)
    already_cooled = evaluate(scenario, recommend=False)
    assert already_cooled.buy.capex_usd["cooling_plant"] == 0.0
    assert not already_cooled.footprint.needs_new_cooling


def test_a_system_too_hungry_for_the_rack_is_flagged_and_racked_alone() -> None:
    scenario = flat_scenario()
    scenario = replace(scenario, facility=replace(scenario.facility, rack_power_limit_kw=8.0))
    footprint = evaluate(scenario, recommend=False).footprint
    assert footprint.systems_per_rack == 0
    assert footprint.warnings["system_does_not_fit_rack"]
    assert footprint.warnings["exceeds_rack_power_limit"]
    assert footprint.racks == 32


def test_a_density_beyond_the_last_tier_is_flagged_and_costed_at_the_last_tier() -> None:
    scenario = flat_scenario()
    capped_table = (CoolingTier("air", 15.0, 0.0, 0.0), CoolingTier("in-row", 30.0, 400.0, 4.0))
    footprint = evaluate(replace(scenario, cooling=capped_table), recommend=False).footprint
    assert footprint.warnings["exceeds_cooling_table"]
    assert footprint.cooling_tier_index == 1


def test_a_power_cap_buys_more_systems_instead_of_losing_work() -> None:
    # 256 accelerators / (1 - 0.2) = 320 -> 40 systems of 8; each capped to 10.2 x 0.7 = 7.14 kW
    assert_allclose(accelerators_to_buy(256.0, 0.2), 320.0)
    assert systems_needed(320.0, 8.0) == 40
    scenario = flat_scenario()
    capped = replace(scenario, buy=replace(scenario.buy, power_cap_share=0.7, power_cap_throughput_loss=0.2))
    footprint = fleet_footprint(capped.workload, capped.buy, capped.facility, capped.cooling)
    assert footprint.systems == 40
    assert_allclose(footprint.system_power_max_kw, 7.14)
    # 45 kW / 7.14 kW = 6.3 -> 6 per rack (units allow 5) -> 5 per rack, 8 racks
    assert footprint.systems_per_rack == 5
    assert footprint.racks == 8
    assert_allclose(footprint.it_kw_max, 40 * 7.14)


def test_fleet_sizing_forgives_floating_point_noise() -> None:
    # 56 / (1 - 0.3) = 80.00000000000001 accelerators -> 10 systems of 8, not 11
    assert systems_needed(accelerators_to_buy(56.0, 0.3), 8.0) == 10


def test_power_functions_broadcast_over_a_grid() -> None:
    utilisation, pue = np.meshgrid([0.0, 0.5, 1.0], [1.0, 1.5], indexing="ij", sparse=True)
    facility_kw = facility_power_kw(average_power_kw(2.0, 10.0, utilisation), pue)
    # (2 + 8u) x PUE
    assert_array_equal(facility_kw, [[2.0, 3.0], [6.0, 9.0], [10.0, 15.0]])
