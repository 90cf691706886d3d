"""Several scenarios (or versions of one) side by side: one table of key figures, one chart.

Each scenario is evaluated exactly as its own page evaluates it (``scenario_evaluate``), so the
figures here are the ones its page shows; rows compare buying with each scenario's cheapest rent
option by NPV.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from costmodel.figures import finite_or_none
from costmodel.figures import scalar
from tco.errors import FieldError
from tco.models import Scenario
from tco.services.engine_inputs import ScenarioInputError
from tco.services.evaluation import Evaluation
from tco.services.evaluation import scenario_evaluate

MAX_SCENARIOS = 12


class SideBySideError(FieldError):
    """Scenarios that cannot be put side by side; ``field`` names what to fix."""


@dataclass(frozen=True)
class Column:
    """One scenario's key figures; money in its reporting currency, NaN-free (None = none/never)."""

    scenario_id: int
    name: str
    version: int
    status: str
    horizon_months: int
    buy_total_usd: float
    buy_npv_usd: float
    cheapest_rent: str
    rent_npv_usd: float
    npv_saving_usd: float
    breakeven_month: float | None
    buy_cost_per_useful_accelerator_hour_usd: float | None
    buy_cost_per_million_tokens_usd: float | None
    buy_goodput_share: float | None
    buy_tonnes_co2e_per_year: float
    buy_cumulative_usd: tuple[float, ...]
    rent_cumulative_usd: tuple[float, ...]
    currency: str = "USD"


def column(scenario: Scenario, evaluation: Evaluation) -> Column:
    """The key figures of one evaluated scenario."""
    result = evaluation.result
    cheapest = result.rent[int(scalar(result.cheapest_rent_index()))]
    return Column(
        scenario_id=scenario.pk, name=scenario.name, version=scenario.version,
        status=scenario.get_status_display(), horizon_months=int(scalar(result.horizon_months)),
        buy_total_usd=scalar(result.buy.total_usd), buy_npv_usd=scalar(result.buy.npv_usd),
        cheapest_rent=cheapest.name, rent_npv_usd=scalar(cheapest.npv_usd),
        npv_saving_usd=scalar(cheapest.npv_saving_usd),
        breakeven_month=finite_or_none(scalar(cheapest.breakeven_month)),
        buy_cost_per_useful_accelerator_hour_usd=finite_or_none(
            scalar(result.buy.cost_per_useful_accelerator_hour_usd)),
        buy_cost_per_million_tokens_usd=finite_or_none(scalar(result.buy.cost_per_million_tokens_usd)),
        buy_goodput_share=finite_or_none(scalar(result.buy.goodput.share)),
        buy_tonnes_co2e_per_year=scalar(result.buy.carbon.tonnes_per_year),
        buy_cumulative_usd=tuple(np.reshape(result.buy.cash_flows.cumulative_usd, -1).tolist()),
        rent_cumulative_usd=tuple(np.reshape(cheapest.cash_flows.cumulative_usd, -1).tolist()),
        currency=evaluation.currency,
    )


def side_by_side(scenarios: Sequence[Scenario]) -> list[Column]:
    """Key figures of 2 to MAX_SCENARIOS scenarios, in the order given.

    Raises
    ------
    SideBySideError
        Fewer than two or too many scenarios, one that cannot be evaluated (named), or
        scenarios reported in different currencies (not like for like).
    """
    if not 2 <= len(scenarios) <= MAX_SCENARIOS:
        raise SideBySideError("ids", f"pick 2 to {MAX_SCENARIOS} scenarios, not {len(scenarios)}")
    columns = []
    for scenario in scenarios:
        try:
            columns.append(column(scenario, scenario_evaluate(scenario=scenario)))
        except ScenarioInputError as exc:
            raise SideBySideError("ids", f"scenario {scenario.pk} ({scenario.name}) cannot be "
                                         f"evaluated: {exc}") from exc
    currencies = sorted({column.currency for column in columns})
    if len(currencies) > 1:
        raise SideBySideError("ids", f"the scenarios are reported in {' and '.join(currencies)}: "
                                     "side by side they need one reporting currency")
    return columns
