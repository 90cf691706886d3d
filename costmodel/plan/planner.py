"""Plan procurement: solve, compare with the all-rent and all-buy baselines, and explain the limits."""

from __future__ import annotations

import math
from dataclasses import dataclass
from dataclasses import replace
from typing import Any

import numpy as np

from costmodel.inputs import PricingModel
from costmodel.plan.inputs import Limits
from costmodel.plan.inputs import PlanInputs
from costmodel.plan.program import LIMIT_FAMILIES
from costmodel.plan.program import Program
from costmodel.plan.program import build_program
from costmodel.plan.solve import Infeasible
from costmodel.plan.solve import Solution
from costmodel.plan.solve import relief_values
from costmodel.plan.solve import solve_program
from costmodel.plan.validation import validate_plan
from costmodel.vocabulary import money

LIMIT_LABELS = {
    "site_power": ("site power", "kW"),
    "site_racks": ("site racks", "rack"),
    "site_cooling": ("site cooling", "kW"),
    "capex_budget": ("capex budget", "USD"),
    "spot_share": ("spot share cap", "accelerator"),
    "min_owned_share": ("minimum owned share", "accelerator"),
    "min_rented_share": ("minimum rented share", "accelerator"),
}
# Savings below half a cent are rounding, not a binding limit.
CENT = 0.005


@dataclass(frozen=True)
class PlanResult:
    """A solved plan (or why none exists), in plain figures ready for JSON."""

    feasible: bool
    figures: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"feasible": self.feasible, **self.figures}


def make_plan(inputs: PlanInputs, *, explain_limits: bool = True) -> PlanResult:
    """The cheapest plan by NPV of cost, its baselines and its limits; see ``PlanResult``."""
    validate_plan(inputs)
    program = build_program(inputs)
    try:
        solution = solve_program(program)
    except Infeasible:
        return PlanResult(False, {"infeasible": diagnose_infeasible(inputs)})
    figures = describe(solution)
    figures["baselines"] = {name: _baseline(base) for name, base in baselines(inputs).items()}
    best = _best_baseline(figures["baselines"])
    figures["best_baseline"] = best
    if best is not None:
        figures["npv_saving_vs_best_baseline_usd"] = (
            figures["baselines"][best]["npv_usd"] - figures["npv_usd"]
        )
    figures["limits"] = explain(solution) if explain_limits else []
    return PlanResult(True, figures)


def describe(solution: Solution) -> dict[str, Any]:
    """The plan's orders, commitments, capacity by source per month and its cash."""
    program, x = solution.program, solution.x
    inputs = program.inputs
    horizon = inputs.demand.horizon_months
    demand = list(inputs.demand.accelerators)
    orders = []
    capacity: dict[str, list[float]] = {}
    served_owned = np.zeros(horizon)
    owned_capacity = np.zeros(horizon)
    for choice in inputs.owned:
        unit = program.units[choice.name]
        systems = program.existing[choice.name][1:].copy()
        for t, var in program.orders[choice.name].items():
            count = int(round(x[var]))
            if not count:
                continue
            first = t + choice.lead_time_months + 1
            last = int(min(horizon, t + choice.lead_time_months + choice.service_life_months))
            systems[first - 1 : last] += count
            racks_var = program.racks[choice.name].get(t)
            orders.append(
                {
                    "choice": choice.name,
                    "order_month": t,
                    "in_service_month": first,
                    "capex_month": t if choice.capex_timing == "order" else t + choice.lead_time_months,
                    "systems": count,
                    "racks": int(round(x[racks_var])) if racks_var is not None else None,
                    "accelerators": count * float(choice.buy.accelerators_per_system),
                    "capex_usd": float(program.cash["capex"][[var]].sum() * count)
                    + (
                        float(program.cash["capex"][[racks_var]].sum() * x[racks_var])
                        if racks_var is not None
                        else 0.0
                    ),
                }
            )
        capacity[choice.name] = (systems * unit.accelerators_per_system).tolist()
        owned_capacity += systems * unit.accelerators_per_system
        served_owned += np.array([x[program.served[choice.name][m]] for m in range(1, horizon + 1)])
    commitments = []
    for rent_choice in inputs.rent:
        per_instance = float(rent_choice.option.accelerators_per_instance) * rent_choice.equivalence
        supply = np.zeros(horizon)
        if rent_choice.option.pricing_model == PricingModel.RESERVED:
            term = int(round(float(rent_choice.option.commitment_months)))
            for start, var in program.commits[rent_choice.name].items():
                count = int(round(x[var]))
                if not count:
                    continue
                end = start + term - 1
                supply[start - 1 : min(end, horizon)] += count * per_instance
                commitments.append(
                    {
                        "choice": rent_choice.name,
                        "start_month": start,
                        "end_month": end,
                        "instances": count,
                        "accelerators": count * float(rent_choice.option.accelerators_per_instance),
                        "months_after_horizon": max(0, end - horizon),
                    }
                )
        else:
            for m, var in program.instances[rent_choice.name].items():
                supply[m - 1] = x[var] * per_instance
        capacity[rent_choice.name] = supply.tolist()
    cash = solution.cash_by_category
    total = solution.cash_usd
    utilisation = np.divide(served_owned, owned_capacity, out=np.zeros(horizon), where=owned_capacity > 0)
    return {
        "horizon_months": horizon,
        "months_on_cash_axis": program.n_months,
        "demand_accelerators": demand,
        "utilisation": list(inputs.demand.utilisation),
        "sources": [{"name": c.name, "kind": "owned"} for c in inputs.owned]
        + [{"name": c.name, "kind": str(c.option.pricing_model)} for c in inputs.rent],
        "capacity_accelerators": capacity,
        "owned_served_accelerators": served_owned.tolist(),
        "owned_utilisation": utilisation.tolist(),
        "orders": sorted(orders, key=lambda o: (o["order_month"], o["choice"])),
        "commitments": sorted(commitments, key=lambda c: (c["start_month"], c["choice"])),
        "cash_by_category_usd": {name: values.tolist() for name, values in cash.items() if np.any(values)},
        "cash_usd": total.tolist(),
        "total_usd": float(total.sum()),
        "npv_usd": solution.npv_usd,
        "cooling_tiers": {name: unit.cooling_tier for name, unit in program.units.items()},
    }


def baselines(inputs: PlanInputs) -> dict[str, tuple[PlanInputs, int | None] | str]:
    """The all-rent and all-buy plans to compare with, or why one cannot be made.

    All-rent: no new systems (an existing fleet still serves). All-buy: new systems
    only, with on-demand bridging the months before the shortest lead time allows
    a delivery. Both keep the physical limits and the capex budget, not the
    minimum shares (which they break by definition).
    """
    limits = replace(inputs.limits, min_owned_share=0.0, min_rented_share=0.0)
    result: dict[str, tuple[PlanInputs, int | None] | str] = {}
    if inputs.rent:
        owned = tuple(replace(choice, can_order=False) for choice in inputs.owned)
        result["all_rent"] = (replace(inputs, owned=owned, limits=limits), None)
    else:
        result["all_rent"] = "no rent option is offered"
    orderable = [choice for choice in inputs.owned if choice.can_order]
    if orderable:
        on_demand = tuple(c for c in inputs.rent if c.option.pricing_model == PricingModel.ON_DEMAND)
        result["all_buy"] = (
            replace(inputs, rent=on_demand, limits=limits),
            min(c.earliest_order_month + c.lead_time_months for c in orderable),
        )
    else:
        result["all_buy"] = "no system can be bought"
    return result


def _baseline(base: tuple[PlanInputs, int | None] | str) -> dict[str, Any]:
    if isinstance(base, str):
        return {"available": False, "reason": base}
    inputs, rent_last_month = base
    try:
        solution = solve_program(build_program(inputs, rent_last_month=rent_last_month))
    except Infeasible:
        reason = diagnose_infeasible(inputs, rent_last_month=rent_last_month)["message"]
        return {"available": False, "reason": reason}
    figures = describe(solution)
    keep = ("npv_usd", "total_usd", "cash_usd", "orders", "commitments", "capacity_accelerators")
    return {"available": True, **{key: figures[key] for key in keep}}


def _best_baseline(found: dict[str, dict[str, Any]]) -> str | None:
    available = {name: figures["npv_usd"] for name, figures in found.items() if figures["available"]}
    return min(available, key=available.__getitem__) if available else None


def explain(solution: Solution) -> list[dict[str, Any]]:
    """For each limit: where it is at its bound, its LP-relaxation dual value, a re-solve one step looser."""
    program = solution.program
    families = sorted(
        {row.family for row in program.rows if row.family in LIMIT_FAMILIES}, key=LIMIT_FAMILIES.index
    )
    if not families:
        return []
    try:
        relief = relief_values(program)
    except Infeasible:
        relief = np.zeros(len(program.rows))
    found = []
    for family in families:
        rows = [i for i, row in enumerate(program.rows) if row.family == family]
        step, step_words = _relaxation_step(program, family)
        at_limit = sorted(
            {program.rows[i].month for i in rows if solution.at_limit(i, _granularity(program, family))}
        )
        lp_value = float(sum(relief[i] for i in rows))
        saving = None
        if at_limit and family != "spot_share":
            looser = build_program(_loosened(program.inputs, family, step))
            saving = solution.npv_usd - solve_program(looser).npv_usd
        label, unit = LIMIT_LABELS[family]
        binds = (saving or 0.0) > CENT or lp_value > CENT
        found.append(
            {
                "limit": family,
                "label": label,
                "binds": binds,
                "months_at_limit": at_limit,
                "lp_dual_usd_per_unit": lp_value,
                "unit": unit,
                "step": step,
                "step_words": step_words,
                "resolve_saving_usd": saving,
                "sentence": _limit_sentence(label, unit, at_limit, lp_value, step_words, saving, binds),
            }
        )
    return found


def _relaxation_step(program: Program, family: str) -> tuple[float, str]:
    """One unit of a limit that can change a plan made of whole systems."""
    inputs = program.inputs
    orderable = [c for c in inputs.owned if c.can_order]
    if family in ("site_power", "site_cooling") and orderable:
        choice = min(orderable, key=lambda c: program.units[c.name].it_kw_max)
        kw = program.units[choice.name].it_kw_max
        return kw, f"{kw:,.1f} kW (one more {choice.name})"
    if family == "site_racks":
        return 1.0, "one more rack"
    if family == "capex_budget" and orderable:
        choice = min(orderable, key=lambda c: program.units[c.name].capex_usd)
        usd = program.units[choice.name].capex_usd
        return usd, f"{money(usd, 0)} a period (one more {choice.name})"
    return 0.01, "one percentage point"


def _granularity(program: Program, family: str) -> float:
    """Slack below which a limit counts as full: less than one whole system, rack or system's capex."""
    if family in ("site_power", "site_racks", "site_cooling", "capex_budget"):
        return _relaxation_step(program, family)[0]
    return 0.0


def _loosened(inputs: PlanInputs, family: str, step: float) -> PlanInputs:
    """The plan with one limit family a step looser, at every site as well as plan-wide."""
    what = {"site_power": "it_power_kw", "site_racks": "racks"}.get(family)
    sites = tuple(
        replace(site, **({what: getattr(site, what) + step} if what else {}),
                cooling_kw={medium: kw + step for medium, kw in site.cooling_kw.items()}
                if family == "site_cooling" else site.cooling_kw)
        for site in inputs.sites)
    return replace(inputs, sites=sites, limits=_loosen(inputs.limits, family, step))


def _loosen(limits: Limits, family: str, step: float) -> Limits:
    if family == "site_power":
        return replace(limits, site_it_power_kw=limits.site_it_power_kw + step)
    if family == "site_racks":
        return replace(limits, site_racks=limits.site_racks + step)
    if family == "capex_budget":
        return replace(limits, capex_usd_per_period=limits.capex_usd_per_period + step)
    if family == "min_owned_share":
        return replace(limits, min_owned_share=max(0.0, limits.min_owned_share - step))
    if family == "min_rented_share":
        return replace(limits, min_rented_share=max(0.0, limits.min_rented_share - step))
    return limits  # spot caps are per offer; their dual value says what a looser cap is worth


def _limit_sentence(
    label: str,
    unit: str,
    at_limit: list[int],
    lp_value: float,
    step_words: str,
    saving: float | None,
    binds: bool,
) -> str:
    if not binds:
        where = f" (at its bound in months {_month_ranges(at_limit)})" if at_limit else ""
        return f"The {label} does not bind{where}: relaxing it saves nothing."
    parts = [f"The {label} binds in months {_month_ranges(at_limit)}." if at_limit else f"The {label} binds."]
    parts.append(
        f"In the LP relaxation (whole systems relaxed), each {unit} more in every month it applies "
        f"saves ${lp_value:,.2f} of NPV."
    )
    if saving is not None:
        parts.append(f"Re-solved with whole systems, {step_words} saves ${saving:,.2f} of NPV.")
    return " ".join(parts)


def _month_ranges(months: list[int]) -> str:
    """``[1, 2, 3, 7]`` -> ``"1-3, 7"``."""
    ranges, start = [], None
    for index, month in enumerate(months):
        if start is None:
            start = month
        if index + 1 == len(months) or months[index + 1] != month + 1:
            ranges.append(f"{start}" if start == month else f"{start}-{month}")
            start = None
    return ", ".join(ranges)


def diagnose_infeasible(inputs: PlanInputs, *, rent_last_month: int | None = None) -> dict[str, Any]:
    """Where an infeasible plan first falls short, and which limits hold it back then."""
    program = build_program(inputs, rent_last_month=rent_last_month, elastic=True)
    solution = solve_program(program)
    short = {m: solution.x[var] for m, var in program.shortfall.items()}
    failing = [m for m, value in short.items() if value > 1e-6]
    first = min(failing) if failing else 1
    binding = []
    for index, row in enumerate(program.rows):
        if row.family not in LIMIT_FAMILIES or not solution.at_limit(
            index, _granularity(program, row.family)
        ):
            continue
        in_month = row.month == first or (row.family == "capex_budget" and row.month <= first)
        label = LIMIT_LABELS[row.family][0]
        if in_month and label not in binding:
            binding.append(label)
    orderable = [c for c in inputs.owned if c.can_order]
    earliest = min((c.earliest_order_month + c.lead_time_months + 1 for c in orderable), default=math.inf)
    rent_offered = bool(inputs.rent) and (rent_last_month is None or first <= rent_last_month)
    if first < earliest and not rent_offered:
        binding.append(
            f"lead time (no system ordered serves before month {earliest}, and nothing is rented then)"
        )
    need = inputs.demand.accelerators[first - 1]
    served = need - short.get(first, 0.0)
    because = ", ".join(binding) if binding else "the choices offered"
    message = (
        f"Infeasible: demand cannot be met from month {first} "
        f"({need:,.1f} accelerators needed, at most {served:,.1f} can be served); held back by {because}."
    )
    return {
        "first_failing_month": first,
        "binding_limits": binding,
        "shortfall_accelerators": float(short.get(first, 0.0)),
        "message": message,
    }
