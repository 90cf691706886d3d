"""Resale value of bought systems over their age (cash view) beside their book value (accounting).

The resale share of the system price at an age of m months comes from, in order:
the residual curve (a table of (month, share), linear between its points and flat
beyond its ends), a yearly decline rate d, (1 - d) ** (m / 12), or the single
``residual_value_share``. From the next generation's launch month on it is lower
by ``next_generation_value_drop``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from costmodel.elementwise import Figure
from costmodel.elementwise import as_float
from costmodel.elementwise import clip
from costmodel.elementwise import isnan
from costmodel.elementwise import where
from costmodel.inputs import BuyOption
from costmodel.timeline import MONTHS_PER_YEAR


def resale_share(buy: BuyOption, age_months: ArrayLike) -> Figure:
    """Resale value as a share of the system price at an age [-].

    Examples
    --------
    >>> buy = BuyOption(1, 1, 1, 1, 1, 60, residual_curve=((0, 0.8), (24, 0.5), (48, 0.2)))
    >>> round(float(resale_share(buy, 36)), 6)
    0.35
    >>> round(float(resale_share(BuyOption(1, 1, 1, 1, 1, 60, residual_decline_per_year=0.3), 24)), 6)
    0.49
    """
    age = as_float(age_months)
    base: Figure
    if buy.residual_curve:
        months, shares = zip(*buy.residual_curve, strict=True)
        base = np.interp(age, months, shares)
    else:
        decline = as_float(buy.residual_decline_per_year)
        no_rate = isnan(decline)
        by_rate = (1.0 - where(no_rate, 0.0, decline)) ** (age / MONTHS_PER_YEAR)
        base = where(no_rate, buy.residual_value_share, by_rate)
    launch = as_float(buy.next_generation_launch_month)
    # A launch month not given (NaN) compares False: never launched.
    launched = age >= launch
    return base * where(launched, 1.0 - as_float(buy.next_generation_value_drop), 1.0)


def book_value_usd(
    capex_usd: ArrayLike, depreciation_months: ArrayLike, age_months: ArrayLike
) -> Figure:
    """Capex not yet depreciated (straight line) at an age [USD].

    Examples
    --------
    >>> float(book_value_usd(60_000.0, 60, 36))
    24000.0
    """
    life = np.rint(as_float(depreciation_months))
    return as_float(capex_usd) * clip(1.0 - as_float(age_months) / life, 0.0, 1.0)
