"""A plan's choices from the market: the scenario's term structure and the next generation.

Each term of the curve the spec asks for becomes a rent choice of one accelerator per instance at
the term's price per accelerator-hour (already in the scenario's currency), at its forward price
for a later start where the curve has forward points: on demand and spot
month by month, each month term a reserved commitment of that many months that the program may
start in any month, so it renews as often as it pays. The next generation becomes an owned choice
that cannot be ordered before its availability month: the scenario's system at the next
generation's price, each accelerator serving ``throughput_ratio`` accelerators of demand.

Spec::

    {"term_structure": {"terms": ["on_demand", "12"], "spot_share_cap": 0.2},   # {} = every term but spot
     "next_generation": {"available_month": 12, "system_price": 350000,        # {} = the sourced defaults
                         "throughput_ratio": 2, "lead_time_months": 0}}
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from costmodel.inputs import BuyOption
from costmodel.inputs import PricingModel
from costmodel.inputs import RentOption
from costmodel.plan.inputs import OwnedChoice
from costmodel.plan.inputs import PlanInputError
from costmodel.plan.inputs import RentChoice
from costmodel.plan.spec_values import mapping
from costmodel.plan.spec_values import number
from costmodel.plan.spec_values import whole
from costmodel.strategies import NextGeneration
from costmodel.term_structure import SPOT
from costmodel.term_structure import TERM_LADDER
from costmodel.term_structure import TermStructure
from costmodel.term_structure import term_label
from costmodel.term_structure import term_months

TERM_KEYS = {"terms", "spot_share_cap"}
NEXT_GENERATION_KEYS = {"available_month", "system_price", "throughput_ratio", "lead_time_months",
                        "service_life_months"}


def term_choice_name(term: str) -> str:
    """How a plan names a term of the curve.

    Examples
    --------
    >>> term_choice_name("12"), term_choice_name("on_demand")
    ('12-month term', 'on-demand term')
    """
    return f"{term}-month term" if term_months(term) else f"{term_label(term).replace(' ', '-')} term"


def term_choices(raw: Any, curve: TermStructure | None, horizon: int) -> tuple[RentChoice, ...]:
    """The rent choices of ``spec["term_structure"]`` from the scenario's curve, each at its
    forward prices where the curve has them (month m at the price of a start m - 1 months on, as
    the strategies price it)."""
    raw = mapping(raw, "term_structure")
    unknown = set(raw) - TERM_KEYS
    if unknown:
        raise PlanInputError(f"term_structure.{sorted(unknown)[0]}", "is not a term structure setting")
    if curve is None:
        raise PlanInputError("term_structure", "the scenario's accelerator has no rental curve")
    offered = [price.term for price in curve.prices]
    terms = raw.get("terms", [term for term in offered if term != SPOT])
    if not isinstance(terms, list) or not terms:
        raise PlanInputError("term_structure.terms", "must be a non-empty list of terms")
    words = ", ".join(term_label(term) for term in offered)
    for index, term in enumerate(terms):
        if term not in offered:
            raise PlanInputError(f"term_structure.terms.{index}",
                                 f"{term!r} is not a term of the curve (it offers {words})")
    if len(set(terms)) < len(terms):
        raise PlanInputError("term_structure.terms", "names a term twice")
    cap = number(raw.get("spot_share_cap", 1.0), "term_structure.spot_share_cap")
    ordered = sorted(terms, key=TERM_LADDER.index)
    starts = np.arange(horizon, dtype=np.float64)
    return tuple(
        RentChoice(_term_option(curve, term), spot_share_cap=cap if term == SPOT else 1.0,
                   forward_usd_per_instance_hour=tuple(curve.forward_usd(term, starts).tolist())
                   if curve.price(term).forward else ())
        for term in ordered)


def _term_option(curve: TermStructure, term: str) -> RentOption:
    price = curve.price(term).price_usd_per_accelerator_hour
    months = term_months(term)
    if months:
        return RentOption(term_choice_name(term), PricingModel.RESERVED, price, 1.0,
                          commitment_months=float(months))
    model = PricingModel.SPOT if term == SPOT else PricingModel.ON_DEMAND
    return RentOption(term_choice_name(term), model, price, 1.0,
                      spot_interruption_overhead=curve.spot_interruption_overhead if term == SPOT else 0.0)


def next_generation_choice(raw: Any, following: NextGeneration | None, buy: BuyOption,
                           horizon: int) -> OwnedChoice:
    """The owned choice of ``spec["next_generation"]``: its fields over ``following``'s defaults."""
    raw = mapping(raw, "next_generation")
    unknown = set(raw) - NEXT_GENERATION_KEYS
    if unknown:
        raise PlanInputError(f"next_generation.{sorted(unknown)[0]}", "is not a next generation setting")
    base = following or NextGeneration("next generation", None, None, None)
    defaults = {"available_month": base.available_month, "system_price": base.system_price_usd,
                "throughput_ratio": base.throughput_ratio}
    given: dict[str, float] = {}
    for key, default in defaults.items():
        if key not in raw and default is None:
            raise PlanInputError(f"next_generation.{key}", "is missing: no default for this accelerator")
        given[key] = number(raw.get(key, default), f"next_generation.{key}")
    lead = whole(raw.get("lead_time_months", 0), "next_generation.lead_time_months", 0, horizon - 1)
    month = given["available_month"]
    last = horizon - 1 - lead  # the last month an order still arrives within the horizon
    if month != int(month) or not 0 <= month <= last:
        raise PlanInputError("next_generation.available_month", (
            f"{month:g} is outside the plan: a whole month from 0 to {last} (the horizon is {horizon} "
            f"months, the lead time {lead})"))
    if not given["system_price"] > 0:
        raise PlanInputError("next_generation.system_price", "must be a positive price per system")
    ratio = given["throughput_ratio"]
    if not (ratio > 0 and math.isfinite(ratio)):
        raise PlanInputError("next_generation.throughput_ratio",
                             "must be a positive ratio of its throughput per accelerator to today's")
    life = raw.get("service_life_months")
    system = replace(buy, system_price_usd=given["system_price"])
    for field in ("accelerators_per_system", "system_power_max_kw", "system_power_idle_kw"):
        value = getattr(base, field)
        if value is not None:  # else the scenario's system's
            system = replace(system, **{field: value})
    return OwnedChoice(
        name=f"{base.name} (next generation, from month {month:g})",
        buy=system,
        lead_time_months=lead,
        service_life_months=math.inf if life is None else number(life, "next_generation.service_life_months"),
        equivalence=ratio,
        earliest_order_month=int(month),
    )
