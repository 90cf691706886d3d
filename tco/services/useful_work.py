"""The figures of the full cost of useful work, as rows a page or report shows.

Goodput, cost and emissions per million tokens for every option (buy, each rent option, each
per-token API), resale against book value, and the token volumes at which each fleet beats an API.
"""
from __future__ import annotations

from dataclasses import dataclass

import costmodel as engine
from costmodel.carbon import KG_PER_TONNE
from costmodel.figures import finite_or_none
from costmodel.figures import item
from costmodel.figures import scalar
from tco.services.api_token_kinds import ApiAtFleetTokens
from tco.services.api_token_kinds import api_at_fleet_tokens


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
    # Each API billed kind by kind for the fleet's own tokens a month.
    apis_at_fleet_tokens: tuple[ApiAtFleetTokens, ...]
    tokens_per_month: float | None
    resale_value_usd: float
    book_value_usd: float
    embodied_tonnes: float


def useful_work(inputs: engine.Scenario, result: engine.Result) -> UsefulWork:
    """The section's rows for a single-scenario result."""
    buy = result.buy

    def option(name: str, fleet) -> OptionRow:
        return OptionRow(
            name=name,
            goodput_percent=finite_or_none(scalar(fleet.goodput.share) * 100.0),
            checkpoint_interval_h=finite_or_none(scalar(fleet.goodput.checkpoint_interval_h)),
            cost_per_million_tokens_usd=finite_or_none(scalar(fleet.cost_per_million_tokens_usd)),
            tonnes_per_year=finite_or_none(scalar(fleet.carbon.tonnes_per_year)),
            kg_per_million_tokens=finite_or_none(
                scalar(fleet.carbon.tonnes_per_million_tokens) * KG_PER_TONNE
            ),
        )

    apis = tuple(
        ApiRow(
            name=api.name,
            blended_usd_per_million_tokens=scalar(api.blended_usd_per_million_tokens),
            cost_per_million_tokens_usd=finite_or_none(scalar(api.cost_per_million_tokens_usd)),
            total_usd=scalar(api.total_usd),
            within_rate_limit=bool(item(api.within_rate_limit)),
            breakeven_tokens_per_month=(
                ("Buy", finite_or_none(scalar(api.breakeven_tokens_per_month_buy))),
                *((f"Rent: {name}", finite_or_none(scalar(volume)))
                  for name, volume in api.breakeven_tokens_per_month_rent.items()),
            ),
            breakeven_utilisation_buy=finite_or_none(scalar(api.breakeven_utilisation_buy)),
        )
        for api in result.api
    )
    return UsefulWork(
        options=(option("Buy", buy), *(option(f"Rent: {o.name}", o) for o in result.rent)),
        apis=apis,
        apis_at_fleet_tokens=api_at_fleet_tokens(inputs, result),
        tokens_per_month=finite_or_none(scalar(result.tokens_per_month)),
        resale_value_usd=scalar(buy.residual.resale_value_usd),
        book_value_usd=scalar(buy.residual.book_value_usd),
        embodied_tonnes=scalar(buy.carbon.embodied_tonnes),
    )
