"""Unit costs: per useful accelerator-hour and per million tokens."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from costmodel.elementwise import Figure
from costmodel.elementwise import as_float
from costmodel.elementwise import divide_where
from costmodel.inputs import Numeric

SECONDS_PER_HOUR = 3600.0
TOKENS_PER_MILLION = 1e6


def useful_accelerator_hours(
    accelerators: ArrayLike, hours_per_month: Numeric, utilisation: Numeric, horizon_months: Numeric
) -> Numeric:
    """Accelerator-hours of useful work the workload needs over the horizon [h].

    Both options deliver this work: renting at full throughput, buying with a
    fleet grown to make up any power-cap throughput loss.

    Examples
    --------
    >>> float(useful_accelerator_hours(8, 730, 0.5, 12))
    35040.0
    """
    return as_float(accelerators) * hours_per_month * utilisation * horizon_months


def cost_per_useful_accelerator_hour_usd(
    total_usd: ArrayLike, useful_hours: ArrayLike
) -> Figure:
    """Total cost over the horizon per useful accelerator-hour [USD/h]; NaN without useful hours.

    Examples
    --------
    >>> float(cost_per_useful_accelerator_hour_usd(35040.0 * 1.07, 35040.0))
    1.07
    """
    hours = as_float(useful_hours)
    # A vanishing utilisation honestly costs +inf per hour.
    return divide_where(hours > 0.0, as_float(total_usd), hours, np.nan)


def cost_per_million_tokens_usd(
    cost_per_accelerator_hour_usd: ArrayLike, tokens_per_s_per_accelerator: ArrayLike
) -> Numeric:
    """Cost of generating one million tokens [USD/Mtoken]; NaN where throughput is not given.

    Parameters
    ----------
    cost_per_accelerator_hour_usd : numeric
        Cost per useful accelerator-hour [USD/h].
    tokens_per_s_per_accelerator : numeric
        Throughput of one accelerator at full speed; NaN = not given [token/s].

    Examples
    --------
    Seed 003: an A100 80GB at $1.07/h serving ~520 tokens/s:

    >>> round(float(cost_per_million_tokens_usd(1.07, 520)), 2)
    0.57
    """
    tokens_per_hour = as_float(tokens_per_s_per_accelerator) * SECONDS_PER_HOUR
    return as_float(cost_per_accelerator_hour_usd) / tokens_per_hour * TOKENS_PER_MILLION


def per_million_tokens(amount: ArrayLike, million_tokens: ArrayLike) -> Figure:
    """An amount per million tokens; NaN where no tokens are produced or throughput is not given."""
    tokens = as_float(million_tokens)
    return divide_where(tokens > 0.0, as_float(amount), tokens, np.nan)
