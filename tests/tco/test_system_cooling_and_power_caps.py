"""A system's own cooling and the catalog's power-cap table, as a scenario's evaluation uses them."""

from decimal import Decimal

import pytest

from catalog.models import SystemSku
from tco.services.engine_inputs import ScenarioInputError
from tco.services.evaluation import scenario_evaluate

B200_DEMO = "256x B200 build with liquid cooling"


def _assumption(evaluation, path):
    return next(a for a in evaluation.assumptions if a.path == path)


def test_the_air_cooled_dgx_b200_is_never_given_liquid_cooling(demo_scenarios):
    evaluation = scenario_evaluate(scenario=demo_scenarios[B200_DEMO], pinned=False)
    footprint = evaluation.result.footprint
    # The liquid-ready hall allows 120 kW per rack, but a DGX B200 is air-cooled: the densest air
    # cooling, the rear-door heat exchanger, handles 50 kW, so 4 x 12 kW = 48 kW per rack (not
    # 5 x 12 = 60 kW on direct-to-chip liquid), and 32 systems need 8 racks, not 7.
    assert float(footprint.systems) == 32
    assert float(footprint.systems_per_rack) == 4
    assert float(footprint.racks) == 8
    assert float(footprint.kw_per_rack) == pytest.approx(48.0)
    assert str(footprint.cooling_tier_name) == "Rear-door heat exchanger"
    limit = _assumption(evaluation, "facility.rack_power_limit_kw")
    assert limit.value == 50.0 and limit.origin == "catalog"
    assert "limited to 50 kW" in limit.source and "air-cooled" in limit.source
    assert not any("Direct-to-chip" in tier.name for tier in evaluation.inputs.cooling)


def test_a_system_that_takes_either_cooling_keeps_the_density_rule(demo_scenarios):
    scenario = demo_scenarios[B200_DEMO]
    SystemSku.objects.filter(pk=scenario.system_id).update(cooling="either")
    scenario.refresh_from_db()
    footprint = scenario_evaluate(scenario=scenario, pinned=False).result.footprint
    assert float(footprint.systems_per_rack) == 5 and float(footprint.racks) == 7
    assert str(footprint.cooling_tier_name) == "Direct-to-chip liquid (cold plate)"


def test_a_liquid_cooled_system_with_no_liquid_cooling_in_the_catalog_is_refused(demo_scenarios):
    from catalog.models import CoolingTechnology

    scenario = demo_scenarios[B200_DEMO]
    SystemSku.objects.filter(pk=scenario.system_id).update(cooling="liquid")
    CoolingTechnology.objects.filter(medium="liquid").update(medium="air")
    scenario.refresh_from_db()
    with pytest.raises(ScenarioInputError) as refused:
        scenario_evaluate(scenario=scenario, pinned=False)
    assert refused.value.field == "system"
    assert "no liquid cooling technology" in str(refused.value)


def test_a_cap_at_600_w_costs_the_catalogs_loss(run_scenario):
    # The DGX H100's H100 SXM has a 700 W TDP; 600/700 of it is seed 003's 600 W row: 5-8 %.
    run_scenario.power_cap_share = Decimal("600") / Decimal("700")
    evaluation = scenario_evaluate(scenario=run_scenario, pinned=False)
    loss = _assumption(evaluation, "buy.power_cap_throughput_loss")
    assert loss.value == pytest.approx(0.065) and loss.origin == "catalog"
    assert "at 600 W: 5-8 % lower throughput, 6.5 % used (seed-003)" in loss.source
    # 8 accelerators / (1 - 0.065) = 8.56: two DGX H100 instead of one.
    assert float(evaluation.result.footprint.systems) == 2


def test_a_measured_loss_overrides_the_catalog(run_scenario):
    run_scenario.power_cap_share = Decimal("600") / Decimal("700")
    run_scenario.power_cap_throughput_loss = Decimal("0.02")
    evaluation = scenario_evaluate(scenario=run_scenario, pinned=False)
    loss = _assumption(evaluation, "buy.power_cap_throughput_loss")
    assert loss.value == pytest.approx(0.02) and loss.origin == "scenario"
    assert loss.source == "scenario.power_cap_throughput_loss"


def test_a_cap_below_the_table_is_refused_naming_the_field(run_scenario):
    run_scenario.power_cap_share = Decimal("0.4")  # 280 W, below the table's 400 W
    with pytest.raises(ScenarioInputError) as refused:
        scenario_evaluate(scenario=run_scenario, pinned=False)
    assert refused.value.field == "power_cap_throughput_loss"
    assert "lowest measured cap (400 W)" in str(refused.value)
