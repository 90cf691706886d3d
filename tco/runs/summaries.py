"""What a finished run stores in the database: the figures a person reads first.

Summaries read the run's result one column at a time (8 MB per column at 10^6 points), never
the whole table: ``column(name)`` gives that column over every part, in point order. Every
figure is a plain number or None (NaN, infinity and "never breaks even" are None), so the
summary fits PostgreSQL's jsonb.
"""
from __future__ import annotations

from collections.abc import Callable
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


def sweep_summary(column: ColumnSource, spec: SweepSpec, option_names: Sequence[str]) -> dict[str, Any]:
    """Ranges of the saving and breakeven per rent option, winner shares and a heat map.

    The heat map shows the (lower) median breakeven month (never = None) over the spec's heat-map
    axes; the other axes are folded into each cell's median, and an axis of more than
    ``HEATMAP_MAX_CELLS`` values is grouped into that many runs of neighbouring values.
    """
    table = _ColumnReader(column)
    options = {}
    for name in option_names:
        saving = table.column(option_column(name, "npv_saving_usd"))
        breakeven = table.column(option_column(name, "breakeven_month"))
        options[name] = {
            "buy_wins_share": float(np.mean(saving > 0)),
            "npv_saving_usd": _stats(saving, ("min", "max", "mean")),
            "breakeven_month": {**_stats(breakeven, ("min", "max")),
                                "never_share": float(np.mean(np.isnan(breakeven)))},
        }
    return {
        "points": spec.points_total,
        "axes": [
            {"path": axis.path, "count": len(axis.values), "min": float(axis.values.min()),
             "max": float(axis.values.max())}
            for axis in spec.axes
        ],
        "winner_shares": table.winner_shares(),
        "options": options,
        "heatmap": _heatmap(table, spec, option_names),
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
    rows = (engine.SensitivityRow(**{name: row[name] for name in SENSITIVITY_ROW_FIELDS})
            for row in summary["rows"])
    return engine.Tornado(rent_option=summary["rent_option"], base_saving_usd=summary["base_saving_usd"],
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


def _heatmap(table: _ColumnReader, spec: SweepSpec, option_names: Sequence[str]) -> dict[str, Any]:
    positions = [next(i for i, axis in enumerate(spec.axes) if axis.path == p) for p in spec.heatmap_axes]
    coordinates = np.unravel_index(table.column(POINT_COLUMN), spec.shape)
    cells, labels = [], []
    for position in positions:
        values = spec.axes[position].values
        groups = min(len(values), HEATMAP_MAX_CELLS)
        group_of_value = np.arange(len(values)) * groups // len(values)
        cells.append(group_of_value[coordinates[position]])
        labels.append([float(values[group_of_value == g].mean()) for g in range(groups)])
    x_cells = cells[0]
    y_cells = cells[1] if len(cells) > 1 else np.zeros_like(x_cells)
    width, height = len(labels[0]), len(labels[1]) if len(labels) > 1 else 1
    flat_cell = y_cells * width + x_cells
    maps = {}
    for name in option_names:
        # "Never" ranks after every month, so a cell is "never" when most of its points are;
        # the lower median keeps each cell a month that one of its points actually has.
        breakeven = np.nan_to_num(table.column(option_column(name, "breakeven_month")), nan=np.inf)
        medians = (pd.Series(breakeven).groupby(flat_cell).quantile(0.5, interpolation="lower")
                   .reindex(range(width * height)))
        maps[name] = [[finite_or_none(v) for v in row] for row in medians.to_numpy().reshape(height, width)]
    return {
        "x_path": spec.heatmap_axes[0],
        "y_path": spec.heatmap_axes[1] if len(spec.heatmap_axes) > 1 else None,
        "x_values": labels[0],
        "y_values": labels[1] if len(labels) > 1 else [],
        "breakeven_month": maps,
    }


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
