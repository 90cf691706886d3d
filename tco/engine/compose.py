"""Compose footprint, buy and rent cash flows and finance into a ``Result``.

Memory: a monthly array of a batch of N scenarios over H months takes
N x (H + 1) x 8 bytes (100,000 x 121 months = 97 MB). With ``detail=False``
each option is built straight into one total array, and the rent-minus-buy
flows (months first, for IRR and the running total) are summed in place, so a
batch holds about five such arrays at a time whatever the number of cost lines.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from tco.engine.buy import (
    buy_lines,
    capex_usd,
    depreciation_line,
    depreciation_usd_per_month,
    energy_utilisation_slope_usd,
)
from tco.engine.counting import whole
from tco.engine.finance import (
    breakeven_month,
    breakeven_utilisation,
    discount_factors,
    irr_per_year,
    present_value_usd,
)
from tco.engine.footprint import fleet_footprint
from tco.engine.inputs import RentOption, Scenario, batch_shape
from tco.engine.metrics import (
    cost_per_million_tokens_usd,
    cost_per_useful_accelerator_hour_usd,
    useful_accelerator_hours,
)
from tco.engine.rent import rent_lines, rent_utilisation_slope_usd
from tco.engine.result import BuyResult, CashFlows, RentResult, Result
from tco.engine.timeline import Line, add_lines, clear_after, running_total_months_first
from tco.engine.validation import validate

# A running saving this close to zero, relative to the money that flowed, counts
# as breaking even; it absorbs rounding in sums of ~100 monthly amounts.
BREAKEVEN_RELATIVE_TOLERANCE = 1e-9


def compute_result(inputs: Scenario, *, detail: bool = True) -> Result:
    """Evaluate a scenario or a batch of them in one vectorised pass (no recommendation).

    Parameters
    ----------
    inputs : Scenario
        Numeric fields are floats or arrays that broadcast to one batch shape.
    detail : bool
        Keep every monthly cost line and running total. Sweeps pass False to keep
        only per-scenario figures.

    Returns
    -------
    Result
        Batch-shaped figures; monthly arrays have shape batch + (H_max + 1,).
    """
    validate(inputs)
    horizon = whole(inputs.finance.horizon_months)
    n_months = int(np.max(horizon))
    timeline = _Timeline(
        batch_shape(inputs),
        n_months,
        horizon,
        detail,
        discount_factors(inputs.finance.discount_rate_per_year, n_months),
    )
    workload = inputs.workload

    footprint = fleet_footprint(workload, inputs.buy, inputs.facility, inputs.cooling)
    capex = capex_usd(inputs, footprint)
    buy_per_month, buy_flows = timeline.build(buy_lines(inputs, footprint, capex, horizon))
    useful_hours = useful_accelerator_hours(
        workload.accelerators, workload.hours_per_month, workload.utilisation, horizon
    )
    buy_total = buy_per_month.sum(axis=-1)
    buy_cost_per_hour = cost_per_useful_accelerator_hour_usd(buy_total, useful_hours)
    buy = BuyResult(
        cash_flows=buy_flows,
        capex_usd=capex,
        total_capex_usd=sum(capex.values()),
        depreciation_usd_per_month=depreciation_usd_per_month(inputs, capex),
        depreciation_line_usd=timeline.line(depreciation_line(inputs, capex)) if detail else None,
        total_usd=buy_total,
        npv_usd=present_value_usd(buy_per_month, timeline.discount_factors),
        cost_per_useful_accelerator_hour_usd=buy_cost_per_hour,
        cost_per_million_tokens_usd=cost_per_million_tokens_usd(
            buy_cost_per_hour, workload.tokens_per_s_per_accelerator
        ),
    )
    baseline = _BuyBaseline(
        months_first_usd=np.ascontiguousarray(_months_first(buy_per_month)),
        total_usd=buy_total,
        npv_usd=buy.npv_usd,
        gross_usd=np.abs(buy_per_month).sum(axis=-1),
        utilisation_slope_usd=energy_utilisation_slope_usd(inputs, footprint, horizon),
        useful_hours=useful_hours,
    )
    return Result(
        batch_shape=timeline.shape,
        months=np.arange(n_months + 1),
        horizon_months=horizon,
        footprint=footprint,
        buy=buy,
        rent=tuple(_rent_result(option, inputs, timeline, baseline) for option in inputs.rent),
    )


@dataclass(frozen=True)
class _BuyBaseline:
    """The buy figures every rent option is compared with."""

    months_first_usd: NDArray[np.float64]  # (months, scenarios), contiguous
    total_usd: NDArray[np.float64]
    npv_usd: NDArray[np.float64]
    gross_usd: NDArray[np.float64]
    utilisation_slope_usd: NDArray[np.float64]
    useful_hours: NDArray[np.float64]


@dataclass(frozen=True)
class _Timeline:
    """The month axis of one batch, its discount factors, and how much of it to keep."""

    shape: tuple[int, ...]
    n_months: int
    horizon: NDArray[np.float64]
    detail: bool
    discount_factors: NDArray[np.float64]

    def line(self, line: Line) -> NDArray[np.float64]:
        """One cost line as its own monthly array, zero after each scenario's horizon."""
        out = np.zeros(self.shape + (self.n_months + 1,))
        line.write(out)
        clear_after(out, self.horizon)
        return out

    def build(self, lines: list[Line]) -> tuple[NDArray[np.float64], CashFlows]:
        """Monthly total of the lines, and the cash flows kept in the result.

        Without ``detail`` every line is added straight into the total and the
        result keeps no monthly arrays (the caller may then reuse the total).
        """
        if not self.detail:
            total = np.zeros(self.shape + (self.n_months + 1,))
            add_lines(total, lines)
            clear_after(total, self.horizon)
            return total, CashFlows(lines_usd={}, per_month_usd=None, cumulative_usd=None)
        arrays = {line.name: self.line(line) for line in lines}
        total = np.zeros(self.shape + (self.n_months + 1,))
        for array in arrays.values():
            total += array
        return total, CashFlows(
            lines_usd=arrays, per_month_usd=total, cumulative_usd=np.cumsum(total, axis=-1)
        )


def _months_first(monthly: NDArray[np.float64]) -> NDArray[np.float64]:
    """A (batch..., months) array viewed as (months, scenarios)."""
    return monthly.reshape(-1, monthly.shape[-1]).T


def _rent_result(option: RentOption, inputs: Scenario, timeline: _Timeline, buy: _BuyBaseline) -> RentResult:
    """Cost one rent option and compare it with buying."""
    workload = inputs.workload
    per_month, flows = timeline.build(rent_lines(option, workload, timeline.horizon))
    total = per_month.sum(axis=-1)
    npv = present_value_usd(per_month, timeline.discount_factors)
    # IRR (Horner's rule) and the running total both walk the months: months-first
    # and contiguous, each step is one pass over a contiguous row of scenarios.
    saving_by_month = np.subtract(_months_first(per_month), buy.months_first_usd)
    del per_month
    irr = irr_per_year(saving_by_month, months_axis=0).reshape(timeline.shape)
    running_total_months_first(saving_by_month)
    tolerance = BREAKEVEN_RELATIVE_TOLERANCE * (buy.gross_usd + total)
    months_to_breakeven = breakeven_month(saving_by_month, np.reshape(tolerance, -1), months_axis=0)
    saving = total - buy.total_usd
    cost_per_hour = cost_per_useful_accelerator_hour_usd(total, buy.useful_hours)
    saving_slope = rent_utilisation_slope_usd(option, workload, timeline.horizon) - buy.utilisation_slope_usd
    return RentResult(
        name=option.name,
        pricing_model=str(option.pricing_model),
        cash_flows=flows,
        total_usd=total,
        npv_usd=npv,
        cost_per_useful_accelerator_hour_usd=cost_per_hour,
        cost_per_million_tokens_usd=cost_per_million_tokens_usd(
            cost_per_hour, workload.tokens_per_s_per_accelerator
        ),
        saving_usd=saving,
        npv_saving_usd=npv - buy.npv_usd,
        breakeven_month=months_to_breakeven.reshape(timeline.shape),
        breakeven_utilisation=breakeven_utilisation(saving, saving_slope, workload.utilisation),
        irr_per_year=irr,
    )
