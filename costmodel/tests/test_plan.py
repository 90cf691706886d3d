"""Procurement plans: equal to brute force on small cases and to the engine on flat demand.

Figures of the small cases (utilisation 0.6, 730 h, $0.10/kWh, PUE 1):

* a system of 8 accelerators: $200,000; 10 kW max, 4 kW idle; support 12 %/year
  = $2,000/month; idle energy 4 x 730 x 0.10 = $292/month; each accelerator
  served adds (10 - 4) / 8 x 730 x 0.10 x 0.6 = $32.85/month;
* reserved, 8 accelerators, 2-month term: $20/h = $14,600/month plus $5,000 up front;
* on-demand, 8 accelerators, billed for the hours used: $35/h x 730 x 0.6 = $15,330/month per instance
  = $1,916.25 per accelerator-month (billed per hour, so fractions of an instance count).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np
import pytest

from costmodel import BuyOption
from costmodel import RentOption
from costmodel import evaluate
from costmodel.inputs import InputError
from costmodel.plan import Demand
from costmodel.plan import Limits
from costmodel.plan import OwnedChoice
from costmodel.plan import PlanInputs
from costmodel.plan import RentChoice
from costmodel.plan import make_plan
from costmodel.plan.uncertainty import cases_of
from costmodel.plan.uncertainty import decisions_of
from costmodel.plan.uncertainty import reevaluate
from costmodel.plan.uncertainty import summarise

from .scenarios import COOLING
from .scenarios import flat_scenario
from .scenarios import rich_scenario

SYSTEM = BuyOption(
    accelerators_per_system=8.0,
    system_price_usd=200_000.0,
    system_power_max_kw=10.0,
    system_power_idle_kw=4.0,
    system_rack_units=8.0,
    depreciation_months=48.0,
    support_share_per_year=0.12,
    residual_value_share=0.1,
)
RESERVED = RentOption(
    "reserved-2m",
    "reserved",
    price_usd_per_instance_hour=20.0,
    accelerators_per_instance=8.0,
    commitment_months=2.0,
    upfront_usd_per_instance=5_000.0,
)
ON_DEMAND = RentOption(
    "on-demand", "on_demand", price_usd_per_instance_hour=35.0, accelerators_per_instance=8.0,
    billing_basis="used",
)
FACILITY = flat_scenario().facility


def small_plan(demand: tuple[float, ...], *, lead: int = 1, rate: float = 0.1, **limits: float) -> PlanInputs:
    return PlanInputs(
        demand=Demand(demand, (0.6,) * len(demand)),
        owned=(OwnedChoice("node", SYSTEM, lead_time_months=lead),),
        rent=(RentChoice(RESERVED), RentChoice(ON_DEMAND)),
        facility=FACILITY,
        cooling=COOLING,
        discount_rate_per_year=rate,
        limits=Limits(**limits),
    )


def brute_force_npv(
    demand: tuple[float, ...], *, lead: int, rate: float, power_kw: float = math.inf
) -> float:
    """Cheapest NPV over every whole number of orders and commitments (0..3 each month)."""
    horizon = len(demand)
    factor = [(1.0 + rate) ** (-m / 12) for m in range(horizon + 3)]
    order_months = range(horizon - lead)
    best = math.inf
    for orders in itertools.product(range(4), repeat=len(order_months)):
        owned = [0] * (horizon + 1)
        cost = 0.0
        for t, count in zip(order_months, orders, strict=True):
            cost += count * 200_000.0 * factor[t] - count * 20_000.0 * factor[horizon]
            for m in range(t + lead + 1, horizon + 1):
                owned[m] += count
                cost += count * (2_000.0 + 292.0) * factor[m]
        if any(10.0 * owned[m] > power_kw for m in range(horizon + 1)):
            continue
        for commits in itertools.product(range(4), repeat=horizon):
            total = cost
            reserved = [0] * (horizon + 2)
            for s, count in enumerate(commits, start=1):
                total += count * 5_000.0 * factor[s - 1]
                for m in (s, s + 1):
                    reserved[m] += count
                    total += count * 14_600.0 * factor[m]
            for m in range(1, horizon + 1):
                rest = max(0.0, demand[m - 1] - 8 * reserved[m])
                by_owned = min(rest, 8 * owned[m])  # $32.85 < $1,916.25 an accelerator-month
                total += (by_owned * 32.85 + (rest - by_owned) * 1_916.25) * factor[m]
            best = min(best, total)
    return best


@pytest.mark.parametrize(
    ("demand", "lead", "rate", "power_kw"),
    [
        ((10.0, 14.0, 20.0, 24.0), 1, 0.1, math.inf),
        ((24.0, 8.0, 8.0, 16.0), 0, 0.0, math.inf),
        ((6.0, 20.0, 20.0, 20.0), 1, 0.25, 15.0),
    ],
)
def test_plan_equals_brute_force_enumeration(demand, lead, rate, power_kw) -> None:
    plan = make_plan(small_plan(demand, lead=lead, rate=rate, site_it_power_kw=power_kw))
    assert plan.feasible
    assert plan.figures["npv_usd"] == pytest.approx(
        brute_force_npv(demand, lead=lead, rate=rate, power_kw=power_kw), abs=0.01
    )


def plannable_scenario():
    """The rich example as a plan can reproduce it: cash, whole instances, the horizon a 3-year term.

    Plans pay cash and bill rent per accelerator; the engine finances and rounds up to whole
    instances and systems. Without a throughput loss, 256 accelerators fill 32 capped systems
    in 8 full racks and 32 whole instances. A 3-year reservation joins the example's offers.
    """
    base = rich_scenario()
    three_years = RentOption(
        "3y-reserved", "reserved", 50.0, 8.0, commitment_months=36, price_change_per_year=-0.1
    )
    return replace(
        base,
        workload=replace(base.workload, accelerators=256.0),
        buy=replace(base.buy, power_cap_throughput_loss=0.0, financed_share=0.0),
        rent=(*base.rent, three_years),
        finance=replace(base.finance, horizon_months=36.0),
    )


def flat_plan(scenario, *, owned=(), rent=()) -> PlanInputs:
    months = int(scenario.finance.horizon_months)
    return PlanInputs(
        demand=Demand((scenario.workload.accelerators,) * months, (scenario.workload.utilisation,) * months),
        owned=owned,
        rent=rent,
        facility=scenario.facility,
        cooling=scenario.cooling,
        discount_rate_per_year=scenario.finance.discount_rate_per_year,
    )


def test_flat_buy_only_plan_costs_what_the_engine_says_to_the_cent() -> None:
    scenario = plannable_scenario()
    result = evaluate(scenario, recommend=False)
    plan = make_plan(flat_plan(scenario, owned=(OwnedChoice("dgx", scenario.buy),))).figures
    assert round(plan["npv_usd"], 2) == round(float(result.buy.npv_usd), 2)
    assert round(plan["total_usd"], 2) == round(float(result.buy.total_usd), 2)
    assert plan["orders"] == [
        {
            "choice": "dgx",
            "order_month": 0,
            "in_service_month": 1,
            "capex_month": 0,
            "systems": 32,
            "racks": 8,
            "accelerators": 256.0,
            "capex_usd": pytest.approx(float(sum(result.buy.capex_usd.values())) - 500_000.0),
        }
    ]


@pytest.mark.parametrize("index", range(4))
def test_flat_rent_only_plan_costs_what_the_engine_says_to_the_cent(index: int) -> None:
    scenario = plannable_scenario()
    option = scenario.rent[index]
    result = evaluate(scenario, recommend=False).rent[index]
    plan = make_plan(flat_plan(scenario, rent=(RentChoice(option),))).figures
    assert round(plan["npv_usd"], 2) == round(float(result.npv_usd), 2)
    assert round(plan["total_usd"], 2) == round(float(result.total_usd), 2)


def test_lead_time_forces_rent_in_the_first_months() -> None:
    cheap = replace(SYSTEM, system_price_usd=50_000.0)
    inputs = replace(
        small_plan((16.0,) * 12, lead=3), owned=(OwnedChoice("node", cheap, lead_time_months=3),)
    )
    plan = make_plan(inputs).figures
    owned = plan["capacity_accelerators"]["node"]
    rented = [
        sum(plan["capacity_accelerators"][name][m] for name in ("reserved-2m", "on-demand"))
        for m in range(12)
    ]
    assert owned[:3] == [0.0, 0.0, 0.0]
    assert all(value >= 16.0 - 1e-9 for value in rented[:3])
    assert owned[3:] == [16.0] * 9
    assert plan["orders"][0]["order_month"] == 0 and plan["orders"][0]["in_service_month"] == 4


def test_binding_power_limit_shows_its_dual_value() -> None:
    """Owning beats renting; 25 kW holds two 10 kW systems where four are wanted.

    Over 12 months at 0 %, utilisation 1 and idle = max draw: a system costs
    $100,000 + 12 x $730 = $108,760, renting its 8 accelerators on demand
    12 x $40 x 730 = $350,400. In the LP relaxation each kW more in every month
    buys 0.1 system: 0.1 x $241,640 = $24,164; a whole system more (10 kW) saves $241,640.
    """
    system = replace(
        SYSTEM,
        system_price_usd=100_000.0,
        system_power_idle_kw=10.0,
        support_share_per_year=0.0,
        residual_value_share=0.0,
    )
    rent = replace(ON_DEMAND, price_usd_per_instance_hour=40.0)
    inputs = PlanInputs(
        demand=Demand((32.0,) * 12, (1.0,) * 12),
        owned=(OwnedChoice("node", system),),
        rent=(RentChoice(rent),),
        facility=FACILITY,
        cooling=COOLING,
        discount_rate_per_year=0.0,
        limits=Limits(site_it_power_kw=25.0),
    )
    plan = make_plan(inputs).figures
    assert plan["orders"][0]["systems"] == 2
    (power,) = plan["limits"]
    assert power["limit"] == "site_power" and power["binds"]
    assert power["months_at_limit"] == list(range(1, 13))
    assert power["lp_dual_usd_per_unit"] == pytest.approx(24_164.0, abs=0.01)
    assert power["resolve_saving_usd"] == pytest.approx(241_640.0, abs=0.01)
    assert "binds in months 1-12" in power["sentence"]


def test_baselines_are_all_rent_and_all_buy() -> None:
    plan = make_plan(small_plan((10.0, 14.0, 20.0, 24.0))).figures
    rent, buy = plan["baselines"]["all_rent"], plan["baselines"]["all_buy"]
    assert rent["available"] and buy["available"]
    assert rent["orders"] == []
    assert buy["commitments"] == []
    # all-buy rents on demand only in month 1, before the first delivery
    assert buy["capacity_accelerators"]["on-demand"][1:] == [0.0, 0.0, 0.0]
    assert plan["npv_usd"] <= min(rent["npv_usd"], buy["npv_usd"]) + 0.01


def test_infeasible_plan_names_the_binding_limit_and_first_failing_month() -> None:
    inputs = replace(small_plan((8.0, 8.0, 32.0, 32.0), lead=0, site_it_power_kw=25.0), rent=())
    plan = make_plan(inputs)
    assert not plan.feasible
    answer = plan.figures["infeasible"]
    assert answer["first_failing_month"] == 3
    assert answer["binding_limits"] == ["site power"]
    assert "month 3" in answer["message"] and "site power" in answer["message"]


def test_lead_time_without_rent_is_infeasible_from_month_one() -> None:
    answer = make_plan(replace(small_plan((8.0,) * 6, lead=2), rent=())).figures["infeasible"]
    assert answer["first_failing_month"] == 1
    assert "lead time" in answer["message"]


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda p: replace(p, demand=Demand((8.0, -1.0), (0.5, 0.5))), "demand.accelerators"),
        (
            lambda p: replace(p, owned=(OwnedChoice("node", SYSTEM, lead_time_months=4),)),
            "owned.0.lead_time_months",
        ),
        (lambda p: replace(p, owned=(), rent=()), "choices"),
        (lambda p: replace(p, limits=Limits(min_owned_share=1.5)), "limits.min_owned_share"),
        (
            lambda p: replace(p, owned=(OwnedChoice("node", replace(SYSTEM, system_price_usd=-1.0)),)),
            "owned.0.system_price_usd",
        ),
    ],
)
def test_bad_input_names_the_field(change, path: str) -> None:
    with pytest.raises(InputError) as error:
        make_plan(change(small_plan((8.0, 8.0, 8.0, 8.0))))
    assert error.value.path == path


def test_reevaluating_a_plan_at_its_own_assumptions_gives_its_npv() -> None:
    inputs = replace(
        small_plan((10.0, 14.0, 20.0, 24.0, 24.0, 30.0)),
        rent=(
            RentChoice(RESERVED),
            RentChoice(ON_DEMAND),
            RentChoice(
                RentOption("spot", "spot", 12.0, 8.0, spot_interruption_overhead=0.2), spot_share_cap=0.25
            ),
        ),
    )
    plan = make_plan(inputs).figures
    cases = cases_of(inputs, plan)
    assert list(cases) == ["plan", "all_rent", "all_buy"]
    npv, unserved = reevaluate(list(cases.values()), np.array([0.0, 0.05]), np.array([1.0, 1.0]))
    assert npv[:, 0] == pytest.approx(
        [plan["npv_usd"], plan["baselines"]["all_rent"]["npv_usd"], plan["baselines"]["all_buy"]["npv_usd"]],
        abs=0.01,
    )
    assert (npv[:, 1] > npv[:, 0]).all()  # more demand costs more
    assert not unserved.any()  # on demand serves whatever the decisions do not


def test_dearer_rent_raises_an_all_rent_plan_by_its_rent_share() -> None:
    inputs = replace(small_plan((8.0, 8.0, 16.0, 16.0)), owned=())
    plan = make_plan(inputs).figures
    npv, _ = reevaluate([(inputs, decisions_of(plan))], np.zeros(2), np.array([1.0, 1.2]))
    assert npv[0, 1] == pytest.approx(1.2 * npv[0, 0], rel=1e-12)  # no data charges in this case
    summary = summarise(npv[0], {"all_rent": np.full(2, plan["npv_usd"])}, "all_rent")
    assert summary["probability_loses_to_best_baseline"] == 0.5


@pytest.mark.parametrize(("basis", "total"), [
    ("held", 1_446_451.20),  # 55.04 $/h x 730 h x 36 months: every hour held
    ("used", 1_157_160.96),  # 55.04 $/h x 730 h x 0.8 x 36 months: the hours used
])
def test_a_plan_of_one_rent_option_bills_it_on_the_scenarios_basis(basis: str, total: float) -> None:
    # One p5 (8 accelerators) on demand at $55.04/h, 80 % busy, 36 months, no discounting.
    option = RentOption("p5 on demand", "on_demand", price_usd_per_instance_hour=55.04,
                        accelerators_per_instance=8.0, billing_basis=basis)
    base = flat_scenario()
    scenario = replace(base, workload=replace(base.workload, accelerators=8.0, utilisation=0.8),
                       rent=(option,),
                       finance=replace(base.finance, horizon_months=36.0, discount_rate_per_year=0.0))
    engine = evaluate(scenario, recommend=False).rent[0]
    plan = make_plan(flat_plan(scenario, rent=(RentChoice(option),))).figures
    assert round(float(engine.total_usd), 2) == total
    assert round(plan["total_usd"], 2) == total
    assert round(plan["npv_usd"], 2) == round(float(engine.npv_usd), 2) == total
