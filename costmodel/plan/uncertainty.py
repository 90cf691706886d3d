"""A plan re-evaluated over draws of demand growth and rent prices.

The plan's whole decisions (systems ordered, reserved commitments) stay as
made; each draw changes the demand path and the level of every rent price, and
the month's demand is then served the cheapest way the decisions allow:
reserved capacity first (already paid), then owned systems (only their extra
energy), then spot within its cap and on-demand (per hour, at the drawn price).
Demand that nothing offered can serve is counted as unserved, not priced.

Draw i multiplies month m's demand by (1 + growth_delta[i]) ** (m - 1) and
every rent price (compute, up-front fees; not data charges) by
rent_price_factor[i]. A draw with delta 0 and factor 1 gives the plan's NPV.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from costmodel.inputs import PricingModel
from costmodel.plan.inputs import PlanInputs
from costmodel.plan.planner import baselines
from costmodel.plan.program import CATEGORIES
from costmodel.plan.program import Program
from costmodel.plan.program import build_program

RENT_PRICE_CATEGORIES = ("reserved", "on_demand", "spot")


@dataclass(frozen=True)
class Decisions:
    """The whole-number decisions of a plan or baseline, as its figures list them."""

    orders: Sequence[Mapping[str, Any]]
    commitments: Sequence[Mapping[str, Any]]


def decisions_of(figures: Mapping[str, Any]) -> Decisions:
    return Decisions(orders=figures["orders"], commitments=figures["commitments"])


def cases_of(inputs: PlanInputs, figures: Mapping[str, Any]) -> dict[str, tuple[PlanInputs, Decisions]]:
    """The plan and each available baseline, with the choices each may use to follow demand.

    The all-buy baseline follows demand on demand in every month (it bridged only
    the lead time when planned), so a draw with more demand does not leave it short.
    """
    cases = {"plan": (inputs, decisions_of(figures))}
    for name, base in baselines(inputs).items():
        if not isinstance(base, str) and figures["baselines"][name]["available"]:
            cases[name] = (base[0], decisions_of(figures["baselines"][name]))
    return cases


def reevaluate(
    cases: Sequence[tuple[PlanInputs, Decisions]],
    growth_delta: NDArray[np.float64],
    rent_price_factor: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """NPV of cost [USD] and unserved accelerator-months of each case in each draw.

    Returns two arrays of shape (len(cases), draws).
    """
    factor = np.asarray(rent_price_factor, dtype=np.float64)
    npv = np.empty((len(cases), factor.size))
    unserved = np.empty_like(npv)
    for index, (inputs, chosen) in enumerate(cases):
        npv[index], unserved[index] = _reevaluate_one(inputs, chosen, growth_delta, factor)
    return npv, unserved


def _reevaluate_one(
    inputs: PlanInputs, chosen: Decisions, growth_delta: NDArray[np.float64], factor: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    program = build_program(inputs)
    horizon = inputs.demand.horizon_months
    base = np.asarray(inputs.demand.accelerators, dtype=np.float64)
    growth = (1.0 + np.asarray(growth_delta, dtype=np.float64))[:, None] ** np.arange(horizon)
    demand = base * growth  # (draws, months)
    present = {c: program.cash[c] @ program.discount for c in CATEGORIES}
    flexible = _flexible_sources(program, present)
    x = _fixed_vector(program, chosen)
    fixed = program.fixed_npv_usd + sum(present[c] @ x for c in CATEGORIES if c not in RENT_PRICE_CATEGORIES)
    reserved = present["reserved"] @ x
    cost = fixed + factor * reserved
    owned_capacity, reserved_capacity = _fixed_capacity(program, x)
    short = np.zeros(demand.shape[0])
    for m in range(1, horizon + 1):
        rest = np.maximum(0.0, demand[:, m - 1] - reserved_capacity[m])
        for source in flexible[m]:
            if source.owned:
                take = np.minimum(rest, owned_capacity[source.name][m])
                cost += take * source.usd_per_accelerator
            else:
                limit = source.share_cap * demand[:, m - 1]
                take = np.minimum(rest, limit)
                cost += take * (source.usd_per_accelerator * factor + source.data_usd_per_accelerator)
            rest = rest - take
        short += rest
    return cost, short


@dataclass(frozen=True)
class _Source:
    name: str
    owned: bool
    usd_per_accelerator: float  # present value of serving one accelerator for the month (rent: compute only)
    data_usd_per_accelerator: float = 0.0
    share_cap: float = np.inf


def _flexible_sources(
    program: Program, present: Mapping[str, NDArray[np.float64]]
) -> dict[int, list[_Source]]:
    """Per month, the sources that follow demand, cheapest first (rent at base prices)."""
    inputs = program.inputs
    by_month: dict[int, list[_Source]] = {}
    for m in range(1, inputs.demand.horizon_months + 1):
        sources = [
            _Source(choice.name, True, float(present["energy"][program.served[choice.name][m]]))
            for choice in inputs.owned
        ]
        for choice in inputs.rent:
            variables = program.instances.get(choice.name, {})
            if m not in variables:
                continue
            per_instance = float(choice.option.accelerators_per_instance) * choice.equivalence
            spot = choice.option.pricing_model == PricingModel.SPOT
            var = variables[m]
            sources.append(
                _Source(
                    choice.name,
                    False,
                    float(present["spot" if spot else "on_demand"][var]) / per_instance,
                    float(present["data"][var]) / per_instance,
                    choice.spot_share_cap if spot else np.inf,
                )
            )
        by_month[m] = sorted(
            sources, key=lambda s: (not s.owned, s.usd_per_accelerator + s.data_usd_per_accelerator)
        )
    return by_month


def _fixed_vector(program: Program, chosen: Decisions) -> NDArray[np.float64]:
    """The program's variables set to the decisions (flexible ones left at 0)."""
    x = np.zeros(len(program.var_ub))
    for order in chosen.orders:
        x[program.orders[order["choice"]][order["order_month"]]] += order["systems"]
        racks = program.racks[order["choice"]].get(order["order_month"])
        if racks is not None and order.get("racks"):
            x[racks] += order["racks"]
        storage = program.storage.get(order["choice"])
        if storage is not None:
            x[storage] = 1.0
    for commitment in chosen.commitments:
        x[program.commits[commitment["choice"]][commitment["start_month"]]] += commitment["instances"]
    return x


def _fixed_capacity(
    program: Program, x: NDArray[np.float64]
) -> tuple[dict[str, NDArray[np.float64]], NDArray[np.float64]]:
    """Owned capacity per choice and total reserved capacity, months 0..H [accelerators]."""
    inputs = program.inputs
    horizon = inputs.demand.horizon_months
    owned = {}
    for choice in inputs.owned:
        systems = program.existing[choice.name].copy()
        for t, var in program.orders[choice.name].items():
            first = t + choice.lead_time_months + 1
            last = int(min(horizon, t + choice.lead_time_months + choice.service_life_months))
            systems[first : last + 1] += x[var]
        owned[choice.name] = systems * program.units[choice.name].accelerators_per_system
    reserved = np.zeros(horizon + 1)
    for rent_choice in inputs.rent:
        if rent_choice.option.pricing_model != PricingModel.RESERVED:
            continue
        per_instance = float(rent_choice.option.accelerators_per_instance) * rent_choice.equivalence
        term = int(round(float(rent_choice.option.commitment_months)))
        for start, var in program.commits[rent_choice.name].items():
            reserved[start : min(start + term, horizon + 1)] += x[var] * per_instance
    return owned, reserved


def summarise(
    plan_npv: NDArray[np.float64], baseline_npv: Mapping[str, NDArray[np.float64]], best: str | None
) -> dict[str, Any]:
    """Distribution of the plan's NPV saving against each baseline, and its chance of losing to the best."""
    summary: dict[str, Any] = {"draws": int(plan_npv.size)}
    for name, npv in baseline_npv.items():
        saving = npv - plan_npv
        summary[name] = {
            "saving_mean_usd": float(saving.mean()),
            "saving_p10_usd": float(np.percentile(saving, 10)),
            "saving_p50_usd": float(np.percentile(saving, 50)),
            "saving_p90_usd": float(np.percentile(saving, 90)),
            "probability_plan_loses": float(np.mean(saving < 0)),
        }
    if best is not None:
        summary["best_baseline"] = best
        summary["probability_loses_to_best_baseline"] = summary[best]["probability_plan_loses"]
    summary["plan_npv_p10_usd"] = float(np.percentile(plan_npv, 10))
    summary["plan_npv_p50_usd"] = float(np.percentile(plan_npv, 50))
    summary["plan_npv_p90_usd"] = float(np.percentile(plan_npv, 90))
    return summary
