"""Several scenarios (or versions of one) side by side: one table of key figures, one chart.

Each scenario is evaluated exactly as its own page evaluates it (``scenario_evaluate``), so the
figures here are the ones its page shows: its verdict over every option it gives (buying, each
rent option, each per-token API), the winner and its margin over the next cheapest, every option
ranked by NPV, and buying against the cheapest other option (its rival).
"""
from __future__ import annotations

from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from costmodel.figures import finite_or_none
from costmodel.figures import scalar
from costmodel.verdict import Verdict
from costmodel.vocabulary import MISSING
from costmodel.vocabulary import Kind
from costmodel.vocabulary import money_in
from costmodel.vocabulary import show
from tco.errors import FieldError
from tco.models import Scenario
from tco.services.engine_inputs import ScenarioInputError
from tco.services.evaluation import Evaluation
from tco.services.evaluation import scenario_evaluate

MAX_SCENARIOS = 12
# Rows the workbook's formulas refer to.
BUY_NPV, RIVAL, RIVAL_NPV, SAVING = ("Buy: NPV of costs", "Buying's rival (the cheapest other option)",
                                     "Rival: NPV of costs", "Saving by buying against its rival (NPV)")


class SideBySideError(FieldError):
    """Scenarios that cannot be put side by side; ``field`` names what to fix."""


@dataclass(frozen=True)
class OptionCell:
    """One option of a scenario as side by side lists it, cheapest first (money in the column's
    currency; None = the figure does not apply to the option)."""

    kind: str
    label: str
    npv_usd: float
    total_usd: float
    margin_over_winner_usd: float
    cost_per_accelerator_hour_usd: float | None
    cost_per_million_tokens_usd: float | None


@dataclass(frozen=True)
class Column:
    """One scenario's key figures; money in its reporting currency, NaN-free (None = none/never).

    ``cheapest_rent`` and the ``rent_*`` figures are buying's rival: the cheapest option other
    than buying, a rent option or a per-token API (the v1 API keeps the names)."""

    scenario_id: int
    name: str
    version: int
    status: str
    horizon_months: int
    winner: str
    margin_usd: float | None
    options: tuple[OptionCell, ...]
    left_out: tuple[str, ...]
    buy_total_usd: float
    buy_npv_usd: float
    cheapest_rent: str
    rent_npv_usd: float | None
    npv_saving_usd: float | None
    breakeven_month: float | None
    buy_cost_per_useful_accelerator_hour_usd: float | None
    buy_cost_per_million_tokens_usd: float | None
    buy_goodput_share: float | None
    buy_tonnes_co2e_per_year: float
    buy_cumulative_usd: tuple[float, ...]
    rent_cumulative_usd: tuple[float, ...]
    currency: str = "USD"


def option_cells(verdict: Verdict) -> tuple[OptionCell, ...]:
    """Every option of a verdict, cheapest first, as side by side and compare versions list them."""
    return tuple(OptionCell(option.kind, option.label, option.npv_usd, option.total_usd,
                            verdict.margin_over_winner(option),
                            finite_or_none(option.cost_per_accelerator_hour),
                            finite_or_none(option.cost_per_million_tokens))
                 for option in verdict.ranked)


def column(scenario: Scenario, evaluation: Evaluation) -> Column:
    """The key figures of one evaluated scenario."""
    result = evaluation.result
    verdict = result.verdict
    rival = verdict.rival
    flows = {option.name: option.cash_flows for option in (*result.rent, *result.api)}
    rival_cumulative = () if rival is None else tuple(
        np.reshape(flows[rival.name].cumulative_usd, -1).tolist())
    return Column(
        scenario_id=scenario.pk, name=scenario.name, version=scenario.version,
        status=scenario.get_status_display(), horizon_months=int(scalar(result.horizon_months)),
        winner=verdict.cheapest.label, margin_usd=verdict.margin_usd, options=option_cells(verdict),
        left_out=tuple(f"{option.name}: {option.reason}" for option in verdict.left_out),
        buy_total_usd=scalar(result.buy.total_usd), buy_npv_usd=scalar(result.buy.npv_usd),
        cheapest_rent="" if rival is None else rival.label,
        rent_npv_usd=None if rival is None else rival.npv_usd,
        npv_saving_usd=None if rival is None else rival.npv_usd - verdict.buy.npv_usd,
        breakeven_month=finite_or_none(verdict.breakeven_month),
        buy_cost_per_useful_accelerator_hour_usd=finite_or_none(
            scalar(result.buy.cost_per_useful_accelerator_hour_usd)),
        buy_cost_per_million_tokens_usd=finite_or_none(scalar(result.buy.cost_per_million_tokens_usd)),
        buy_goodput_share=finite_or_none(scalar(result.buy.goodput.share)),
        buy_tonnes_co2e_per_year=scalar(result.buy.carbon.tonnes_per_year),
        buy_cumulative_usd=tuple(np.reshape(result.buy.cash_flows.cumulative_usd, -1).tolist()),
        rent_cumulative_usd=rival_cumulative,
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


@dataclass(frozen=True)
class Row:
    """One figure across the scenarios, as every side-by-side view shows it: the page, the PDF
    and the workbook read these rows (``values`` raw for the workbook's cells, ``shown`` as text
    in the columns' currency; None = the figure does not apply)."""

    label: str
    kind: Kind
    values: tuple[Any, ...]
    shown: tuple[str, ...]


def side_by_side_rows(columns: Sequence[Column]) -> list[Row]:
    """The side-by-side table: the winner and its margin, every option by NPV, then buying's
    own figures against its rival."""
    currency = columns[0].currency

    def option_text(column: Column, rank: int) -> str | None:
        if rank >= len(column.options):
            return None
        option = column.options[rank]
        text = f"{option.label}: {show(option.npv_usd, Kind.USD)}"
        return text if rank == 0 else f"{text} (+{show(option.margin_over_winner_usd, Kind.USD)})"

    figures: list[tuple[str, Kind, Callable[[Column], Any]]] = [
        ("Horizon (months)", Kind.MONTH, lambda c: c.horizon_months),
        ("Cheapest option (winner)", Kind.TEXT, lambda c: c.winner),
        ("Margin over the next cheapest (NPV)", Kind.USD, lambda c: c.margin_usd),
        *((f"Option {rank + 1} by NPV", Kind.TEXT, partial(option_text, rank=rank))
          for rank in range(max(len(column.options) for column in columns))),
        ("Left out (cannot be costed)", Kind.TEXT, lambda c: "; ".join(c.left_out) or None),
        ("Buy: total cost", Kind.USD, lambda c: c.buy_total_usd),
        (BUY_NPV, Kind.USD, lambda c: c.buy_npv_usd),
        (RIVAL, Kind.TEXT, lambda c: c.cheapest_rent or None),
        (RIVAL_NPV, Kind.USD, lambda c: c.rent_npv_usd),
        (SAVING, Kind.USD, lambda c: c.npv_saving_usd),
        ("Buying breaks even against it (month, discounted)", Kind.MONTH, lambda c: c.breakeven_month),
        ("Buy: cost per useful GPU-hour", Kind.USD_PRICE,
         lambda c: c.buy_cost_per_useful_accelerator_hour_usd),
        ("Buy: cost per million tokens", Kind.USD_PRICE, lambda c: c.buy_cost_per_million_tokens_usd),
        ("Buy: goodput", Kind.SHARE, lambda c: c.buy_goodput_share),
        ("Buy: emissions (t CO2e per year)", Kind.QUANTITY, lambda c: c.buy_tonnes_co2e_per_year),
    ]
    rows = []
    with money_in(currency):
        for label, kind, value_of in figures:
            values = tuple(value_of(column) for column in columns)
            shown = tuple(MISSING if value is None and kind is not Kind.MONTH  # None month: never
                          else show(value, kind, 1 if kind is Kind.QUANTITY else 2) for value in values)
            rows.append(Row(label, kind, values, shown))
    return rows
