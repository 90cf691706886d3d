"""Cost per million tokens and the per-token API breakeven at both ends of the throughput's range.

A scenario whose throughput comes from its inference sizing carries the estimate's range (the
leave-one-out spread of the calibration, `tco.services.sizing_throughput`). The engine is run
again, without the sensitivity, at the low and the high end of that range, every other input
as evaluated, so each option's cost per million tokens and each API's breakeven volume read
"central (low to high)". A throughput the scenario states, or a stated measurement in the
sizing, has no range and gives none.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import replace

import costmodel as engine
from tco.services.engine_inputs import Assumption
from tco.services.sizing import Sizing

THROUGHPUT_PATH = "workload.tokens_per_s_per_accelerator"


@dataclass(frozen=True)
class RangeRow:
    """One figure of one option at the estimate, and where the throughput's range takes it."""

    option: str
    figure: str
    unit: str
    central: float | None
    at_low_throughput: float | None
    at_high_throughput: float | None

    def to_dict(self) -> dict[str, object]:
        return {"option": self.option, "figure": self.figure, "unit": self.unit,
                "central": self.central, "at_low_throughput": self.at_low_throughput,
                "at_high_throughput": self.at_high_throughput}


def _number(value: object) -> float | None:
    number = float(value)  # type: ignore[arg-type]
    return None if math.isnan(number) else number


def _rows(result: engine.Result, currency: str) -> list[tuple[str, str, str, float | None]]:
    per_million = f"{currency} per million tokens"  # the engine counts in the reporting currency
    rows = [("Buy", "cost per million tokens", per_million,
             _number(result.buy.cost_per_million_tokens_usd))]
    rows += [(f"Rent: {o.name}", "cost per million tokens", per_million,
              _number(o.cost_per_million_tokens_usd)) for o in result.rent]
    for api in result.api:
        rows.append((f"Pay per token: {api.name}", "tokens a month above which buying costs less",
                     "tokens per month", _number(api.breakeven_tokens_per_month_buy)))
    return rows


def throughput_range(inputs: engine.Scenario, result: engine.Result, sizing: Sizing | None,
                     recorded: Sequence[Assumption], currency: str) -> tuple[tuple[float, float, float],
                                                              tuple[RangeRow, ...]] | None:
    """((low, central, high) tokens/s per accelerator, the rows) when the evaluated throughput
    is the sizing's estimate with a range; None otherwise."""
    if sizing is None or sizing.throughput_range is None:
        return None
    origin = next((a.origin for a in recorded if a.path == THROUGHPUT_PATH), None)
    low, high = sizing.throughput_range
    central = sizing.tokens_per_s_per_accelerator
    if origin != "sizing" or not central or low == high:
        return None
    used = float(inputs.workload.tokens_per_s_per_accelerator)
    ends = []
    for factor in (low / central, high / central):
        case = replace(inputs, workload=replace(inputs.workload,
                                                tokens_per_s_per_accelerator=used * factor))
        ends.append(_rows(engine.evaluate(case, recommend=False), currency))
    rows = tuple(RangeRow(option, figure, unit, value, at_low[3], at_high[3])
                 for (option, figure, unit, value), at_low, at_high
                 in zip(_rows(result, currency), *ends, strict=True))
    return (used * low / central, used, used * high / central), rows
