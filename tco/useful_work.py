"""The figures of the full cost of useful work, as rows a page or report shows.

Goodput, cost and emissions per million tokens for every option (buy, each rent option, each
per-token API), resale against book value, and the token volumes at which each fleet beats an API.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tco import engine
from tco.engine.carbon import KG_PER_TONNE


def _first(values) -> float:
    return float(np.reshape(values, -1)[0])


def _finite(value: float) -> float | None:
    """None for NaN or inf ("none", "never"), so a page can say so."""
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class OptionRow:
    """One option's goodput, unit costs and emissions."""

    name: str
    goodput_percent: float | None
    checkpoint_interval_h: float | None
    cost_per_million_tokens_usd: float | None
    tonnes_per_year: float | None
    kg_per_million_tokens: float | None


@dataclass(frozen=True)
class ApiRow:
    """One per-token API and the volumes above which each fleet costs less than it."""

    name: str
    blended_usd_per_million_tokens: float
    cost_per_million_tokens_usd: float | None
    total_usd: float
    within_rate_limit: bool
    breakeven_tokens_per_month: tuple[tuple[str, float | None], ...]
    breakeven_utilisation_buy: float | None


@dataclass(frozen=True)
class UsefulWork:
    """Everything the 'full cost of useful work' section shows for one evaluation."""

    options: tuple[OptionRow, ...]
    apis: tuple[ApiRow, ...]
    tokens_per_month: float | None
    resale_value_usd: float
    book_value_usd: float
    embodied_tonnes: float


def useful_work(result: engine.Result) -> UsefulWork:
    """The section's rows for a single-scenario result."""
    buy = result.buy

    def option(name: str, fleet) -> OptionRow:
        return OptionRow(
            name=name,
            goodput_percent=_finite(_first(fleet.goodput.share) * 100.0),
            checkpoint_interval_h=_finite(_first(fleet.goodput.checkpoint_interval_h)),
            cost_per_million_tokens_usd=_finite(_first(fleet.cost_per_million_tokens_usd)),
            tonnes_per_year=_finite(_first(fleet.carbon.tonnes_per_year)),
            kg_per_million_tokens=_finite(_first(fleet.carbon.tonnes_per_million_tokens) * KG_PER_TONNE),
        )

    apis = tuple(
        ApiRow(
            name=api.name,
            blended_usd_per_million_tokens=_first(api.blended_usd_per_million_tokens),
            cost_per_million_tokens_usd=_finite(_first(api.cost_per_million_tokens_usd)),
            total_usd=_first(api.total_usd),
            within_rate_limit=bool(np.reshape(api.within_rate_limit, -1)[0]),
            breakeven_tokens_per_month=(
                ("Buy", _finite(_first(api.breakeven_tokens_per_month_buy))),
                *((f"Rent: {name}", _finite(_first(volume)))
                  for name, volume in api.breakeven_tokens_per_month_rent.items()),
            ),
            breakeven_utilisation_buy=_finite(_first(api.breakeven_utilisation_buy)),
        )
        for api in result.api
    )
    return UsefulWork(
        options=(option("Buy", buy), *(option(f"Rent: {o.name}", o) for o in result.rent)),
        apis=apis,
        tokens_per_month=_finite(_first(result.tokens_per_month)),
        resale_value_usd=_first(buy.residual.resale_value_usd),
        book_value_usd=_first(buy.residual.book_value_usd),
        embodied_tonnes=_first(buy.carbon.embodied_tonnes),
    )
