"""Compose footprint, buy and rent cash flows and finance into a ``Result``.

Two ways through the months, with the same figures: NumPy arrays (the
reference; monthly detail and IRR) and the compiled kernel (sweeps, Monte Carlo
and sensitivity batches, which read only per-scenario figures).

Memory: on the NumPy path a monthly array of a batch of N scenarios over H
months takes N x (H + 1) x 8 bytes (100,000 x 121 months = 97 MB). With
``detail=False`` each option is built straight into one total array, and the
rent-minus-buy flows (months first, for IRR and the running total) are summed
in place, so a batch holds about five such arrays at a time whatever the number
of cost lines. The kernel holds one (payments x 6) calendar per scenario and
per-scenario figures: about 1 kB a scenario.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from costmodel.buy import buy_lines
from costmodel.buy import capex_usd
from costmodel.buy import depreciation_line
from costmodel.buy import depreciation_usd_per_month
from costmodel.buy import energy_utilisation_slope_usd
from costmodel.carbon import BuyEmissions
from costmodel.carbon import RentEmissions
from costmodel.counting import whole
from costmodel.elementwise import as_float
from costmodel.elementwise import is_number
from costmodel.finance import breakeven_month
from costmodel.finance import breakeven_utilisation
from costmodel.finance import discount_factors
from costmodel.finance import irr_per_year
from costmodel.finance import present_value_usd
from costmodel.footprint import Footprint
from costmodel.footprint import fleet_footprint
from costmodel.goodput import fleet_efficiency
from costmodel.inputs import ApiOption
from costmodel.inputs import Numeric
from costmodel.inputs import PricingModel
from costmodel.inputs import RentOption
from costmodel.inputs import Scenario
from costmodel.inputs import Workload
from costmodel.inputs import batch_shape
from costmodel.metrics import TOKENS_PER_MILLION
from costmodel.metrics import cost_per_million_tokens_usd
from costmodel.metrics import cost_per_useful_accelerator_hour_usd
from costmodel.metrics import per_million_tokens
from costmodel.metrics import useful_accelerator_hours
from costmodel.overrides import at_moved_rates
from costmodel.rent import accelerators_rented
from costmodel.rent import instances_needed
from costmodel.rent import rent_lines
from costmodel.rent import rent_utilisation_slope_usd
from costmodel.residual import book_value_usd
from costmodel.residual import resale_share
from costmodel.result import ApiResult
from costmodel.result import BuyResult
from costmodel.result import CashFlows
from costmodel.result import GoodputResult
from costmodel.result import RentResult
from costmodel.result import Residual
from costmodel.result import Result
from costmodel.timeline import Line
from costmodel.timeline import add_lines
from costmodel.timeline import clear_after
from costmodel.timeline import price_factor_sum
from costmodel.timeline import running_total_months_first
from costmodel.token_api import api_usd_by_month
from costmodel.token_api import blended_usd_per_million_tokens
from costmodel.token_api import breakeven_million_tokens_per_month
from costmodel.token_api import million_tokens_per_month
from costmodel.validation import validate

# A running saving this close to zero, relative to the money that flowed, counts
# as breaking even; it absorbs rounding in sums of ~100 monthly amounts.
BREAKEVEN_RELATIVE_TOLERANCE = 1e-9


def compute_result(
    inputs: Scenario,
    *,
    detail: bool = True,
    irr: bool | None = None,
    compiled: bool | None = None,
    ranges_checked: bool = False,
) -> Result:
    """Evaluate a scenario or a batch of them in one vectorised pass (no recommendation).

    Parameters
    ----------
    inputs : Scenario
        Numeric fields are floats or arrays that broadcast to one batch shape.
    detail : bool
        Keep every monthly cost line and running total. Sweeps pass False to keep
        only per-scenario figures.
    irr : bool, optional
        Compute each rent option's IRR (a root search over every month, the
        costliest figure); default: with ``detail``. Without it ``irr_per_year`` is None.
    compiled : bool, optional
        Walk the months in the compiled kernel (``costmodel.kernel``) instead of
        NumPy arrays; default: when neither ``detail`` nor ``irr`` is asked for,
        as the kernel keeps no monthly arrays. The NumPy path is the reference.
    ranges_checked : bool
        Every input is known to lie in its valid range (a sensitivity batch of
        moves clipped into them): only the checks between inputs run.

    Returns
    -------
    Result
        Batch-shaped figures; monthly arrays have shape batch + (H_max + 1,).
    """
    irr = detail if irr is None else irr
    compiled = not (detail or irr) if compiled is None else compiled
    if compiled and (detail or irr):
        raise ValueError("the compiled kernel keeps no monthly arrays: it gives neither detail nor IRR")
    validate(inputs, ranges=not ranges_checked)
    inputs = at_moved_rates(inputs)
    horizon = whole(inputs.finance.horizon_months)
    n_months = int(horizon if is_number(horizon) else np.max(horizon))
    shape = batch_shape(inputs)
    workload = inputs.workload

    footprint = fleet_footprint(workload, inputs.buy, inputs.facility, inputs.cooling)
    capex = capex_usd(inputs, footprint)
    buy_emissions = BuyEmissions.of(inputs, footprint)
    rent_emissions = [RentEmissions.of(option, inputs) for option in inputs.rent]
    sides = [_buy_side_lines(inputs, footprint, capex, buy_emissions, horizon)]
    sides += [
        _rent_side_lines(inputs, option, emissions, horizon)
        for option, emissions in zip(inputs.rent, rent_emissions, strict=True)
    ]
    if compiled:
        buy_side, *rent_sides = _compiled_sides(inputs, shape, n_months, horizon, sides)
    else:
        factors = discount_factors(inputs.finance.discount_rate_per_year, n_months)
        timeline = _Timeline(shape, n_months, horizon, detail, factors)
        buy_side, *rent_sides = _numpy_sides(timeline, sides, irr=irr)
    buy_goodput = _goodput(inputs, interruptions_per_hour=0.0)
    million_tokens = _million_tokens_per_month(inputs, buy_goodput.share)
    buy = BuyResult(
        **buy_side.figures(workload, buy_goodput.share, horizon),
        capex_usd=capex,
        total_capex_usd=sum(capex.values()),
        depreciation_usd_per_month=depreciation_usd_per_month(inputs, capex),
        depreciation_line_usd=_monthly_line(depreciation_line(inputs, capex), shape, n_months, horizon)
        if detail
        else None,
        goodput=buy_goodput,
        residual=Residual(
            resale_share=resale_share(inputs.buy, horizon),
            resale_value_usd=capex["systems"] * resale_share(inputs.buy, horizon),
            book_value_usd=book_value_usd(capex["systems"], inputs.buy.depreciation_months, horizon),
        ),
        carbon=buy_emissions.result(horizon, million_tokens),
    )
    buy_slope = energy_utilisation_slope_usd(
        inputs, footprint, horizon
    ) + buy_emissions.utilisation_slope_usd(inputs, horizon)
    rent = tuple(
        _rent_result(option, side, inputs, buy, buy_slope, horizon, emissions, million_tokens)
        for option, side, emissions in zip(inputs.rent, rent_sides, rent_emissions, strict=True)
    )
    api = tuple(
        _api_result(option, inputs, (shape, n_months, horizon, detail), buy, buy_slope, rent, million_tokens)
        for option in inputs.api
    )
    return Result(
        batch_shape=shape,
        months=np.arange(n_months + 1),
        horizon_months=horizon,
        footprint=footprint,
        buy=buy,
        rent=rent,
        tokens_per_month=million_tokens * TOKENS_PER_MILLION,
        api=api,
    )


def npv_saving_usd(inputs: Scenario, rent_index: int, *, ranges_checked: bool = False) -> Numeric:
    """NPV of renting with one option minus that of buying, and nothing else [USD].

    The figure a sensitivity run reads, on the compiled kernel: only buying's and
    that option's cost lines are built, and no other figure is assembled. Equal
    to ``compute_result(inputs, detail=False).rent[rent_index].npv_saving_usd``.
    """
    validate(inputs, ranges=not ranges_checked)
    inputs = at_moved_rates(inputs)
    horizon = whole(inputs.finance.horizon_months)
    footprint = fleet_footprint(inputs.workload, inputs.buy, inputs.facility, inputs.cooling)
    option = inputs.rent[rent_index]
    sides = [
        _buy_side_lines(
            inputs, footprint, capex_usd(inputs, footprint), BuyEmissions.of(inputs, footprint), horizon
        ),
        _rent_side_lines(inputs, option, RentEmissions.of(option, inputs), horizon),
    ]
    buy, rent = _compiled_sides(inputs, batch_shape(inputs), int(np.max(horizon)), horizon, sides)
    return rent.npv_usd - buy.npv_usd


def _buy_side_lines(
    inputs: Scenario,
    footprint: Footprint,
    capex: dict[str, Numeric],
    emissions: BuyEmissions,
    horizon: NDArray[np.float64],
) -> list[Line]:
    """Buying's cost lines, its carbon price last."""
    return [*buy_lines(inputs, footprint, capex, horizon), emissions.line(inputs)]


def _rent_side_lines(
    inputs: Scenario, option: RentOption, emissions: RentEmissions, horizon: NDArray[np.float64]
) -> list[Line]:
    """One rent option's cost lines, its carbon price last."""
    return [*rent_lines(option, inputs.workload, horizon), emissions.line(inputs)]


@dataclass(frozen=True)
class _Side:
    """The monthly stage's figures of one side (buying, or one rent option)."""

    cash_flows: CashFlows
    total_usd: Numeric
    npv_usd: Numeric
    breakeven_month: Numeric | None = None  # every rent option's side has one, buying's none
    irr_per_year: NDArray[np.float64] | None = None

    def figures(
        self, workload: Workload, goodput_share: Numeric, horizon: NDArray[np.float64]
    ) -> dict[str, Any]:
        """What buying's and each rent option's result take alike from their side: cash flows,
        totals, and the cost per useful accelerator-hour and per million tokens at a goodput share."""
        useful_hours = useful_accelerator_hours(
            workload.accelerators, workload.hours_per_month, goodput_share, horizon
        )
        cost_per_hour = cost_per_useful_accelerator_hour_usd(self.total_usd, useful_hours)
        return {
            "cash_flows": self.cash_flows,
            "total_usd": self.total_usd,
            "npv_usd": self.npv_usd,
            "cost_per_useful_accelerator_hour_usd": cost_per_hour,
            "cost_per_million_tokens_usd": cost_per_million_tokens_usd(
                cost_per_hour, workload.tokens_per_s_per_accelerator
            ),
        }


_NO_FLOWS = CashFlows(lines_usd={}, per_month_usd=None, cumulative_usd=None)


def _compiled_sides(
    inputs: Scenario,
    shape: tuple[int, ...],
    n_months: int,
    horizon: NDArray[np.float64],
    sides: list[list[Line]],
) -> list[_Side]:
    """Each side's figures from the compiled kernel (no monthly arrays, no IRR)."""
    from costmodel import kernel  # Numba loads only in processes that walk months compiled

    figures = kernel.walk_months(
        shape, n_months, horizon, inputs.finance.discount_rate_per_year, sides, BREAKEVEN_RELATIVE_TOLERANCE
    )
    buy, *rent = figures
    return [
        _Side(_NO_FLOWS, buy.total_usd, buy.npv_usd),
        *(_Side(_NO_FLOWS, side.total_usd, side.npv_usd, side.breakeven_month) for side in rent),
    ]


def _numpy_sides(timeline: _Timeline, sides: list[list[Line]], *, irr: bool) -> list[_Side]:
    """Each side's figures from (batch x months) arrays: the reference path, with detail and IRR."""
    buy_lines_, *rent_sides = sides
    buy_per_month, buy_flows = timeline.build(buy_lines_)
    buy_total = buy_per_month.sum(axis=-1)
    buy_months_first = np.ascontiguousarray(_months_first(buy_per_month))
    buy_gross = np.abs(buy_per_month).sum(axis=-1)
    buy = _Side(buy_flows, buy_total, present_value_usd(buy_per_month, timeline.discount_factors))
    del buy_per_month
    rent = []
    for lines in rent_sides:
        per_month, flows = timeline.build(lines)
        total = per_month.sum(axis=-1)
        npv = present_value_usd(per_month, timeline.discount_factors)
        # IRR (Horner's rule) and the running total both walk the months: months-first
        # and contiguous, each step is one pass over a contiguous row of scenarios.
        saving_by_month = np.subtract(_months_first(per_month), buy_months_first)
        del per_month
        irr_figure = irr_per_year(saving_by_month, months_axis=0).reshape(timeline.shape) if irr else None
        running_total_months_first(saving_by_month)
        tolerance = BREAKEVEN_RELATIVE_TOLERANCE * (buy_gross + total)
        months_to_breakeven = breakeven_month(saving_by_month, np.reshape(tolerance, -1), months_axis=0)
        rent.append(_Side(flows, total, npv, months_to_breakeven.reshape(timeline.shape), irr_figure))
    return [buy, *rent]


def _monthly_line(
    line: Line, shape: tuple[int, ...], n_months: int, horizon: NDArray[np.float64]
) -> NDArray[np.float64]:
    """One cost line as its own monthly array, zero after each scenario's horizon."""
    out = np.zeros(shape + (n_months + 1,))
    line.write(out)
    clear_after(out, horizon)
    return out


@dataclass(frozen=True)
class _Timeline:
    """The month axis of one batch, its discount factors, and how much of it to keep."""

    shape: tuple[int, ...]
    n_months: int
    horizon: NDArray[np.float64]
    detail: bool
    discount_factors: NDArray[np.float64]

    def build(self, lines: list[Line]) -> tuple[NDArray[np.float64], CashFlows]:
        """Monthly total of the lines, and the cash flows kept in the result.

        Without ``detail`` every line is added straight into the total and the
        result keeps no monthly arrays (the caller may then reuse the total).
        """
        if not self.detail:
            total = np.zeros(self.shape + (self.n_months + 1,))
            add_lines(total, lines)
            clear_after(total, self.horizon)
            return total, _NO_FLOWS
        arrays = {line.name: _monthly_line(line, self.shape, self.n_months, self.horizon) for line in lines}
        total = np.zeros(self.shape + (self.n_months + 1,))
        for array in arrays.values():
            total += array
        return total, CashFlows(
            lines_usd=arrays, per_month_usd=total, cumulative_usd=np.cumsum(total, axis=-1)
        )


def _months_first(monthly: NDArray[np.float64]) -> NDArray[np.float64]:
    """A (batch..., months) array viewed as (months, scenarios)."""
    return monthly.reshape(-1, monthly.shape[-1]).T


def _rent_result(
    option: RentOption,
    side: _Side,
    inputs: Scenario,
    buy: BuyResult,
    buy_utilisation_slope_usd: Numeric,
    horizon: NDArray[np.float64],
    emissions: RentEmissions,
    buy_million_tokens_per_month: Numeric,
) -> RentResult:
    """Compare one rent option's figures with buying."""
    workload = inputs.workload
    # Only spot capacity is interrupted beyond the failures a bought fleet has too.
    if option.pricing_model == PricingModel.SPOT:
        goodput = _goodput(inputs, interruptions_per_hour=option.spot_interruptions_per_hour)
        million_tokens = _million_tokens_per_month(inputs, goodput.share)
    else:
        goodput, million_tokens = buy.goodput, buy_million_tokens_per_month
    saving = side.total_usd - buy.total_usd
    slope = rent_utilisation_slope_usd(option, workload, horizon) + emissions.utilisation_slope_usd(
        inputs, horizon
    )
    rented = accelerators_rented(option, workload)
    assert side.breakeven_month is not None, "a rent option's side has its breakeven month"
    return RentResult(
        name=option.name,
        pricing_model=str(option.pricing_model),
        equivalence_factor=as_float(option.equivalence_factor),
        accelerators_rented=rented,
        instances=instances_needed(rented, option.accelerators_per_instance),
        **side.figures(workload, goodput.share, horizon),
        saving_usd=saving,
        npv_saving_usd=side.npv_usd - buy.npv_usd,
        breakeven_month=side.breakeven_month,
        breakeven_utilisation=breakeven_utilisation(
            saving, slope - buy_utilisation_slope_usd, workload.utilisation
        ),
        irr_per_year=side.irr_per_year,
        goodput=goodput,
        carbon=emissions.result(horizon, million_tokens),
        utilisation_slope_usd=slope,
    )


def _goodput(inputs: Scenario, interruptions_per_hour: Numeric) -> GoodputResult:
    """Goodput of a fleet of the workload's accelerators."""
    workload = inputs.workload
    efficiency, interval, mtbf = fleet_efficiency(
        inputs.goodput, workload.accelerators, interruptions_per_hour
    )
    share = as_float(workload.utilisation) * efficiency
    return GoodputResult(share=share, efficiency=efficiency, checkpoint_interval_h=interval, mtbf_h=mtbf)


def _million_tokens_per_month(inputs: Scenario, goodput_share: Numeric) -> Numeric:
    """What a fleet of the workload's accelerators produces at a goodput share [Mtoken/month]."""
    workload = inputs.workload
    useful = as_float(workload.accelerators) * workload.hours_per_month * goodput_share
    return million_tokens_per_month(useful, workload.tokens_per_s_per_accelerator)


def _api_result(
    option: ApiOption,
    inputs: Scenario,
    months: tuple[tuple[int, ...], int, NDArray[np.float64], bool],
    buy: BuyResult,
    buy_utilisation_slope_usd: Numeric,
    rent: tuple[RentResult, ...],
    million_tokens: Numeric,
) -> ApiResult:
    """Cost the workload's tokens on one API and find the volumes at which each fleet beats it."""
    shape, n_months, horizon, detail = months
    blended = blended_usd_per_million_tokens(option, inputs.tokens)
    per_month = api_usd_by_month(option, million_tokens * blended, shape, horizon)
    total = per_month.sum(axis=-1)
    factors = discount_factors(inputs.finance.discount_rate_per_year, n_months)
    flows = (
        CashFlows({"tokens": per_month}, per_month, np.cumsum(per_month, axis=-1)) if detail else _NO_FLOWS
    )
    per_million_over_horizon = blended * price_factor_sum(option.price_change_per_year, horizon)
    utilisation = inputs.workload.utilisation

    def breakeven(
        total_usd: Numeric, slope_usd: Numeric, goodput: GoodputResult
    ) -> tuple[Numeric, Numeric]:
        """(volume [Mtoken/month], utilisation [-]) at which a fleet costs what the API does."""
        capacity = _million_tokens_per_month(inputs, goodput.efficiency)
        volume = breakeven_million_tokens_per_month(
            total_usd, slope_usd, utilisation, capacity, per_million_over_horizon
        )
        return volume, volume / capacity

    buy_volume, buy_utilisation = breakeven(buy.total_usd, buy_utilisation_slope_usd, buy.goodput)
    return ApiResult(
        name=option.name,
        cash_flows=flows,
        total_usd=total,
        npv_usd=present_value_usd(per_month, factors),
        blended_usd_per_million_tokens=blended,
        cost_per_million_tokens_usd=per_million_tokens(total, million_tokens * horizon),
        within_rate_limit=million_tokens * TOKENS_PER_MILLION <= option.rate_limit_tokens_per_month,
        saving_by_buying_usd=total - buy.total_usd,
        breakeven_tokens_per_month_buy=buy_volume * TOKENS_PER_MILLION,
        breakeven_utilisation_buy=buy_utilisation,
        breakeven_tokens_per_month_rent={
            fleet.name: breakeven(fleet.total_usd, fleet.utilisation_slope_usd, fleet.goodput)[0]
            * TOKENS_PER_MILLION
            for fleet in rent
        },
    )
