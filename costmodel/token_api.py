"""Paying a model API per token, and the volume at which a fleet beats it.

The API serves the tokens the fleet would produce: useful accelerator-hours x
tokens per second x 3,600 a month. Its price per million tokens is the mix's
blend of input, cached-input and output prices, moving by its yearly change
(calendar years, as rent prices do); a minimum commitment is paid when usage
costs less.

Volume breakeven (closed form). Over the horizon a fleet costs
T(u) = T0 + s x (u - u0), linear in utilisation u; at u it produces k x u
million tokens a month. The API costs V x p x F for V million tokens a month,
p the blended first-year price and F the sum of its yearly price factors over
the horizon's months. They cost the same at

    V* = (T0 - s x u0) / (p x F - s / k)

million tokens a month; above V* the fleet costs less. None (NaN) where the
denominator is not positive or V* exceeds the fleet's capacity k. The minimum
commitment is left out of V* (it only raises the API's cost below it).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from numpy.typing import NDArray

from costmodel.elementwise import as_float
from costmodel.inputs import ApiOption
from costmodel.inputs import Numeric
from costmodel.inputs import TokenMix
from costmodel.metrics import SECONDS_PER_HOUR
from costmodel.metrics import TOKENS_PER_MILLION
from costmodel.timeline import add_recurring
from costmodel.timeline import clear_after


def blended_usd_per_million_tokens(option: ApiOption, mix: TokenMix) -> NDArray[np.float64]:
    """Price of a million tokens of the workload's mix [USD/Mtoken].

    Examples
    --------
    70 % input at $3, 10 % cached input at $0.30, 20 % output at $15:
    0.7 x 3 + 0.1 x 0.3 + 0.2 x 15 = $5.13.

    >>> api = ApiOption("x", 3.0, 0.30, 15.0)
    >>> round(float(blended_usd_per_million_tokens(api, TokenMix(0.7, 0.1, 0.2))), 6)
    5.13
    """
    return np.asarray(
        mix.input_share * np.asarray(option.usd_per_million_input, dtype=np.float64)
        + mix.cached_input_share * np.asarray(option.usd_per_million_cached_input, dtype=np.float64)
        + mix.output_share * np.asarray(option.usd_per_million_output, dtype=np.float64)
    )


def million_tokens_per_month(
    useful_hours_per_month: ArrayLike, tokens_per_s: ArrayLike
) -> Numeric:
    """Million tokens produced by useful accelerator-hours in a month [Mtoken/month].

    Examples
    --------
    >>> round(float(million_tokens_per_month(730.0, 1000.0)), 6)
    2628.0
    """
    hours = as_float(useful_hours_per_month)
    return hours * as_float(tokens_per_s) * SECONDS_PER_HOUR / TOKENS_PER_MILLION


def api_usd_by_month(
    option: ApiOption, usd_per_month: Numeric, shape: tuple[int, ...], horizon_months: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The API bill by month [USD]: first-year usage cost moving yearly, never below the minimum.

    Months on the last axis (0..max horizon), zero at month 0 and after each scenario's horizon.
    """
    out = np.zeros(shape + (int(np.max(horizon_months)) + 1,))
    add_recurring(out, usd_per_month, growth_per_year=option.price_change_per_year)
    minimum = np.asarray(option.minimum_usd_per_month, dtype=np.float64)[..., np.newaxis]
    out[..., 1:] = np.maximum(out[..., 1:], minimum)
    clear_after(out, horizon_months)
    return out


def breakeven_million_tokens_per_month(
    fleet_total_usd: ArrayLike,
    fleet_slope_usd: ArrayLike,
    utilisation: ArrayLike,
    capacity_million_tokens_per_month: ArrayLike,
    api_usd_per_million_over_horizon: ArrayLike,
) -> NDArray[np.float64]:
    """Volume V* at which a fleet and the API cost the same over the horizon [Mtoken/month].

    Parameters
    ----------
    fleet_total_usd : numeric
        The fleet's total cost at the scenario's utilisation u0 [USD].
    fleet_slope_usd : numeric
        Change of that total per unit of utilisation [USD].
    utilisation : numeric
        u0 [-].
    capacity_million_tokens_per_month : numeric
        k, what the fleet produces at utilisation 1 [Mtoken/month].
    api_usd_per_million_over_horizon : numeric
        p x F: the API's cost over the horizon of one million tokens a month [USD per Mtoken/month].

    Examples
    --------
    A fleet costing $100,000 fixed plus $20,000 per unit of utilisation, producing
    up to 1,000 Mtoken a month, against $5/Mtoken for 36 months (p x F = 180):
    V* = 100,000 / (180 - 20,000 / 1,000) = 625.

    >>> float(breakeven_million_tokens_per_month(110_000.0, 20_000.0, 0.5, 1000.0, 180.0))
    625.0
    """
    capacity = np.asarray(capacity_million_tokens_per_month, dtype=np.float64)
    fixed = np.asarray(fleet_total_usd, dtype=np.float64) - np.asarray(fleet_slope_usd) * utilisation
    with np.errstate(divide="ignore", invalid="ignore"):
        denominator = np.asarray(api_usd_per_million_over_horizon) - np.asarray(fleet_slope_usd) / capacity
        volume = fixed / denominator
    found = (denominator > 0.0) & (volume >= 0.0) & (volume <= capacity)
    return np.where(found, volume, np.nan)
