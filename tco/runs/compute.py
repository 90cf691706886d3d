"""One chunk of a run: its points evaluated in one vectorised engine call, as a table.

A chunk's table has one row per point: ``point`` (its flat index in the run), the value of
each varied input (a column named by its path), the buy side's cost per useful
accelerator-hour, per rent option ``"<option>: <metric>"`` columns, every option's NPV of
costs (``"buy: npv_usd"``, ``"<rent option>: npv_usd"``, ``"<per-token API>: npv_usd"``, null
where an API's rate limit is below the workload), ``margin_usd`` (how much less the cheapest
costs than the next cheapest, NPV) and ``winner`` ("buy", or the rent option or per-token API
with the lowest NPV): the ranking ``costmodel.verdict_of`` makes of the point alone.

Amounts are in the run's currency (its scenario's reporting currency) whatever the ``_usd`` of
the stored names: a download renames them (``money_columns``).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
import pandas as pd
import pyarrow as pa
from numpy.typing import NDArray

import costmodel as engine
from costmodel.verdict import API
from costmodel.verdict import BUY
from costmodel.verdict import RENT
from costmodel.verdict import option_npvs
from tco.runs.specs import MonteCarloSpec
from tco.runs.specs import SensitivitySpec
from tco.runs.specs import SweepSpec

POINT_COLUMN = "point"
WINNER_COLUMN = "winner"
BUY_WINS = "buy"
BUY_COST_COLUMN = "cost_per_useful_accelerator_hour_buy_usd"
MARGIN_COLUMN = "margin_usd"
NPV_METRIC = "npv_usd"
# Rows handed on at a time as a chunk is computed (``points_table``'s ``on_rows``): four of
# the engine's blocks, one record batch of a stored part.
ROWS_PER_BATCH = 4 * engine.BLOCK_POINTS
OPTION_METRICS = (
    "breakeven_month",
    "npv_saving_usd",
    "saving_usd",
    "cost_per_useful_accelerator_hour_rent_usd",
)

SENSITIVITY_COLUMNS = [
    "rank",
    "path",
    "winner",
    "rent_option",
    "against_kind",
    "base_value",
    "low_value",
    "high_value",
    "base_saving_usd",
    "saving_at_low_usd",
    "saving_at_high_usd",
    "swing_usd",
    "continuous_swing_usd",
]


def option_column(option: str, metric: str) -> str:
    """Name of a rent option's metric column."""
    return f"{option}: {metric}"


def npv_column(name: str) -> str:
    """Name of an option's NPV-of-costs column ("buy", a rent option's or an API's name)."""
    return option_column(name, NPV_METRIC)


def ranked_options(inputs: engine.Scenario) -> list[tuple[str, str]]:
    """(kind, name) of every option a run ranks, in the winner's category order: buying ("buy"),
    each rent option, each per-token API (the verdict's order, which settles ties)."""
    return [(BUY, BUY_WINS), *((RENT, option.name) for option in inputs.rent),
            *((API, option.name) for option in inputs.api)]


@dataclass(frozen=True)
class PointsTable:
    """A chunk's table as NumPy columns, what its tally reads, and as Arrow, what is stored.

    No pandas in between: a DataFrame of 125,000 points cost ~10 ms a chunk to build and to
    turn into Arrow, against ~4 ms from the arrays.
    """

    columns: dict[str, NDArray[Any]]  # every column but the winner, in table order
    winner: NDArray[np.int8]  # index into ``categories``
    categories: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.winner)

    def column(self, name: str) -> NDArray[Any]:
        return self.columns[name]

    def arrow(self, start: int = 0, stop: int | None = None) -> pa.Table:
        """Rows ``start`` to ``stop - 1`` (all by default): one array per column, NaN as null and
        the winner as a dictionary, as ``pyarrow.Table.from_pandas`` made them (without its
        pandas metadata)."""
        rows = slice(start, stop)
        arrays = [pa.array(values[rows], mask=_nan_mask(values[rows])) for values in self.columns.values()]
        arrays.append(pa.DictionaryArray.from_arrays(
            pa.array(self.winner[rows], type=pa.int8()), pa.array(self.categories, type=pa.large_string())))
        return pa.Table.from_arrays(arrays, names=[*self.columns, WINNER_COLUMN])

    def frame(self) -> pd.DataFrame:
        """The table as pandas (the winner categorical, never-breaks-even as NaN)."""
        return self.arrow().to_pandas()

    @classmethod
    def from_arrow(cls, table: pa.Table) -> PointsTable:
        """A stored part's table back as columns."""
        table = table.combine_chunks()
        winner = table.column(WINNER_COLUMN).chunk(0) if table.num_rows else None
        columns = {name: table.column(name).to_numpy()
                   for name in table.column_names if name != WINNER_COLUMN}
        if winner is None:
            return cls(columns, np.zeros(0, dtype=np.int8), ())
        return cls(columns, winner.indices.to_numpy(), tuple(winner.dictionary.to_pylist()))


def points_table(
    inputs: engine.Scenario,
    overrides: Mapping[str, NDArray[np.float64]],
    first_point: int,
    *,
    on_rows: Callable[[PointsTable, int, int], None] | None = None,
) -> PointsTable:
    """Evaluate the points given by ``overrides`` (path -> one value per point), block by block.

    Parameters
    ----------
    inputs : engine.Scenario
        The run's base scenario (scalar inputs).
    overrides : mapping of str to ndarray
        Input path -> values, all of the same length (the number of points).
    first_point : int
        Flat index of the first point in the run.
    on_rows : callable, optional
        Called with the table and the bounds of each ``ROWS_PER_BATCH`` rows (the last
        fewer) as soon as they are complete, in order, while the engine goes on with the next.

    Returns
    -------
    PointsTable
        One row per point (see the module docstring).
    """
    count = len(next(iter(overrides.values())))
    names = [option.name for option in inputs.rent]
    options = [name for _, name in ranked_options(inputs)]
    columns: dict[str, NDArray[Any]] = {
        POINT_COLUMN: np.arange(first_point, first_point + count, dtype=np.int64)}
    columns.update({path: np.asarray(values, dtype=np.float64) for path, values in overrides.items()})
    figures = [BUY_COST_COLUMN, *(option_column(name, metric) for name in names for metric in OPTION_METRICS)]
    columns.update({column: np.empty(count) for column in figures})
    # Every option's NPV, a row each: the winner and the margin are read from them.
    npvs = np.empty((len(options), count))
    columns.update({npv_column(name): row for name, row in zip(options, npvs, strict=True)})
    columns[MARGIN_COLUMN] = np.empty(count)
    # One byte a point: buying and at most MAX_RENT_OPTIONS (50) rent options and as many APIs.
    table = PointsTable(columns, np.empty(count, dtype=np.int8), tuple(options))
    done = 0
    for start, stop, result in engine.evaluate_points(inputs, overrides):
        # A figure that no varied input moves is one number: stored once per point.
        columns[BUY_COST_COLUMN][start:stop] = result.buy.cost_per_useful_accelerator_hour_usd
        for option in result.rent:
            for metric in OPTION_METRICS:
                columns[option_column(option.name, metric)][start:stop] = _option_figure(option, metric)
        npvs[:, start:stop] = option_npvs(result)
        winners_and_margins(npvs[:, start:stop], table.winner[start:stop], columns[MARGIN_COLUMN][start:stop])
        if on_rows is not None and (stop - done >= ROWS_PER_BATCH or stop == count):
            on_rows(table, done, stop)
            done = stop
    return table


@numba.njit(cache=True, nogil=True)
def winners_and_margins(npvs, winner, margin):
    """Each point's winner (its option's row) and margin, from the options' NPVs (a row an
    option, a column a point), as ``verdict_of`` ranks them: an NPV that is not a number is
    left out; the cheapest wins, the first of equals (buying before renting before an API);
    the margin is the next cheapest's NPV less the winner's, NaN with fewer than two ranked.

    One pass a point: NumPy's argmin and partition over the options took ten times as long
    (71 against 7 ms at 125,000 points and four options)."""
    for point in range(npvs.shape[1]):
        best, lowest, second = 0, math.inf, math.inf
        for option in range(npvs.shape[0]):
            value = npvs[option, point]
            if not math.isfinite(value):
                continue
            if value < lowest:
                best, lowest, second = option, value, lowest
            elif value < second:
                second = value
        winner[point] = best
        margin[point] = second - lowest if math.isfinite(second) else math.nan


def _option_figure(option: engine.RentResult, metric: str) -> engine.Numeric:
    # The rent side's cost per useful hour is the option's own; the others are named alike.
    if metric == "cost_per_useful_accelerator_hour_rent_usd":
        return option.cost_per_useful_accelerator_hour_usd
    return getattr(option, metric)


def _nan_mask(values: NDArray[Any]) -> NDArray[np.bool_] | None:
    # A sum is NaN when a value is (or when infinities of both signs meet): a sum is cheaper
    # than the mask, and most columns have no NaN.
    if values.dtype.kind != "f" or not np.isnan(np.add.reduce(values)):
        return None
    return np.isnan(values)


def sweep_chunk_table(
    inputs: engine.Scenario, spec: SweepSpec, start: int, stop: int, *,
    on_rows: Callable[[PointsTable, int, int], None] | None = None,
) -> PointsTable:
    """Grid points ``start`` to ``stop - 1`` of a sweep (``on_rows``: see ``points_table``)."""
    return points_table(inputs, spec.overrides(start, stop), start, on_rows=on_rows)


def monte_carlo_chunk_table(
    inputs: engine.Scenario, spec: MonteCarloSpec, seed: int, start: int, stop: int, *,
    on_rows: Callable[[PointsTable, int, int], None] | None = None,
) -> PointsTable:
    """Samples ``start`` to ``stop - 1`` of a Monte Carlo run (``on_rows``: see ``points_table``)."""
    return points_table(inputs, spec.overrides(seed, start, stop), start, on_rows=on_rows)


def sensitivity_frame(inputs: engine.Scenario, spec: SensitivitySpec) -> pd.DataFrame:
    """The tornado: one row per input, widest swing first (``SensitivityRow.effect_usd``, as the
    scenario's own tornado ranks them). The figure is the winner's margin over the next
    cheapest option (``winner`` labels the winner; ``rent_option`` names the next cheapest and
    ``against_kind`` its kind), or buying's saving against the spec's rent option."""
    tornado = engine.one_at_a_time(
        inputs, paths=spec.paths, step_share=spec.step_share, rent_option=spec.rent_option
    )
    if tornado is None:
        raise ValueError("a single option is ranked: there is no margin to move")
    rows = [
        {
            "rank": rank,
            "path": row.path,
            "winner": tornado.winner,
            "rent_option": tornado.against,
            "against_kind": tornado.against_kind,
            "base_value": row.base_value,
            "low_value": row.low_value,
            "high_value": row.high_value,
            "base_saving_usd": tornado.base_saving_usd,
            "saving_at_low_usd": row.saving_at_low_usd,
            "saving_at_high_usd": row.saving_at_high_usd,
            "swing_usd": row.swing_usd,
            "continuous_swing_usd": row.continuous_swing_usd,
        }
        for rank, row in enumerate(tornado.rows, start=1)
    ]
    return pd.DataFrame(rows, columns=SENSITIVITY_COLUMNS)

