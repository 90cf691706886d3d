"""Reject plan inputs that cannot be planned, naming the field, before building the program."""

from __future__ import annotations

import math

import numpy as np

from costmodel.inputs import InputError
from costmodel.inputs import numeric_fields
from costmodel.plan.inputs import CapexTiming
from costmodel.plan.inputs import OwnedChoice
from costmodel.plan.inputs import PlanInputError
from costmodel.plan.inputs import PlanInputs
from costmodel.plan.inputs import RentChoice
from costmodel.validation import _check_pricing_terms
from costmodel.validation import _check_range


def validate_plan(inputs: PlanInputs) -> None:
    """Raise ``PlanInputError`` for the first input a plan cannot use."""
    _check_demand(inputs)
    if not inputs.rent and not any(choice.can_order or choice.existing_systems for choice in inputs.owned):
        raise PlanInputError("choices", "needs at least one system to buy or own, or one rent option")
    if not math.isfinite(inputs.discount_rate_per_year) or inputs.discount_rate_per_year <= -1.0:
        raise PlanInputError("discount_rate_per_year", "must be a finite rate above -1")
    horizon = inputs.demand.horizon_months
    for index, choice in enumerate(inputs.owned):
        prefix = f"owned.{index}"
        if choice.can_order and not 0 <= choice.lead_time_months < horizon:
            raise PlanInputError(
                f"{prefix}.lead_time_months",
                f"must be a whole number from 0 to {horizon - 1} (the horizon is {horizon} months)",
            )
        if choice.can_order and not 0 <= choice.earliest_order_month < horizon - choice.lead_time_months:
            raise PlanInputError(
                f"{prefix}.earliest_order_month",
                f"must be a whole month from 0 to {horizon - 1 - choice.lead_time_months} (the horizon "
                f"is {horizon} months, the lead time {choice.lead_time_months})",
            )
        if choice.capex_timing not in set(CapexTiming):
            raise PlanInputError(f"{prefix}.capex_timing", f"must be one of {', '.join(CapexTiming)}")
        if choice.existing_systems < 0 or choice.existing_age_months < 0:
            raise PlanInputError(
                f"{prefix}.existing_systems", "the existing fleet and its age must not be negative"
            )
        if not choice.service_life_months > 0:
            raise PlanInputError(f"{prefix}.service_life_months", "must be positive")
        _check_equivalence(f"{prefix}.equivalence", choice.equivalence)
        _check_section(prefix, choice.buy)
        if choice.buy.system_power_idle_kw > choice.buy.system_power_max_kw:
            raise PlanInputError(f"{prefix}.system_power_idle_kw", "must not exceed system_power_max_kw")
    _check_section("facility", inputs.facility)
    for index, tier in enumerate(inputs.cooling):
        _check_section(f"cooling.{index}", tier)
    if not inputs.cooling:
        raise PlanInputError("cooling", "needs at least one cooling tier")
    choices: tuple[OwnedChoice | RentChoice, ...] = (*inputs.owned, *inputs.rent)
    names = [choice.name for choice in choices]
    for index, name in enumerate(names):
        if not name or name in names[:index]:
            raise PlanInputError("choices", f"every choice needs a unique, non-empty name; {name!r} is not")
    for index, rent_choice in enumerate(inputs.rent):
        _check_equivalence(f"rent.{index}.equivalence", rent_choice.equivalence)
        if not 0.0 <= rent_choice.spot_share_cap <= 1.0:
            raise PlanInputError(f"rent.{index}.spot_share_cap", "must be a share from 0 to 1")
        _check_section(f"rent.{index}", rent_choice.option)
        forward = rent_choice.forward_usd_per_instance_hour
        if forward and (len(forward) != horizon or not all(price > 0 for price in forward)):
            raise PlanInputError(f"rent.{index}.forward_usd_per_instance_hour",
                                 f"needs one positive price per month ({horizon})")
        _check_pricing_terms(f"rent.{index}", rent_choice.option)
    _check_limits(inputs)


def _check_demand(inputs: PlanInputs) -> None:
    demand = inputs.demand
    if demand.horizon_months < 1:
        raise PlanInputError("demand.accelerators", "needs at least one month")
    if len(demand.utilisation) != demand.horizon_months:
        raise PlanInputError("demand.utilisation", "needs one value per month of demand")
    values = np.asarray(demand.accelerators, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(values) | (values < 0))
    if bad.size:
        raise PlanInputError(
            "demand.accelerators", f"month {bad[0] + 1} is {values[bad[0]]}; demand must be 0 or more"
        )
    shares = np.asarray(demand.utilisation, dtype=np.float64)
    bad = np.flatnonzero(~((shares >= 0) & (shares <= 1)))
    if bad.size:
        raise PlanInputError(
            "demand.utilisation", f"month {bad[0] + 1} is {shares[bad[0]]}; must be from 0 to 1"
        )
    if not demand.hours_per_month > 0:
        raise PlanInputError("demand.hours_per_month", "must be positive")


def _check_equivalence(path: str, value: float) -> None:
    if not (math.isfinite(value) and value > 0):
        raise PlanInputError(path, "must be a positive number of reference accelerators per accelerator")


def _check_limits(inputs: PlanInputs) -> None:
    limits = inputs.limits
    for name in ("site_it_power_kw", "site_racks", "capex_usd_per_period"):
        if not getattr(limits, name) >= 0:
            raise PlanInputError(f"limits.{name}", "must be 0 or more (leave it empty for no limit)")
    if limits.capex_period_months not in (3, 12):
        raise PlanInputError("limits.capex_period_months", "must be 3 (quarter) or 12 (year)")
    for name in ("min_owned_share", "min_rented_share"):
        if not 0.0 <= getattr(limits, name) <= 1.0:
            raise PlanInputError(f"limits.{name}", "must be a share from 0 to 1")
    if limits.min_owned_share + limits.min_rented_share > 1.0:
        raise PlanInputError(
            "limits.min_owned_share", "the minimum owned and rented shares add up to more than 100 %"
        )


def _check_section(prefix: str, section: object) -> None:
    """The engine's range check of every numeric field of one input dataclass."""
    for name, value, metadata in numeric_fields(section):
        try:
            _check_range(f"{prefix}.{name}", value, metadata)
        except InputError as error:
            raise PlanInputError(error.path, error.message) from error
