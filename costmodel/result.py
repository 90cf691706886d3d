"""What one evaluation returns: cash flows, totals, NPVs, breakevens, unit costs, footprint."""

from __future__ import annotations

import math
from dataclasses import dataclass
from dataclasses import fields
from dataclasses import is_dataclass
from typing import TYPE_CHECKING
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from numpy.typing import NDArray

from costmodel.figures import finite_or_none
from costmodel.footprint import Footprint
from costmodel.inputs import Numeric
from costmodel.vocabulary import RESULTS
from costmodel.vocabulary import json_value

if TYPE_CHECKING:  # sensitivity and the verdict build on results
    from costmodel.sensitivity import Tornado
    from costmodel.verdict import Verdict


@dataclass(frozen=True)
class CashFlows:
    """Monthly cost lines of one option, their monthly total and running total [USD].

    Months are on the last axis (index 0 = month 0). All three are empty/None
    when evaluated with ``detail=False``.
    """

    lines_usd: dict[str, NDArray[np.float64]]
    per_month_usd: NDArray[np.float64] | None
    cumulative_usd: NDArray[np.float64] | None


@dataclass(frozen=True)
class BuyResult:
    """Costs of buying over the horizon (batch-shaped unless noted).

    ``capex_usd`` holds each capex line before financing; depreciation is the
    accounting view (straight line over ``depreciation_months``) and is not part
    of any cash total.
    """

    cash_flows: CashFlows
    capex_usd: dict[str, Numeric]
    total_capex_usd: Numeric
    depreciation_usd_per_month: Numeric
    depreciation_line_usd: Numeric | None
    total_usd: Numeric
    npv_usd: Numeric
    cost_per_useful_accelerator_hour_usd: Numeric
    cost_per_million_tokens_usd: Numeric
    goodput: GoodputResult
    residual: Residual
    carbon: Emissions


@dataclass(frozen=True)
class GoodputResult:
    """How much of the paid accelerator-hours did useful work (batch-shaped).

    ``share`` = utilisation x ``efficiency``; ``checkpoint_interval_h`` is the
    interval used (the Young/Daly optimum unless one was given; inf = never).
    """

    share: Numeric
    efficiency: Numeric
    checkpoint_interval_h: Numeric
    mtbf_h: Numeric


@dataclass(frozen=True)
class Residual:
    """The systems' worth at the horizon: resale (cash) and book value (accounting) [USD]."""

    resale_share: Numeric
    resale_value_usd: Numeric
    book_value_usd: Numeric


@dataclass(frozen=True)
class Emissions:
    """Emissions of one option [t CO2e] (batch-shaped); NaN per token without a throughput."""

    kwh_per_month: Numeric  # with the site's PUE when buying, the cloud's when renting
    grid_kg_co2e_per_kwh: Numeric
    tonnes_per_year: Numeric  # operational
    embodied_tonnes: Numeric  # of making the bought systems; 0 when renting
    total_tonnes: Numeric  # over the horizon, embodied included
    tonnes_per_million_tokens: Numeric


@dataclass(frozen=True)
class ApiResult:
    """Paying a model API per token for the workload's tokens, against each fleet (batch-shaped).

    Breakeven volumes are the tokens a month above which the fleet (buying, or
    each rent option by name) costs less than the API; NaN = never within the
    fleet's capacity. ``within_rate_limit`` is False where the workload needs
    more tokens a month than the API's rate limit allows.
    """

    name: str
    cash_flows: CashFlows
    total_usd: Numeric
    npv_usd: Numeric
    blended_usd_per_million_tokens: Numeric  # the token mix's first-year price
    cost_per_million_tokens_usd: Numeric  # total / tokens: price changes and minimum included
    within_rate_limit: bool | np.bool_ | NDArray[np.bool_]
    saving_by_buying_usd: Numeric
    breakeven_tokens_per_month_buy: Numeric
    breakeven_utilisation_buy: Numeric
    breakeven_tokens_per_month_rent: dict[str, Numeric]


@dataclass(frozen=True)
class RentResult:
    """Costs of one rent option and how buying compares with it (batch-shaped).

    ``saving_usd`` and ``npv_saving_usd`` are rent minus buy: positive means
    buying saves. ``breakeven_month`` and ``breakeven_utilisation`` are NaN when
    there is none; ``irr_per_year`` is the IRR of the flows rent - buy (None
    unless asked for: see ``evaluate``); ``utilisation_slope_usd`` is the change of
    ``total_usd`` per unit of utilisation.
    ``accelerators_rented`` = the workload's accelerators x ``equivalence_factor`` (the
    offering's accelerators per workload accelerator); ``instances`` hold them.
    """

    name: str
    pricing_model: str
    equivalence_factor: Numeric
    accelerators_rented: Numeric
    instances: Numeric
    cash_flows: CashFlows
    total_usd: Numeric
    npv_usd: Numeric
    cost_per_useful_accelerator_hour_usd: Numeric
    cost_per_million_tokens_usd: Numeric
    saving_usd: Numeric
    npv_saving_usd: Numeric
    breakeven_month: Numeric
    breakeven_utilisation: Numeric
    irr_per_year: Numeric | None
    goodput: GoodputResult
    carbon: Emissions
    utilisation_slope_usd: Numeric


@dataclass(frozen=True)
class Result:
    """Everything one ``evaluate`` call computed for a batch of scenarios.

    ``tornado`` and ``recommendation`` are there when the evaluation asked for a recommendation
    (the sensitivity run it is drawn from); None otherwise. ``verdict`` ranks every option of a
    single scenario (None for a batch).
    """

    batch_shape: tuple[int, ...]
    months: NDArray[np.int64]
    horizon_months: Numeric
    footprint: Footprint
    buy: BuyResult
    rent: tuple[RentResult, ...]
    tokens_per_month: Numeric
    api: tuple[ApiResult, ...] = ()
    recommendation: str | None = None
    tornado: Tornado | None = None
    verdict: Verdict | None = None

    def rent_option(self, name: str) -> RentResult:
        """The rent option called ``name``."""
        for option in self.rent:
            if option.name == name:
                return option
        raise KeyError(name)

    def cheapest_rent_index(self) -> np.intp | NDArray[np.intp]:
        """Per scenario, the index of the rent option with the lowest NPV."""
        npvs = np.stack(np.broadcast_arrays(*[option.npv_usd for option in self.rent]))
        index: np.intp | NDArray[np.intp] = np.argmin(npvs, axis=0)  # the stubs type it as Any
        return index

    def summary(self) -> dict[str, dict[str, NDArray[Any]]]:
        """Per rent option, batch-shaped arrays for sweeps.

        Keys: ``breakeven_month``, ``npv_saving_usd``, ``saving_usd``,
        ``cost_per_useful_accelerator_hour_buy_usd``,
        ``cost_per_useful_accelerator_hour_rent_usd`` and ``winner`` ("buy" where
        buying has the lower NPV, else "rent").
        """

        def full(value: ArrayLike) -> NDArray[Any]:
            return np.broadcast_to(value, self.batch_shape)

        return {
            option.name: {
                "breakeven_month": full(option.breakeven_month),
                "npv_saving_usd": full(option.npv_saving_usd),
                "saving_usd": full(option.saving_usd),
                "cost_per_useful_accelerator_hour_buy_usd": full(
                    self.buy.cost_per_useful_accelerator_hour_usd
                ),
                "cost_per_useful_accelerator_hour_rent_usd": full(
                    option.cost_per_useful_accelerator_hour_usd
                ),
                "winner": full(np.where(option.npv_saving_usd > 0.0, "buy", "rent")),
            }
            for option in self.rent
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready result of a batch of one: lists and plain numbers, None for NaN."""
        if math.prod(self.batch_shape) != 1:
            raise ValueError(f"to_dict needs a batch of one scenario, got shape {self.batch_shape}")
        return {
            "months": self.months.tolist(),
            "horizon_months": _jsonable(self.horizon_months, "horizon_months"),
            "footprint": _jsonable(self.footprint, "footprint"),
            "buy": _jsonable(self.buy, "buy"),
            "rent": [_jsonable(option, "rent") for option in self.rent],
            "tokens_per_month": _jsonable(self.tokens_per_month, "tokens_per_month"),
            "api": [_jsonable(option, "api") for option in self.api],
            "summary": {name: _jsonable(figures, "summary") for name, figures in self.summary().items()},
            "recommendation": self.recommendation,
            "verdict": None if self.verdict is None else self.verdict.to_dict(),
        }


def _jsonable(value: Any, path: str) -> Any:
    """Lists and plain numbers from arrays and dataclasses; a single value unwraps to a scalar.

    ``path`` names the figure in the vocabulary, whose format decides whether a number is
    whole (a month, a count: written as an int, never ``32.0``).
    """
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name), f"{path}.{f.name}") for f in fields(value)}
    if isinstance(value, dict):
        return {key: _jsonable(item, f"{path}.{key}" if f"{path}.{key}" in RESULTS else path)
                for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item, path) for item in value]
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    term = RESULTS.get(path)
    array = np.asarray(value)
    if array.size == 1:
        return _plain(array.reshape(()).item(), term)
    return [_plain(item, term) for item in array.reshape(-1).tolist()]


def _plain(item: Any, term: Any) -> Any:
    if term is not None:
        item = json_value(item, term.kind)
    return finite_or_none(item) if isinstance(item, float) else item
