"""Plans placing systems at more than one site, each with its own costs and limits.

The small case of test_plan.py: a system of 8 accelerators, 10 kW at full draw, $200,000;
on demand costs $1,916.25 per accelerator-month. Flat demand of 32 accelerators (4 systems)
for 36 months, so buying beats renting wherever a system may go.
"""

from __future__ import annotations

import pytest

from costmodel.plan import make_plan
from costmodel.plan.inputs import PlanInputError
from costmodel.plan.spec import plan_inputs

from .scenarios import COOLING
from .test_plan import FACILITY
from .test_plan import small_plan

AIR = {tier.name: "air" for tier in COOLING}


def _plan(sites, **spec):
    base = small_plan((32.0,) * 36, lead=0)
    scenario = _scenario_of(base)
    inputs = plan_inputs({"demand": {"table": [32] * 36}, "utilisation": 0.6,
                          "owned": [{"name": "node"}], "sites": sites, **spec},
                         scenario, cooling_media=AIR)
    return make_plan(inputs, explain_limits=False).figures


def _scenario_of(plan):
    from costmodel import Finance
    from costmodel import Scenario
    from costmodel import Workload

    return Scenario(workload=Workload(accelerators=32.0, utilisation=0.6), buy=plan.owned[0].buy,
                    facility=FACILITY, cooling=COOLING, rent=tuple(c.option for c in plan.rent),
                    finance=Finance(horizon_months=36.0, discount_rate_per_year=0.1))


def _systems(figures):
    placed = {}
    for order in figures["orders"]:
        placed[order["choice"]] = placed.get(order["choice"], 0) + order["systems"]
    return placed


def test_a_plan_over_a_sites_cooling_moves_the_excess_to_the_second_site():
    # Frankfurt is cheaper (its own electricity at $0.05/kWh) but cools only 20 kW of air-cooled IT:
    # two 10 kW systems. The other two go to Paris, at $0.15/kWh.
    sites = [{"name": "Frankfurt", "cooling_kw": {"air": 20}, "facility": {"electricity_usd_per_kwh": 0.05}},
             {"name": "Paris", "facility": {"electricity_usd_per_kwh": 0.15}}]
    assert _systems(_plan(sites)) == {"node at Frankfurt": 2, "node at Paris": 2}
    # With room to cool them all, all four go to the cheaper site.
    sites[0]["cooling_kw"] = {"air": 40}
    assert _systems(_plan(sites)) == {"node at Frankfurt": 4}


def test_with_one_site_the_excess_is_rented():
    figures = _plan([{"name": "Frankfurt", "cooling_kw": {"air": 20}}])
    assert _systems(figures) == {"node at Frankfurt": 2}
    # The other 16 accelerators of each month are rented (on demand or reserved).
    rented = [sum(figures["capacity_accelerators"][name][m] for name in ("reserved-2m", "on-demand"))
              for m in range(36)]
    assert min(rented) >= 16.0 - 1e-6


def test_a_site_with_no_liquid_cooling_takes_no_liquid_cooled_system():
    liquid = {tier.name: "liquid" for tier in COOLING}
    base = small_plan((32.0,) * 36, lead=0)
    inputs = plan_inputs({"demand": {"table": [32] * 36}, "owned": [{"name": "node"}],
                          "sites": [{"name": "Air hall", "cooling_kw": {"air": 1000}}]},
                         _scenario_of(base), cooling_media=liquid)
    assert _systems(make_plan(inputs, explain_limits=False).figures) == {}


def test_a_sites_power_and_racks_limit_it_too():
    sites = [{"name": "Frankfurt", "it_power_kw": 30, "facility": {"electricity_usd_per_kwh": 0.05}},
             {"name": "Paris", "racks": 0}]
    assert _systems(_plan(sites)) == {"node at Frankfurt": 3}


@pytest.mark.parametrize(("site", "path", "reason"), [
    ({"name": "A", "cooling_kw": {"water": 5}}, "sites.0.cooling_kw.water", "air or liquid"),
    ({"name": "A", "racks": -1}, "sites.0.racks", "0 or more"),
    ({"name": "A", "facility": {"volts": 1}}, "sites.0.facility.volts", "not a facility input"),
    ({"cooling_kw": {}}, "sites.0.name", "give the site a name"),
])
def test_a_bad_site_is_refused_naming_the_field(site, path, reason):
    with pytest.raises(PlanInputError) as refused:
        _plan([site])
    assert refused.value.path == path and reason in refused.value.message


def test_an_owned_item_pinned_to_an_unknown_site_is_refused():
    with pytest.raises(PlanInputError) as refused:
        _plan([{"name": "A"}], owned=[{"name": "node", "site": "B"}])
    assert refused.value.path == "owned.0.site"


def test_sites_keep_their_own_costs():
    sites = [{"name": "Frankfurt", "facility": {"electricity_usd_per_kwh": 0.05}}]
    cheap = _plan(sites)["npv_usd"]
    dear = _plan([{"name": "Frankfurt", "facility": {"electricity_usd_per_kwh": 0.15}}])["npv_usd"]
    assert dear > cheap
