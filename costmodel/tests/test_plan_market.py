"""A plan's choices from the market: the curve's terms as rent choices, the next generation as an
owned choice from its month.

Hand-checkable figures: 730 h a month, on demand billed for every hour held, no discounting.
The systems cost only their price: no electricity, cooling, support or resale.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from costmodel.plan import make_plan
from costmodel.plan.inputs import PlanInputError
from costmodel.plan.spec import plan_inputs
from costmodel.plan.validation import validate_plan
from costmodel.strategies import NextGeneration
from costmodel.term_structure import TermPrice
from costmodel.term_structure import TermStructure

from .scenarios import COOLING
from .scenarios import flat_scenario

HOURS = 730.0
CURVE = TermStructure((TermPrice("on_demand", 2.50), TermPrice("12", 2.00)))


def scenario(system_price_usd: float = 400_000.0):
    """The flat scenario with a system that costs its price and nothing else."""
    base = flat_scenario()
    return replace(
        base,
        buy=replace(base.buy, system_price_usd=system_price_usd),
        facility=replace(base.facility, electricity_usd_per_kwh=0.0),
        cooling=tuple(replace(tier, capex_usd_per_kw=0.0, opex_usd_per_kw_month=0.0) for tier in COOLING),
    )


def solved(spec: dict, *, following: NextGeneration | None = None) -> dict:
    inputs = plan_inputs(spec, scenario(), curve=CURVE, next_generation=following)
    validate_plan(inputs)
    return make_plan(inputs, explain_limits=False).figures


def test_a_flat_base_is_locked_on_the_12_month_term_and_the_peak_rented_on_demand() -> None:
    demand = [8.0] * 24
    demand[4] = demand[5] = 10.0  # months 5 and 6
    plan = solved({"demand": {"table": demand}, "owned": [], "term_structure": {}})
    # 8 accelerators on two back-to-back 12-month terms: 8 x 730 h x $2.00 x 24 = $280,320;
    # the 2 above them for 2 months on demand: 2 x 730 h x $2.50 x 2 = $7,300. Locking those 2 for
    # a year instead would cost 2 x 730 x $2.00 x 12 = $35,040; all on demand, $350,400 + $7,300.
    assert [(c["choice"], c["start_month"], c["end_month"], c["instances"]) for c in plan["commitments"]] == [
        ("12-month term", 1, 12, 8), ("12-month term", 13, 24, 8)]
    on_demand = plan["capacity_accelerators"]["on-demand term"]
    assert [round(value, 9) for value in on_demand] == [0, 0, 0, 0, 2, 2] + [0] * 18
    assert round(plan["npv_usd"], 2) == 8 * HOURS * 2.00 * 24 + 2 * HOURS * 2.50 * 2 == 287_620.00
    assert round(plan["cash_by_category_usd"]["reserved"][1], 2) == 8 * HOURS * 2.00


def test_the_next_generation_is_bought_at_its_month_and_not_before() -> None:
    # 16 accelerators for 36 months. Today's system: 8 accelerators for $400,000; the next
    # generation from month 12: the same price, twice the throughput, so one system serves 16.
    following = NextGeneration("B200", available_month=12, system_price_usd=400_000.0, throughput_ratio=2.0)
    spec = {"demand": {"table": [16.0] * 36}, "term_structure": {}, "next_generation": {}}
    plan = solved(spec, following=following)
    # Months 1-12 on the 12-month term: 16 x 730 h x $2.00 x 12 = $280,320, then one next-generation
    # system ordered at month 12 serving from month 13: $400,000; $680,320 in all. Buying two of
    # today's systems now costs $800,000; renting all 36 months on the term, $840,960.
    assert [(o["choice"], o["order_month"], o["in_service_month"], o["systems"]) for o in plan["orders"]] == [
        ("B200 (next generation, from month 12)", 12, 13, 1)]
    assert [(c["choice"], c["start_month"], c["instances"]) for c in plan["commitments"]] == [
        ("12-month term", 1, 16)]
    assert round(plan["npv_usd"], 2) == 16 * HOURS * 2.00 * 12 + 400_000 == 680_320.00
    # Were it on sale at month 0, one system would serve all 36 months for $400,000: the month is
    # what keeps the plan from it.
    now = solved({**spec, "next_generation": {"available_month": 0}}, following=following)
    assert [(o["order_month"], o["systems"]) for o in now["orders"]] == [(0, 1)]
    assert round(now["npv_usd"], 2) == 400_000.00


def test_a_term_renews_at_its_forward_price_and_gives_way_to_on_demand_when_that_is_dearer() -> None:
    # On demand flat at $2.50 while the 12-month term's forward rises from $2.00 today to $2.60 for
    # a start 12 months on (2026's curves moved so): the first year is locked at $2.00, the second
    # is cheaper on demand. 8 x 730 h x ($2.00 x 12 + $2.50 x 12) = $315,360.
    rising = TermStructure((TermPrice("on_demand", 2.50), TermPrice("12", 2.00, forward=((12, 2.60),))))
    inputs = plan_inputs({"demand": {"table": [8.0] * 24}, "owned": [], "term_structure": {}}, scenario(),
                         curve=rising)
    validate_plan(inputs)
    plan = make_plan(inputs, explain_limits=False).figures
    assert [(c["start_month"], c["instances"]) for c in plan["commitments"]] == [(1, 8)]
    on_demand = plan["capacity_accelerators"]["on-demand term"]
    assert [round(value, 9) for value in on_demand] == [0] * 12 + [8] * 12
    assert round(plan["npv_usd"], 2) == 8 * HOURS * (2.00 * 12 + 2.50 * 12) == 315_360.00


@pytest.mark.parametrize(("spec", "path"), [
    ({"next_generation": {"available_month": 36}}, "next_generation.available_month"),
    ({"next_generation": {"available_month": 33, "lead_time_months": 3}}, "next_generation.available_month"),
    ({"next_generation": {"available_month": 2.5}}, "next_generation.available_month"),
    ({"next_generation": {"throughput_ratio": 0}}, "next_generation.throughput_ratio"),
    ({"next_generation": {"speed": 2}}, "next_generation.speed"),
    ({"term_structure": {"terms": ["24"]}}, "term_structure.terms.0"),
    ({"term_structure": {"terms": "12"}}, "term_structure.terms"),
    ({"term_structure": {"spot_share_cap": "half"}}, "term_structure.spot_share_cap"),
])
def test_bad_market_options_name_the_field(spec: dict, path: str) -> None:
    following = NextGeneration("B200", available_month=12, system_price_usd=400_000.0, throughput_ratio=2.0)
    with pytest.raises(PlanInputError) as caught:
        solved({"demand": {"table": [16.0] * 36}, **spec}, following=following)
    assert caught.value.path == path


def test_missing_curve_or_next_generation_figures_are_named() -> None:
    with pytest.raises(PlanInputError) as caught:
        plan_inputs({"term_structure": {}}, scenario())
    assert caught.value.path == "term_structure"
    assert "no rental curve" in caught.value.message
    with pytest.raises(PlanInputError) as caught:
        plan_inputs({"next_generation": {"available_month": 12, "throughput_ratio": 2}}, scenario())
    assert caught.value.path == "next_generation.system_price"
