"""A plan's JSON spec read against a scenario's engine inputs (catalog, facility, finance).

Example::

    {"demand": {"start": 8, "growth_per_month": 0.05, "months": 36},   # or {"table": [8, 8, 9, ...]}
     "utilisation": 0.7,                                                # or one value per month
     "owned": [{"name": "DGX H100", "lead_time_months": 4, "capex_timing": "order",
                "existing_systems": 0, "existing_age_months": 0, "service_life_months": 60,
                "buy": {"system_price_usd": 350000}}],                  # overrides of the scenario's buy
     "rent": [{"name": "p5 on demand"}, {"name": "p5 spot", "spot_share_cap": 0.2}],
     "limits": {"site_it_power_kw": 100, "site_racks": 4, "capex_usd_per_period": 1e6,
                "capex_period_months": 3, "min_owned_share": 0, "min_rented_share": 0},
     "sites": [{"name": "Frankfurt", "it_power_kw": 500, "racks": 10, "cooling_kw": {"air": 48},
                "facility": {"electricity_usd_per_kwh": 0.2, "pue": 1.4}}],  # own costs and limits
     "term_structure": {"terms": ["on_demand", "12"]},                  # costmodel.plan.market
     "next_generation": {"available_month": 12, "throughput_ratio": 2},
     "uncertainty": {"draws": 1000, "seed": 7,
                     "growth_delta_per_month": {"kind": "triangular", "low": -0.02, "mode": 0, "high": 0.02},
                     "rent_price_factor": {"kind": "triangular", "low": 0.8, "mode": 1, "high": 1.2}}}

Demand ``start`` defaults to the scenario's accelerators (sized from its workload
when it has a sizing); ``utilisation`` to the scenario's; ``owned`` to one choice
of the scenario's system; ``rent`` to all of the scenario's rent options. With ``sites``,
each system to buy may be placed at every site (an owned item's ``site`` pins it to one), as
one choice per site named "<system> at <site>" with the site's facility and limits; existing
systems stay at the first. With ``term_structure``, each term of the scenario's curve is a rent
choice and ``rent`` defaults to none; ``next_generation`` adds an owned choice available from its
month (``costmodel.plan.market``, at the scenario's facility).
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import fields
from dataclasses import replace
from typing import Any

from costmodel.inputs import BuyOption
from costmodel.inputs import Facility
from costmodel.inputs import Scenario
from costmodel.plan.inputs import Demand
from costmodel.plan.inputs import Limits
from costmodel.plan.inputs import OwnedChoice
from costmodel.plan.inputs import PlanInputError
from costmodel.plan.inputs import PlanInputs
from costmodel.plan.inputs import PlanSite
from costmodel.plan.inputs import RentChoice
from costmodel.plan.market import next_generation_choice
from costmodel.plan.market import term_choices
from costmodel.plan.spec_values import mapping as _mapping
from costmodel.plan.spec_values import number as _number
from costmodel.plan.spec_values import whole as _whole
from costmodel.strategies import NextGeneration
from costmodel.term_structure import TermStructure

MAX_MONTHS = 240
# A plan's size: systems to buy, and months x choices (owned and rented), which sets the
# solver's work. 240 months x 10 choices solves in seconds; 240 x 350 ran past 5 minutes.
MAX_OWNED_CHOICES = 10
MAX_CHOICE_MONTHS = 2_400
OWNED_KEYS = {
    "name",
    "lead_time_months",
    "capex_timing",
    "existing_systems",
    "existing_age_months",
    "service_life_months",
    "equivalence",
    "can_order",
    "buy",
    "site",
}
RENT_KEYS = {"name", "spot_share_cap", "equivalence"}
SPEC_KEYS = {"demand", "utilisation", "owned", "rent", "limits", "uncertainty", "sites", "term_structure",
             "next_generation"}
SITE_KEYS = {"name", "it_power_kw", "racks", "cooling_kw", "facility"}
COOLING_MEDIA = ("air", "liquid")


def plan_inputs(spec: Any, scenario: Scenario, *, system_name: str = "owned system",
                cooling_media: dict[str, str] | None = None, curve: TermStructure | None = None,
                next_generation: NextGeneration | None = None) -> PlanInputs:
    """PlanInputs from a spec and the scenario it plans for; ``PlanInputError`` names the field.

    ``cooling_media`` maps each cooling tier's name to the medium it serves (air, liquid), for
    the sites' cooling limits. ``curve`` is the scenario's term structure and ``next_generation``
    the defaults of the generation after its accelerator, both in the scenario's currency, for a
    spec that asks for them.
    """
    spec = _mapping(spec, "spec")
    unknown = set(spec) - SPEC_KEYS
    if unknown:
        raise PlanInputError(sorted(unknown)[0], "is not a plan setting")
    accelerators = _demand(spec.get("demand", {}), float(scenario.workload.accelerators))
    months = len(accelerators)
    utilisation = _per_month(
        spec.get("utilisation", float(scenario.workload.utilisation)), months, "utilisation"
    )
    demand = Demand(accelerators, utilisation, float(scenario.workload.hours_per_month))
    owned_spec = spec.get("owned", [{"name": system_name}])
    if not isinstance(owned_spec, list):
        raise PlanInputError("owned", "must be a list of systems to buy")
    if len(owned_spec) > MAX_OWNED_CHOICES:
        raise PlanInputError("owned", f"{len(owned_spec):,} systems to buy; the plan limit is "
                                      f"{MAX_OWNED_CHOICES}")
    owned = tuple(_owned(item, index, scenario.buy, system_name) for index, item in enumerate(owned_spec))
    sites_spec = spec.get("sites", [])
    if not isinstance(sites_spec, list):
        raise PlanInputError("sites", "must be a list of sites")
    sites = tuple(_site(item, index, scenario.facility) for index, item in enumerate(sites_spec))
    if len({site.name for site in sites}) < len(sites):
        raise PlanInputError("sites", "names a site twice")
    if sites:
        owned = _at_sites(owned, owned_spec, sites)
    if "next_generation" in spec:
        owned += (next_generation_choice(spec["next_generation"], next_generation, scenario.buy, months),)
    by_name = {option.name: option for option in scenario.rent}
    with_curve = "term_structure" in spec
    rent_spec = spec.get("rent", [] if with_curve else [{"name": name} for name in by_name])
    if not isinstance(rent_spec, list):
        raise PlanInputError("rent", "must be a list of the scenario's rent options")
    rent = tuple(_rent(item, index, by_name) for index, item in enumerate(rent_spec))
    if with_curve:
        rent += term_choices(spec["term_structure"], curve, months)
    _size_check(months, len(owned), len(rent))
    return PlanInputs(
        demand=demand,
        owned=owned,
        rent=rent,
        facility=scenario.facility,
        cooling=scenario.cooling,
        discount_rate_per_year=float(scenario.finance.discount_rate_per_year),
        limits=_limits(spec.get("limits", {})),
        sites=sites,
        cooling_media=dict(cooling_media or {}),
    )


def _site(raw: Any, index: int, facility: Facility) -> PlanSite:
    path = f"sites.{index}"
    raw = _mapping(raw, path)
    unknown = set(raw) - SITE_KEYS
    if unknown:
        raise PlanInputError(f"{path}.{sorted(unknown)[0]}", "is not a setting of a site")
    name = str(raw.get("name") or "").strip()
    if not name:
        raise PlanInputError(f"{path}.name", "give the site a name")
    overrides = _mapping(raw.get("facility", {}), f"{path}.facility")
    names = {f.name for f in fields(Facility)}
    for key, value in overrides.items():
        if key not in names:
            raise PlanInputError(f"{path}.facility.{key}", "is not a facility input")
        overrides[key] = _number(value, f"{path}.facility.{key}")
    cooling = _mapping(raw.get("cooling_kw", {}), f"{path}.cooling_kw")
    for medium, value in cooling.items():
        if medium not in COOLING_MEDIA:
            raise PlanInputError(f"{path}.cooling_kw.{medium}", "must be air or liquid")
        cooling[medium] = _at_least_zero(value, f"{path}.cooling_kw.{medium}")
    limits = {key: _at_least_zero(raw[key], f"{path}.{key}") for key in ("it_power_kw", "racks")
              if raw.get(key) is not None}
    return PlanSite(name=name, facility=replace(facility, **overrides), cooling_kw=cooling, **limits)


def _at_sites(owned: tuple[OwnedChoice, ...], owned_spec: list[Any], sites: tuple[PlanSite, ...]
              ) -> tuple[OwnedChoice, ...]:
    """Each system to buy as one choice per site it may go to (existing systems at the first)."""
    names = [site.name for site in sites]
    placed = []
    for index, (choice, raw) in enumerate(zip(owned, owned_spec, strict=True)):
        pinned = raw.get("site")
        if pinned is not None and pinned not in names:
            raise PlanInputError(f"owned.{index}.site",
                                 f"must name one of the plan's sites ({', '.join(names)})")
        where = [pinned] if pinned is not None else names
        for number, site in enumerate(where):
            placed.append(replace(choice, name=f"{choice.name} at {site}", site=site,
                                  existing_systems=choice.existing_systems if number == 0 else 0))
    return tuple(placed)


def _at_least_zero(raw: Any, path: str) -> float:
    value = _number(raw, path)
    if value < 0:
        raise PlanInputError(path, "must be 0 or more")
    return value


def _size_check(months: int, owned: int, rent: int) -> None:
    """Refuse a plan whose months x choices is past ``MAX_CHOICE_MONTHS``, naming the limit."""
    size = months * (owned + rent)
    if size > MAX_CHOICE_MONTHS:
        raise PlanInputError("demand", (
            f"{months} months x {owned + rent} choices ({owned} to buy, {rent} to rent) is "
            f"{size:,} choice-months; the plan limit is {MAX_CHOICE_MONTHS:,}: fewer months or choices"))


def demand_from_csv(text: str) -> list[float]:
    """Demand per month from CSV text: one number per row, or a header row with an ``accelerators`` column."""
    rows = [row for row in csv.reader(io.StringIO(text)) if row and any(cell.strip() for cell in row)]
    if rows and "accelerators" in [cell.strip().lower() for cell in rows[0]]:
        column = [cell.strip().lower() for cell in rows[0]].index("accelerators")
        rows = [[row[column]] if column < len(row) else [""] for row in rows[1:]]
    values = []
    for index, row in enumerate(rows):
        values.append(
            _number(row[0].replace(",", "") if len(row) == 1 else row[-1], f"demand.csv.row {index + 1}")
        )
    if not values:
        raise PlanInputError("demand.csv", "has no rows of demand")
    return values


def _demand(raw: Any, scenario_accelerators: float) -> tuple[float, ...]:
    raw = _mapping(raw, "demand")
    if "table" in raw:
        table = raw["table"]
        if not isinstance(table, list) or not table:
            raise PlanInputError("demand.table", "must be a non-empty list of accelerators per month")
        values = [_number(value, f"demand.table.{index}") for index, value in enumerate(table)]
    elif "csv" in raw:
        values = demand_from_csv(str(raw["csv"]))
    else:
        start = _number(raw.get("start", scenario_accelerators), "demand.start")
        growth = _number(raw.get("growth_per_month", 0.0), "demand.growth_per_month")
        if growth <= -1.0:
            raise PlanInputError("demand.growth_per_month", "must be above -1 (-100 %)")
        months = _whole(raw.get("months", 36), "demand.months", 1, MAX_MONTHS)
        values = list(Demand.growing(start, growth, months, 0.0).accelerators)
        if start < 0:
            raise PlanInputError("demand.start", "must be 0 or more")
    if len(values) > MAX_MONTHS:
        raise PlanInputError("demand", f"covers {len(values)} months; at most {MAX_MONTHS}")
    for index, value in enumerate(values):
        if value < 0:
            raise PlanInputError("demand", f"month {index + 1} is {value:g}; demand must be 0 or more")
    return tuple(values)


def _per_month(raw: Any, months: int, path: str) -> tuple[float, ...]:
    if isinstance(raw, list):
        if len(raw) != months:
            raise PlanInputError(path, f"needs one value per month ({months}), got {len(raw)}")
        return tuple(_number(value, f"{path}.{index}") for index, value in enumerate(raw))
    return (_number(raw, path),) * months


def _owned(raw: Any, index: int, buy: BuyOption, default_name: str) -> OwnedChoice:
    path = f"owned.{index}"
    raw = _mapping(raw, path)
    unknown = set(raw) - OWNED_KEYS
    if unknown:
        raise PlanInputError(f"{path}.{sorted(unknown)[0]}", "is not a setting of a system to buy")
    overrides = _mapping(raw.get("buy", {}), f"{path}.buy")
    names = {f.name for f in fields(BuyOption)}
    for key, value in overrides.items():
        if key not in names:
            raise PlanInputError(f"{path}.buy.{key}", "is not a buy input")
        overrides[key] = _number(value, f"{path}.buy.{key}")
    life = raw.get("service_life_months")
    return OwnedChoice(
        name=str(raw.get("name") or default_name),
        buy=replace(buy, **overrides),
        lead_time_months=_whole(raw.get("lead_time_months", 0), f"{path}.lead_time_months", 0, MAX_MONTHS),
        capex_timing=str(raw.get("capex_timing", "order")),
        existing_systems=_whole(raw.get("existing_systems", 0), f"{path}.existing_systems", 0, 100_000),
        existing_age_months=_whole(
            raw.get("existing_age_months", 0), f"{path}.existing_age_months", 0, 1_000
        ),
        service_life_months=math.inf if life is None else _number(life, f"{path}.service_life_months"),
        equivalence=_number(raw.get("equivalence", 1.0), f"{path}.equivalence"),
        can_order=bool(raw.get("can_order", True)),
    )


def _rent(raw: Any, index: int, by_name: dict[str, Any]) -> RentChoice:
    path = f"rent.{index}"
    raw = _mapping(raw, path)
    unknown = set(raw) - RENT_KEYS
    if unknown:
        raise PlanInputError(f"{path}.{sorted(unknown)[0]}", "is not a setting of a rent option")
    name = raw.get("name")
    if name not in by_name:
        known = ", ".join(repr(known) for known in by_name) or "none"
        raise PlanInputError(f"{path}.name", f"must name one of the scenario's rent options ({known})")
    return RentChoice(
        by_name[name],
        equivalence=_number(raw.get("equivalence", 1.0), f"{path}.equivalence"),
        spot_share_cap=_number(raw.get("spot_share_cap", 1.0), f"{path}.spot_share_cap"),
    )


def _limits(raw: Any) -> Limits:
    raw = _mapping(raw, "limits")
    names = {f.name for f in fields(Limits)}
    values: dict[str, Any] = {}  # Limits' fields by name (floats, one int), each checked below
    for key, value in raw.items():
        if key not in names:
            raise PlanInputError(f"limits.{key}", "is not a limit")
        if value is None:
            continue
        values[key] = (
            _whole(value, f"limits.{key}", 1, 12)
            if key == "capex_period_months"
            else _number(value, f"limits.{key}")
        )
    return Limits(**values)
