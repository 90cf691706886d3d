"""One chunk of a run: its points evaluated in one vectorised engine call, as a table.

A chunk's table has one row per point: ``point`` (its flat index in the run), the value of
each varied input (a column named by its path), the buy side's cost per useful
accelerator-hour, per rent option ``"<option>: <metric>"`` columns, and ``winner`` ("buy", or
the rent option with the lowest NPV).
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
from tco.runs.specs import MonteCarloSpec
from tco.runs.specs import SensitivitySpec
from tco.runs.specs import SweepSpec

POINT_COLUMN = "point"
WINNER_COLUMN = "winner"
BUY_WINS = "buy"
BUY_COST_COLUMN = "cost_per_useful_accelerator_hour_buy_usd"
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
    "rent_option",
    "base_value",
    "low_value",
    "high_value",
    "base_saving_usd",
    "saving_at_low_usd",
    "saving_at_high_usd",
    "swing_usd",
]


def option_column(option: str, metric: str) -> str:
    """Name of a rent option's metric column."""
    return f"{option}: {metric}"


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
    columns: dict[str, NDArray[Any]] = {
        POINT_COLUMN: np.arange(first_point, first_point + count, dtype=np.int64)}
    columns.update({path: np.asarray(values, dtype=np.float64) for path, values in overrides.items()})
    figures = [BUY_COST_COLUMN, *(option_column(name, metric) for name in names for metric in OPTION_METRICS)]
    # The options' NPV savings, a row each: the winner is read from them.
    savings = np.empty((len(names), count))
    rows = {option_column(name, "npv_saving_usd"): row for name, row in zip(names, savings, strict=True)}
    columns.update({column: rows[column] if column in rows else np.empty(count) for column in figures})
    # One byte a point: buying and at most MAX_RENT_OPTIONS (50) options.
    table = PointsTable(columns, np.empty(count, dtype=np.int8), (BUY_WINS, *names))
    done = 0
    for start, stop, result in engine.evaluate_points(inputs, overrides):
        # A figure that no varied input moves is one number: stored once per point.
        columns[BUY_COST_COLUMN][start:stop] = result.buy.cost_per_useful_accelerator_hour_usd
        for option in result.rent:
            for metric in OPTION_METRICS:
                columns[option_column(option.name, metric)][start:stop] = _option_figure(option, metric)
        _winners(savings, start, stop, table.winner)
        if on_rows is not None and (stop - done >= ROWS_PER_BATCH or stop == count):
            on_rows(table, done, stop)
            done = stop
    return table


@numba.njit(cache=True, nogil=True)
def _winners(savings, start, stop, winner):
    """Points ``start`` to ``stop - 1``'s winners from the options' savings (rent NPV - buy NPV,
    one row an option): buying (0) only when it beats every rent option, else the option with
    the smallest saving (its row + 1), the first of equals; a NaN saving wins as NumPy's
    ``argmin`` ranks it, first. With no rent option, buying."""
    if not savings.shape[0]:
        winner[start:stop] = 0
        return
    for point in range(start, stop):
        best = 0
        for option in range(1, savings.shape[0]):
            value, lowest = savings[option, point], savings[best, point]
            if not math.isnan(lowest) and (math.isnan(value) or value < lowest):
                best = option
        winner[point] = 0 if savings[best, point] > 0.0 else best + 1


def _option_figure(option: engine.RentResult, metric: str) -> NDArray[np.float64]:
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
    """The tornado: one row per input, widest swing of the NPV saving first."""
    tornado = engine.one_at_a_time(
        inputs, paths=spec.paths, step_share=spec.step_share, rent_option=spec.rent_option
    )
    if tornado is None:
        raise ValueError("buying is the only option: there is no saving to move")
    rows = [
        {
            "rank": rank,
            "path": row.path,
            "rent_option": tornado.against,
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

