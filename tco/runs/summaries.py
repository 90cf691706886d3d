"""What a finished run stores in the database: the figures a person reads first.

Summaries read the run's result one column at a time (8 MB per column at 10^6 points), never
the whole table: ``column(name)`` gives that column over every part, in point order. Every
figure is a plain number or None (NaN, infinity and "never breaks even" are None), so the
summary fits PostgreSQL's jsonb.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
from numpy.typing import NDArray

from tco import engine
from tco.engine.figures import finite_or_none
from tco.runs.compute import BUY_WINS
from tco.runs.compute import POINT_COLUMN
from tco.runs.compute import WINNER_COLUMN
from tco.runs.compute import option_column
from tco.runs.specs import MonteCarloSpec
from tco.runs.specs import SweepSpec

PERCENTILES = (10, 50, 90)
SPREAD = ("p10", "p50", "p90", "mean")
# Heat maps are aggregated to at most this many cells a side, small enough for a page.
HEATMAP_MAX_CELLS = 50
# A sensitivity summary's row holds these and more (rank, swing, the base saving again).
SENSITIVITY_ROW_FIELDS = [field.name for field in fields(engine.SensitivityRow)]


ColumnSource = Callable[[str], pa.ChunkedArray]
# The result's rows in point order, in blocks of a fixed size, with only the columns named.
BatchSource = Callable[[Sequence[str]], Iterator[pa.Table]]


def sweep_summary(batches: BatchSource, spec: SweepSpec, option_names: Sequence[str]) -> dict[str, Any]:
    """Ranges of the saving and breakeven per rent option, winner shares and a heat map.

    The heat map shows the (lower) median breakeven month (never = None) over the spec's heat-map
    axes; the other axes are folded into each cell's median, and an axis of more than
    ``HEATMAP_MAX_CELLS`` values is grouped into that many runs of neighbouring values.

    One pass over the result in blocks of a fixed number of rows: breakeven months are whole
    months, so each cell's median comes from a count per month, and memory stays that of a
    block however many points the run has (the same sums whatever the chunking).
    """
    heatmap = _HeatmapCounts(spec, option_names)
    options = {name: _Ranges() for name in option_names}
    winners = _WinnerCounts()
    columns = [POINT_COLUMN, WINNER_COLUMN, *(option_column(name, metric) for name in option_names
                                              for metric in ("npv_saving_usd", "breakeven_month"))]
    for batch in batches(columns):
        cells = heatmap.cells(batch.column(POINT_COLUMN).to_numpy())
        winners.add(batch.column(WINNER_COLUMN))
        for name, ranges in options.items():
            breakeven = batch.column(option_column(name, "breakeven_month")).to_numpy()
            ranges.add(batch.column(option_column(name, "npv_saving_usd")).to_numpy(), breakeven)
            heatmap.add(name, cells, breakeven)
    return {
        "points": spec.points_total,
        "axes": [
            {"path": axis.path, "count": len(axis.values), "min": float(axis.values.min()),
             "max": float(axis.values.max())}
            for axis in spec.axes
        ],
        "winner_shares": winners.shares(),
        "options": {name: ranges.figures() for name, ranges in options.items()},
        "heatmap": heatmap.figures(),
    }


class _Ranges:
    """A rent option's saving and breakeven figures, gathered block by block."""

    def __init__(self) -> None:
        self.points = self.buy_wins = self.never = 0
        self.saving = _FiniteRange()
        self.breakeven = _FiniteRange()

    def add(self, saving: NDArray[np.float64], breakeven: NDArray[np.float64]) -> None:
        self.points += len(saving)
        self.buy_wins += int(np.count_nonzero(saving > 0))
        self.never += int(np.count_nonzero(np.isnan(breakeven)))
        self.saving.add(saving)
        self.breakeven.add(breakeven)

    def figures(self) -> dict[str, Any]:
        return {
            "buy_wins_share": self.buy_wins / self.points,
            "npv_saving_usd": self.saving.figures(("min", "max", "mean")),
            "breakeven_month": {**self.breakeven.figures(("min", "max")),
                                "never_share": self.never / self.points},
        }


class _FiniteRange:
    """Min, max and mean of the finite values seen."""

    def __init__(self) -> None:
        self.low, self.high, self.total, self.count = math.inf, -math.inf, 0.0, 0

    def add(self, values: NDArray[np.float64]) -> None:
        finite = values[np.isfinite(values)]
        if finite.size:
            self.low, self.high = min(self.low, finite.min()), max(self.high, finite.max())
            self.total += float(finite.sum())
            self.count += finite.size

    def figures(self, names: Sequence[str]) -> dict[str, float | None]:
        if not self.count:
            return dict.fromkeys(names)
        figures = {"min": self.low, "max": self.high, "mean": self.total / self.count}
        return {name: finite_or_none(figures[name]) for name in names}


class _WinnerCounts:
    """How often each choice wins, over every category (buy first, then the rent options)."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def add(self, winners: pa.ChunkedArray) -> None:
        for chunk in winners.chunks:
            counts = np.bincount(chunk.indices.to_numpy(), minlength=len(chunk.dictionary))
            for name, count in zip(chunk.dictionary.to_pylist(), counts, strict=True):
                self.counts[name] = self.counts.get(name, 0) + int(count)

    def shares(self) -> dict[str, float]:
        total = sum(self.counts.values())
        return {name: count / total for name, count in self.counts.items()}


class _HeatmapCounts:
    """Points per heat-map cell and breakeven month (never last), for each rent option."""

    # Month slots 0..MAX_HORIZON_MONTHS, then "never".
    NEVER = engine.MAX_HORIZON_MONTHS + 1

    def __init__(self, spec: SweepSpec, option_names: Sequence[str]) -> None:
        self.spec = spec
        self.positions = [next(i for i, axis in enumerate(spec.axes) if axis.path == p)
                          for p in spec.heatmap_axes]
        self.groups, self.labels = [], []
        for position in self.positions:
            values = spec.axes[position].values
            groups = min(len(values), HEATMAP_MAX_CELLS)
            group_of_value = np.arange(len(values)) * groups // len(values)
            self.groups.append(group_of_value)
            self.labels.append([float(values[group_of_value == g].mean()) for g in range(groups)])
        self.width = len(self.labels[0])
        self.height = len(self.labels[1]) if len(self.labels) > 1 else 1
        self.counts = {name: np.zeros(self.width * self.height * (self.NEVER + 1), dtype=np.int64)
                       for name in option_names}

    def cells(self, points: NDArray[np.int64]) -> NDArray[np.int64]:
        coordinates = np.unravel_index(points, self.spec.shape)
        x_cells = self.groups[0][coordinates[self.positions[0]]]
        y_cells = self.groups[1][coordinates[self.positions[1]]] if len(self.positions) > 1 else 0
        return y_cells * self.width + x_cells

    def add(self, name: str, cells: NDArray[np.int64], breakeven: NDArray[np.float64]) -> None:
        months = np.where(np.isnan(breakeven), self.NEVER, np.nan_to_num(breakeven, posinf=self.NEVER))
        slots = cells * (self.NEVER + 1) + months.astype(np.int64)
        self.counts[name] += np.bincount(slots, minlength=len(self.counts[name]))

    def figures(self) -> dict[str, Any]:
        maps = {}
        for name, counts in self.counts.items():
            per_cell = counts.reshape(self.width * self.height, self.NEVER + 1)
            medians: list[float | None] = []
            for row in per_cell:
                points = int(row.sum())
                # The lower median: the ((n - 1) // 2)-th smallest month, "never" ranking last.
                if not points:
                    medians.append(None)
                    continue
                month = int(np.searchsorted(np.cumsum(row), (points - 1) // 2, side="right"))
                medians.append(None if month == self.NEVER else float(month))
            maps[name] = [medians[row * self.width:(row + 1) * self.width] for row in range(self.height)]
        return {
            "x_path": self.spec.heatmap_axes[0],
            "y_path": self.spec.heatmap_axes[1] if len(self.spec.heatmap_axes) > 1 else None,
            "x_values": self.labels[0],
            "y_values": self.labels[1] if len(self.labels) > 1 else [],
            "breakeven_month": maps,
        }


def monte_carlo_summary(
    column: ColumnSource, spec: MonteCarloSpec, option_names: Sequence[str], seed: int
) -> dict[str, Any]:
    """P10/P50/P90 of the saving and breakeven, P(buying wins) and a histogram per rent option."""
    table = _ColumnReader(column)
    options = {}
    for name in option_names:
        npv_saving = table.column(option_column(name, "npv_saving_usd"))
        breakeven = table.column(option_column(name, "breakeven_month"))
        counts, edges = np.histogram(npv_saving, bins=spec.histogram_bins)
        options[name] = {
            "buy_wins_probability": float(np.mean(npv_saving > 0)),
            "npv_saving_usd": _stats(npv_saving, SPREAD),
            "saving_usd": _stats(table.column(option_column(name, "saving_usd")), SPREAD),
            "breakeven_month": {**_breakeven_percentiles(breakeven),
                                "never_share": float(np.mean(np.isnan(breakeven)))},
            "histogram": {"bin_edges_usd": edges.tolist(), "counts": counts.tolist()},
        }
    shares = table.winner_shares()
    return {
        "samples": spec.samples,
        "seed": seed,
        "buy_wins_probability": shares.get(BUY_WINS, 0.0),
        "winner_shares": shares,
        "inputs": {path: _stats(table.column(path), SPREAD) for path in spec.distributions},
        "options": options,
    }


def sensitivity_summary(frame: pd.DataFrame, step_share: float) -> dict[str, Any]:
    """The tornado's rows, widest swing first, with the base saving they move from."""
    rows = [{key: finite_or_none(value) if isinstance(value, float) else value for key, value in row.items()}
            for row in frame.to_dict(orient="records")]
    return {
        "rent_option": rows[0]["rent_option"] if rows else None,
        "base_saving_usd": rows[0]["base_saving_usd"] if rows else None,
        "step_share": step_share,
        "rows": rows,
    }


def stored_tornado(summary: dict[str, Any]) -> engine.Tornado:
    """The engine's tornado back from a sensitivity summary (``sensitivity_summary``'s inverse)."""
    # A run's rows keep the figures, not the whole-count steps; older runs lack the continuous swing.
    rows = (engine.SensitivityRow(**{name: row[name] for name in SENSITIVITY_ROW_FIELDS if name in row})
            for row in summary["rows"])
    return engine.Tornado(against=summary["rent_option"], base_saving_usd=summary["base_saving_usd"],
                          step_share=summary["step_share"], rows=tuple(rows))


class _ColumnReader:
    """Reads single columns of a run's result as NumPy arrays."""

    def __init__(self, source: ColumnSource) -> None:
        self.source = source

    def column(self, name: str) -> NDArray[Any]:
        return self.source(name).to_numpy()

    def winner_shares(self) -> dict[str, float]:
        winners = self.source(WINNER_COLUMN).to_pandas()
        shares = winners.value_counts(normalize=True, sort=False)
        return {str(name): float(share) for name, share in shares.items()}


def _stats(values: NDArray[np.float64], names: Sequence[str]) -> dict[str, float | None]:
    finite = values[np.isfinite(values)]
    if not finite.size:
        return dict.fromkeys(names)
    figures = {"min": finite.min(), "max": finite.max(), "mean": finite.mean()}
    figures.update({f"p{q}": v for q, v in zip(PERCENTILES, np.percentile(finite, PERCENTILES), strict=True)})
    return {name: finite_or_none(figures[name]) for name in names}


def _breakeven_percentiles(breakeven: NDArray[np.float64]) -> dict[str, float | None]:
    # Order statistics (no interpolation): a breakeven is a whole month, and "never" (inf)
    # is a valid answer that interpolation would turn into NaN.
    ranked = np.nan_to_num(breakeven, nan=np.inf)
    values = np.percentile(ranked, PERCENTILES, method="inverted_cdf")
    return {f"p{q}": finite_or_none(v) for q, v in zip(PERCENTILES, values, strict=True)}
