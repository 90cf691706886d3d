"""Reject inputs outside their valid range before any arithmetic happens.

Errors name the dotted input path (``buy.system_power_idle_kw``) so callers can
turn them into field errors.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from costmodel.elementwise import any_true
from costmodel.elementwise import as_float
from costmodel.elementwise import isnan
from costmodel.inputs import MAX_CURVE_POINTS
from costmodel.inputs import MAX_RENT_OPTIONS
from costmodel.inputs import BillingBasis
from costmodel.inputs import InputError
from costmodel.inputs import PricingModel
from costmodel.inputs import RentOption
from costmodel.inputs import Scenario
from costmodel.inputs import input_sections
from costmodel.inputs import numeric_field_metadata
from costmodel.inputs import numeric_fields

_PRICING_MODELS = frozenset(PricingModel)
_BILLING_BASES = frozenset(BillingBasis)


def validate(inputs: Scenario, *, ranges: bool = True) -> None:
    """Raise ``InputError`` for the first input outside its valid range.

    Parameters
    ----------
    inputs : Scenario
        Scalar or batched scenario; every element of every array is checked.
    ranges : bool
        Check each input against its own range; False only where that is known to
        hold (a sensitivity batch clips its moves into the ranges), leaving the
        checks between inputs.
    """
    if ranges:
        for prefix, section in input_sections(inputs):
            values = vars(section)
            cls: type = type(section)  # mypy takes type(x) for unhashable (python/mypy#11470)
            for name, (low, high, low_closed, high_closed, metadata) in _ranges(cls).items():
                value = values[name]
                # One scenario's inputs are plain floats, most of them finite and in range: checked
                # with two comparisons, without arrays or a path to name.
                if type(value) is float and (
                    (low < value or (low_closed and value == low))
                    and (value < high or (high_closed and value == high))
                    or _scalar_in_range(value, metadata)
                ):
                    continue
                _check_range(f"{prefix}.{name}", value, metadata)
    _check_buy(inputs)
    check_residual_curve(inputs.buy.residual_curve)
    _check_cooling(inputs)
    _check_rent(inputs)
    _check_tokens(inputs)


def check_section(prefix: str, section: Any) -> None:
    """Raise ``InputError`` (``<prefix>.<field>``) for the first numeric field of ``section``
    outside its declared range or off its declared step: terms that are no part of a
    ``Scenario`` (tax, leases) checked as its inputs are."""
    for name, value, metadata in numeric_fields(section):
        path = f"{prefix}.{name}"
        _check_range(path, value, metadata)
        step = metadata["step"]
        if step and np.any(np.asarray(value, dtype=np.float64) % step):
            raise InputError(path, f"must be a whole multiple of {step:g} ({step:g}, {2 * step:g}, ...)")


@functools.cache
def _ranges(cls: type) -> dict[str, tuple[float, float, bool, bool, Mapping[str, Any]]]:
    """Field name -> (low, high, low end valid, high end valid, metadata) of each numeric field
    of an input dataclass (an infinite high end is valid only where inf is allowed)."""
    return {
        name: (
            metadata["low"],
            metadata["high"],
            not metadata["low_open"],
            not metadata["high_open"] and (math.isfinite(metadata["high"]) or metadata["inf_allowed"]),
            metadata,
        )
        for name, metadata in numeric_field_metadata(cls).items()
    }


def _check_range(path: str, value: Any, metadata: Mapping[str, Any]) -> None:
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise InputError(path, f"must be a number or an array of numbers, got {value!r}") from error
    checked = array[~np.isnan(array)] if metadata["nan_allowed"] else array
    if np.isnan(checked).any():
        raise InputError(path, "must not be NaN")
    forbidden_inf = np.isneginf(checked) if metadata["inf_allowed"] else np.isinf(checked)
    if forbidden_inf.any():
        raise InputError(path, "must be finite")
    low, high = metadata["low"], metadata["high"]
    too_low = checked <= low if metadata["low_open"] else checked < low
    too_high = checked >= high if metadata["high_open"] else checked > high
    if too_low.any() or too_high.any():
        left = "(" if metadata["low_open"] else "["
        right = ")" if metadata["high_open"] else "]"
        raise InputError(path, f"must be in {left}{low}, {high}{right}")


def _scalar_in_range(value: float, metadata: Mapping[str, Any]) -> bool:
    """Whether a float passes every check of ``_check_range`` (which words the error otherwise)."""
    if math.isnan(value):
        return bool(metadata["nan_allowed"])
    if math.isinf(value) and not (metadata["inf_allowed"] and value > 0):
        return False
    low: float = metadata["low"]
    high: float = metadata["high"]
    above_low = value > low if metadata["low_open"] else value >= low
    below_high = value < high if metadata["high_open"] else value <= high
    return above_low and below_high


def _check_buy(inputs: Scenario) -> None:
    buy = inputs.buy
    if any_true(as_float(buy.system_power_idle_kw) > as_float(buy.system_power_max_kw)):
        raise InputError("buy.system_power_idle_kw", "must not exceed buy.system_power_max_kw")
    unpaid_loan = (as_float(buy.financed_share) > 0) & (np.rint(as_float(buy.loan_term_months)) < 1)
    if any_true(unpaid_loan):
        raise InputError("buy.loan_term_months", "must be at least 1 month when financed_share > 0")


def check_residual_curve(curve: tuple[tuple[float, float], ...]) -> None:
    """A resale curve: months from 0 strictly increasing, shares in [0, 1] that never rise."""
    path = "buy.residual_curve"
    if not curve:
        return
    if len(curve) > MAX_CURVE_POINTS:
        raise InputError(path, f"has {len(curve):,} points; the curve limit is {MAX_CURVE_POINTS} "
                               "(a point a month over the longest horizon)")
    try:
        months, shares = (np.asarray(column, dtype=np.float64) for column in zip(*curve, strict=True))
    except (TypeError, ValueError) as error:
        raise InputError(path, "must be (month, share) pairs of numbers") from error
    if not (np.isfinite(months).all() and np.isfinite(shares).all()):
        raise InputError(path, "months and shares must be finite numbers")
    if months[0] < 0 or np.any(np.diff(months) <= 0):
        raise InputError(path, "months must start at 0 or later and increase strictly")
    if np.any((shares < 0) | (shares > 1)):
        raise InputError(path, "shares must be in [0, 1]")
    rising = np.flatnonzero(np.diff(shares) > 0)
    if rising.size:
        at = int(rising[0])
        raise InputError(
            path,
            f"a resale value cannot rise with age: {shares[at]:g} at month {months[at]:g} "
            f"but {shares[at + 1]:g} at month {months[at + 1]:g}",
        )


def _check_tokens(inputs: Scenario) -> None:
    """The token mix sums to 1; API options have unique names and a throughput to price."""
    mix = inputs.tokens
    total = as_float(mix.input_share) + mix.cached_input_share + mix.output_share
    if any_true(np.abs(total - 1.0) > 1e-9):
        raise InputError(
            "tokens", f"input, cached-input and output shares must sum to 1, not {np.max(total):g}"
        )
    names = [option.name for option in inputs.api]
    for index, option in enumerate(inputs.api):
        if not option.name or option.name in names[:index] + [o.name for o in inputs.rent]:
            raise InputError(f"api.{index}.name", "must be a unique, non-empty name")
    if inputs.api and any_true(isnan(inputs.workload.tokens_per_s_per_accelerator)):
        raise InputError(
            "workload.tokens_per_s_per_accelerator", "is needed to compare with a per-token API"
        )


def _check_cooling(inputs: Scenario) -> None:
    if not inputs.cooling:
        raise InputError("cooling", "needs at least one cooling tier")
    for index in range(1, len(inputs.cooling)):
        lower = as_float(inputs.cooling[index - 1].max_kw_per_rack)
        upper = as_float(inputs.cooling[index].max_kw_per_rack)
        if any_true(upper <= lower):
            raise InputError(
                f"cooling.{index}.max_kw_per_rack",
                "tiers must be ordered by strictly increasing max_kw_per_rack",
            )


def _check_rent(inputs: Scenario) -> None:
    if len(inputs.rent) > MAX_RENT_OPTIONS:
        raise InputError("rent", f"{len(inputs.rent):,} rent options; the limit is {MAX_RENT_OPTIONS}")
    names = [option.name for option in inputs.rent]
    for index, option in enumerate(inputs.rent):
        if not option.name or option.name in names[:index]:
            raise InputError(f"rent.{index}.name", "must be a unique, non-empty name")
        if option.pricing_model not in _PRICING_MODELS:
            raise InputError(
                f"rent.{index}.pricing_model",
                f"must be one of {', '.join(PricingModel)}, got {option.pricing_model!r}",
            )
        _check_pricing_terms(f"rent.{index}", option)
        _check_billing_basis(f"rent.{index}", option)


def _check_billing_basis(prefix: str, option: RentOption) -> None:
    if option.billing_basis and option.billing_basis not in _BILLING_BASES:
        raise InputError(f"{prefix}.billing_basis",
                         f"must be one of {', '.join(BillingBasis)} or empty, got {option.billing_basis!r}")
    if option.pricing_model == PricingModel.RESERVED and option.billing_basis == BillingBasis.USED:
        raise InputError(f"{prefix}.billing_basis",
                         "reserved capacity is paid for every hour of its term: it cannot be billed "
                         "for the hours used")


def _check_pricing_terms(prefix: str, option: RentOption) -> None:
    """Terms of one pricing model must not be set on another, where they would be ignored."""
    reserved = option.pricing_model == PricingModel.RESERVED
    if reserved and any_true(np.rint(as_float(option.commitment_months)) < 1):
        raise InputError(f"{prefix}.commitment_months", "must be at least 1 for reserved offers")
    reserved_only = ("commitment_months", "upfront_usd_per_instance")
    for name in reserved_only if not reserved else ():
        if any_true(as_float(getattr(option, name)) != 0):
            raise InputError(f"{prefix}.{name}", "applies to reserved offers only; set it to 0")
    spot = option.pricing_model == PricingModel.SPOT
    for name in ("spot_interruption_overhead", "spot_interruptions_per_hour") if not spot else ():
        if any_true(as_float(getattr(option, name)) != 0):
            raise InputError(f"{prefix}.{name}", "applies to spot offers only; set it to 0")
