"""Which end of a catalog price range a scenario costs is its own visible choice, and where
sources disagree the scenario says which price it uses and what the others say."""

from __future__ import annotations

from decimal import Decimal

import pytest

from catalog.models import CloudOffering
from catalog.models import SystemSku
from tco.services.evaluation import scenario_evaluate


def _system_price(scenario) -> tuple[float, str]:
    case = scenario_evaluate(scenario=scenario)
    (row,) = [a for a in case.assumptions if a.path == "buy.system_price_usd"]
    return row.value, row.source


@pytest.mark.parametrize(("point", "price"), [("low", 20000), ("typical", 35000), ("high", 50000)])
def test_a_system_price_range_is_costed_at_the_chosen_point(demo_scenarios, point, price):
    # seed-000: 'Server Rig: $20,000-50,000+'; typical is the middle, $35,000.
    fleet = demo_scenarios["Inference fleet: 32x L40S vs cloud"]
    fleet.price_range_point = point
    fleet.save()
    value, source = _system_price(fleet)
    assert value == price
    assert "of $20,000–$50,000" in source


def test_offering_price_bands_are_costed_at_the_chosen_point_too(demo_scenarios):
    fleet = demo_scenarios["Inference fleet: 32x L40S vs cloud"]
    assert fleet.price_range_point == "typical"
    prices = {p.target: p.amount for p in scenario_evaluate(scenario=fleet).prices}
    midrange = CloudOffering.objects.get(instance_type="midrange-1x-l40s-pcie-48gb")
    band = midrange.prices.get()
    assert band.amount_high is not None
    assert prices[str(midrange)] == (band.amount + band.amount_high) / 2


def test_disagreeing_sources_are_named_beside_the_price_used(demo_scenarios):
    # seed-004's '8x H100 (DGX H100 level): $320,000+' (2025) is newer than seed-002's
    # '~$450,000-$500,000' (2024): the scenario uses it and says so, with the other figure.
    h100 = demo_scenarios["8x H100 training cluster"]
    evaluation = scenario_evaluate(scenario=h100)
    value, source = _system_price(h100)
    assert value == 320000
    assert "seed-004, as of 2025-01-01" in source and "seed-002 $450,000–$500,000 as of 2024-01-01" in source
    (warning,) = [w.message for w in evaluation.warnings if w.code == "sources_disagree"]
    assert "NVIDIA DGX H100 (8x H100 SXM5 80 GB)" in warning
    assert "give it as the scenario's system price" in warning
    assert "evaluated" not in warning
    assert ({"code": "sources_disagree", "message": warning, "severity": "warning"}
            in evaluation.to_dict()["warnings"])


def test_a_price_given_on_the_scenario_silences_the_disagreement(demo_scenarios):
    h100 = demo_scenarios["8x H100 training cluster"]
    h100.system_price_usd = Decimal("475000")
    warnings = scenario_evaluate(scenario=h100).warnings
    assert not [w for w in warnings if w.code == "sources_disagree"]
    assert SystemSku.objects.get(slug="dgx-h100").purchase_price_low_usd == 450000
