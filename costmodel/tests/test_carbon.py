"""Emissions: energy x grid intensity, embodied emissions, and a carbon price as a cost line."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from numpy.testing import assert_allclose

from costmodel import Carbon
from costmodel import InputError
from costmodel import Workload
from costmodel import evaluate
from costmodel.tests.scenarios import flat_scenario

# flat_scenario: 32 systems of 10.2 kW (idle = max), PUE 1, 730 h a month.
KWH_PER_MONTH = 32 * 10.2 * 730


def _scenario(**carbon):
    base = flat_scenario()
    return flat_scenario(
        workload=Workload(accelerators=256.0, utilisation=1.0, tokens_per_s_per_accelerator=1000.0),
        facility=replace(base.facility, grid_kg_co2e_per_kwh=0.373),
        buy=replace(base.buy, embodied_kg_co2e_per_system=2_500.0),
        carbon=Carbon(**carbon),
    )


def test_carbon_per_year_equals_energy_times_intensity() -> None:
    result = evaluate(_scenario(), recommend=False)
    mwh_per_year = float(result.footprint.mwh_per_year)
    assert_allclose(result.buy.carbon.tonnes_per_year, mwh_per_year * 0.373)
    assert_allclose(result.buy.carbon.tonnes_per_year, KWH_PER_MONTH * 12 * 0.373 / 1000)
    assert_allclose(result.buy.carbon.embodied_tonnes, 32 * 2.5)
    assert_allclose(result.buy.carbon.total_tonnes, KWH_PER_MONTH * 36 * 0.373 / 1000 + 80)
    tokens = 256 * 730 * 36 * 1000 * 3600 / 1e6
    assert_allclose(result.buy.carbon.tonnes_per_million_tokens, result.buy.carbon.total_tonnes / tokens)


def test_rented_capacity_uses_the_stated_default_or_its_own_intensity() -> None:
    result = evaluate(_scenario(default_grid_kg_co2e_per_kwh=0.4, cloud_pue=1.1), recommend=False)
    # 256 accelerators on demand at full use draw 10.2 / 8 kW each for 730 h, times PUE 1.1.
    kwh = 256 * 10.2 / 8 * 730 * 1.1
    assert_allclose(result.rent[0].carbon.kwh_per_month, kwh)
    assert_allclose(result.rent[0].carbon.tonnes_per_year, kwh * 12 * 0.4 / 1000)
    scenario = _scenario(default_grid_kg_co2e_per_kwh=0.4, cloud_pue=1.1)
    own = replace(scenario.rent[0], grid_kg_co2e_per_kwh=0.05)
    result = evaluate(replace(scenario, rent=(own,)), recommend=False)
    assert_allclose(result.rent[0].carbon.tonnes_per_year, kwh * 12 * 0.05 / 1000)


def test_a_carbon_price_is_a_cost_line_in_the_npv() -> None:
    priced = evaluate(_scenario(price_usd_per_tonne=100.0), recommend=False)
    free = evaluate(_scenario(), recommend=False)
    line = priced.buy.cash_flows.lines_usd["carbon"]
    assert_allclose(line[0], 80 * 100.0)  # embodied, at month 0
    assert_allclose(line[1], KWH_PER_MONTH * 0.373 / 1000 * 100.0)
    assert_allclose(priced.buy.npv_usd - free.buy.npv_usd, line.sum())
    assert np.all(free.buy.cash_flows.lines_usd["carbon"] == 0.0)


@pytest.mark.parametrize("intensity", [-0.1, 450.0])
def test_grid_intensity_out_of_range_is_refused(intensity: float) -> None:
    base = flat_scenario()
    with pytest.raises(InputError) as error:
        evaluate(flat_scenario(facility=replace(base.facility, grid_kg_co2e_per_kwh=intensity)),
                 recommend=False)
    assert error.value.path == "facility.grid_kg_co2e_per_kwh"
