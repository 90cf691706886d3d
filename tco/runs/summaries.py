"""What a finished run stores in the database: the figures a person reads first.

A sweep's summary adds up its chunks' tallies (``SweepTally``, made by each chunk's worker as it
computes the rows), so its finisher reads no result. A Monte Carlo summary reads the
result one column at a time (8 MB per column at 10^6 points), never the whole table:
``column(name)`` gives that column over every part, in point order. Every
figure is a plain number or None (NaN, infinity and "never breaks even" are None), so the
summary fits PostgreSQL's jsonb.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Sequence
from dataclasses import fields
from fractions import Fraction
from typing import Any

import numba
import numpy as np
import pandas as pd
import pyarrow as pa
from numpy.typing import NDArray

import costmodel as engine
from costmodel.figures import finite_or_none
from costmodel.verdict import BUY
from costmodel.verdict import RENT
from costmodel.verdict import Standing
from tco.runs.compute import BUY_WINS
from tco.runs.compute import MARGIN_COLUMN
from tco.runs.compute import POINT_COLUMN
from tco.runs.compute import WINNER_COLUMN
from tco.runs.compute import PointsTable
from tco.runs.compute import npv_column
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


def sweep_summary(
    tallies: Iterable[dict[str, Any]], spec: SweepSpec, option_names: Sequence[str],
    ranked: Sequence[tuple[str, str]] | None = None,
) -> dict[str, Any]:
    """Ranges of the saving and breakeven per rent option, winner shares and a heat map; the
    share of points where each option (``ranked``: see ``SweepTally``) is the cheapest, the
    range of its NPV and of the winner's margin.

    ``tallies`` are ``sweep_tally``'s counts of the run's pieces (its chunks, as each worker
    made them), added up here: the summary never reads the result itself, and it is the same
    whatever the chunking (counts, minima and maxima, and exact sums for the means).
    """
    heatmap = _HeatmapCounts(spec, option_names)
    options = {name: _Ranges() for name in option_names}
    ranked = _ranked(option_names, ranked)
    npvs = {name: _FiniteRange() for _, name in ranked}
    margin = _FiniteRange()
    winners: dict[str, int] = {}
    for tally in tallies:
        for name, count in tally["winners"].items():
            winners[name] = winners.get(name, 0) + count
        for name, ranges in options.items():
            ranges.merge(tally["options"][name])
            heatmap.merge(name, tally["heatmap"][name])
        # A chunk tallied before options were ranked has no NPVs: its ranges are left out.
        for name, values in tally.get("npv", {}).items():
            npvs[name].merge(values)
        margin.merge(tally.get("margin", {"count": 0}))
    total = sum(winners.values())
    stats = ("min", "mean", "max")
    return {
        "points": spec.points_total,
        "axes": [
            {"path": axis.path, "count": len(axis.values), "min": float(axis.values.min()),
             "max": float(axis.values.max())}
            for axis in spec.axes
        ],
        "winner_shares": {name: count / total for name, count in winners.items()},
        "ranking": [_ranking_row(kind, name, winners.get(name, 0) / total, npvs[name].figures(stats))
                    for kind, name in ranked],
        "margin_usd": margin.figures(stats),
        "options": {name: ranges.figures() for name, ranges in options.items()},
        "heatmap": heatmap.figures(),
    }


def _ranked(option_names: Sequence[str], ranked: Sequence[tuple[str, str]] | None) -> list[tuple[str, str]]:
    """The options a run ranks, (kind, name) in the winner's order; buying and the rent options
    when not given."""
    return list(ranked) if ranked is not None else [(BUY, BUY_WINS), *((RENT, name) for name in option_names)]


def _ranking_row(kind: str, name: str, share: float, npv: dict[str, float | None]) -> dict[str, Any]:
    """One option's line of a run's ranking: its kind, name and label in words (the verdict's),
    the share of points where it is the cheapest and its NPV's figures."""
    return {"kind": kind, "name": name, "label": Standing(kind, name, math.nan, math.nan).label,
            "cheapest_share": share, "npv_usd": npv}


def sweep_tally(table: PointsTable, spec: SweepSpec, option_names: Sequence[str],
                ranked: Sequence[tuple[str, str]] | None = None) -> dict[str, Any]:
    """``SweepTally`` of a whole table at once (a part stored before chunks kept tallies)."""
    tally = SweepTally(spec, option_names, ranked)
    tally.add(table, 0, len(table))
    return tally.to_json()


class SweepTally:
    """What ``sweep_summary`` needs of a sweep chunk's rows, gathered as the rows are computed
    (``add``, a batch at a time), so that the finisher reads no result.

    ``ranked``: (kind, name) of every option the run ranks (``compute.ranked_options``); buying
    and the rent options when not given.

    As JSON (``to_json``): the winners counted per category (buy first, then the rent options,
    then the per-token APIs; zero counts kept), per rent option the ``_Ranges`` counts, per
    ranked option the ``_FiniteRange`` of its NPV, that of the winner's margin, and the heat
    map's nonzero (cell x month slot) counts. Counts, minima, maxima and exact sums: the same
    whatever the batches.
    """

    def __init__(self, spec: SweepSpec, option_names: Sequence[str],
                 ranked: Sequence[tuple[str, str]] | None = None) -> None:
        self.heatmap = _HeatmapCounts(spec, option_names)
        self.option_names = list(option_names)
        # As ``points_table`` codes the winner.
        self.categories = [name for _, name in _ranked(self.option_names, ranked)]
        self.npvs = {name: _FiniteRange() for name in self.categories}
        self.margin = _FiniteRange()
        self.winners = np.zeros(len(self.categories), dtype=np.int64)
        self.ranges = {name: _Ranges() for name in self.option_names}
        # For each of the table's points, its index among the heat-map cells the table's points
        # fall in; those cells, ascending; per option, the points counted in each of their
        # (cell, month) slots.
        self.cells: NDArray[np.int64] | None = None
        self.cell_ids = np.zeros(0, dtype=np.int64)
        self.slots = {name: np.zeros(0, dtype=np.int64) for name in self.option_names}

    def add(self, table: PointsTable, start: int, stop: int) -> None:
        """Count rows ``start`` to ``stop - 1`` of ``table``, whose points are all given."""
        if self.cells is None:
            self.cells, self.cell_ids = self.heatmap.chunk_cells(table.column(POINT_COLUMN))
            size = len(self.cell_ids) * (self.heatmap.NEVER + 1)
            self.slots = {name: np.zeros(size, dtype=np.int64) for name in self.option_names}
        rows = slice(start, stop)
        self.winners += np.bincount(table.winner[rows], minlength=len(self.categories))
        for name, values in self.npvs.items():
            values.add_values(table.column(npv_column(name))[rows])
        self.margin.add_values(table.column(MARGIN_COLUMN)[rows])
        for name in self.option_names:
            breakeven = table.column(option_column(name, "breakeven_month"))[rows]
            self.ranges[name].add(table.column(option_column(name, "npv_saving_usd"))[rows], breakeven)
            self.heatmap.count(self.cells[rows], breakeven, self.slots[name])

    def to_json(self) -> dict[str, Any]:
        maps = {}
        for name in self.option_names:
            slots, counts = _nonzero_counts(self.slots[name], self.cell_ids, self.heatmap.NEVER + 1)
            maps[name] = [slots.tolist(), counts.tolist()]
        counted = zip(self.categories, self.winners.tolist(), strict=True)
        return {"winners": {str(name): count for name, count in counted},
                "npv": {name: values.to_json() for name, values in self.npvs.items()},
                "margin": self.margin.to_json(),
                "options": {name: ranges.to_json() for name, ranges in self.ranges.items()},
                "heatmap": maps}


class _Ranges:
    """A rent option's saving and breakeven figures, gathered piece by piece."""

    def __init__(self) -> None:
        self.points = self.buy_wins = self.never = 0
        self.saving = _FiniteRange()
        self.breakeven = _FiniteRange(with_mean=False)

    def add(self, saving: NDArray[np.float64], breakeven: NDArray[np.float64]) -> None:
        for start in range(0, len(saving), EXACT_SUM_MAX_VALUES):
            stop = start + EXACT_SUM_MAX_VALUES
            (buy_wins, never, saving_count, saving_low, saving_high, high, low,
             breakeven_count, breakeven_low, breakeven_high) = _option_pass(
                np.ascontiguousarray(saving[start:stop], dtype=np.float64),
                np.ascontiguousarray(breakeven[start:stop], dtype=np.float64))
            self.points += len(saving[start:stop])
            self.buy_wins += int(buy_wins)
            self.never += int(never)
            self.saving.add(int(saving_count), float(saving_low), float(saving_high), _joined_sum(high, low))
            self.breakeven.add(int(breakeven_count), float(breakeven_low), float(breakeven_high))

    def to_json(self) -> dict[str, Any]:
        return {"points": self.points, "buy_wins": self.buy_wins, "never": self.never,
                "saving": self.saving.to_json(), "breakeven": self.breakeven.to_json()}

    def merge(self, tally: dict[str, Any]) -> None:
        self.points += tally["points"]
        self.buy_wins += tally["buy_wins"]
        self.never += tally["never"]
        self.saving.merge(tally["saving"])
        self.breakeven.merge(tally["breakeven"])

    def figures(self) -> dict[str, Any]:
        return {
            "buy_wins_share": self.buy_wins / self.points,
            "npv_saving_usd": self.saving.figures(("min", "max", "mean")),
            "breakeven_month": {**self.breakeven.figures(("min", "max")),
                                "never_share": self.never / self.points},
        }


class _FiniteRange:
    """Min, max and (``with_mean``) mean of the finite values seen; the sum is kept exact (a
    fraction, from ``_option_pass``'s mantissa sums), so the mean does not depend on how the
    values were cut into pieces."""

    def __init__(self, *, with_mean: bool = True) -> None:
        self.low, self.high, self.total, self.count = math.inf, -math.inf, Fraction(0), 0
        self.with_mean = with_mean

    def add(self, count: int, low: float, high: float, total: Fraction = Fraction(0)) -> None:
        """Count ``count`` finite values from ``low`` to ``high`` that add up to ``total``."""
        if count:
            self.low, self.high = min(self.low, low), max(self.high, high)
            self.total += total if self.with_mean else 0
            self.count += count

    def add_values(self, values: NDArray[np.float64]) -> None:
        """Count the finite ``values`` (exact sums: ``_finite_pass``)."""
        for start in range(0, len(values), EXACT_SUM_MAX_VALUES):
            count, low, high, high_bits, low_bits = _finite_pass(
                np.ascontiguousarray(values[start:start + EXACT_SUM_MAX_VALUES], dtype=np.float64))
            self.add(int(count), float(low), float(high), _joined_sum(high_bits, low_bits))

    def to_json(self) -> dict[str, Any]:
        if not self.count:
            return {"count": 0}
        return {"count": self.count, "min": self.low, "max": self.high, "sum": str(self.total)}

    def merge(self, tally: dict[str, Any]) -> None:
        if tally["count"]:
            self.low, self.high = min(self.low, tally["min"]), max(self.high, tally["max"])
            self.total += Fraction(tally["sum"])
            self.count += tally["count"]

    def figures(self, names: Sequence[str]) -> dict[str, float | None]:
        if not self.count:
            return dict.fromkeys(names)
        figures = {"min": self.low, "max": self.high}
        if self.with_mean:
            figures["mean"] = float(self.total / self.count)
        return {name: finite_or_none(figures[name]) for name in names}


# Float64 mantissas (|m| < 2^53, the implicit bit included) split into a 27-bit high and a 26-bit
# low half, summed per binary exponent field in int64: exact for up to 2^36 values.
_LOW_BITS = 26
_LOW_MASK = (1 << _LOW_BITS) - 1
EXACT_SUM_MAX_VALUES = 1 << 36
# An IEEE 754 double: 52 fraction bits, an 11-bit exponent field (all ones: not finite), whose
# value e stands for 2^(e - 1075) times the integer mantissa (2^(1 - 1075) for subnormals, e = 0).
_FRACTION_BITS = 52
_EXPONENT_FIELDS = 1 << 11
_EXPONENT_BIAS = 1075


def _joined_sum(high: NDArray[np.int64], low: NDArray[np.int64]) -> Fraction:
    """The exact value of per-exponent mantissa sums (``_option_pass``): each finite value is
    m x 2^(max(e, 1) - 1075) with an integer mantissa m and its exponent field e, whose halves
    were summed per exponent field in int64; the per-exponent sums are joined here in Python
    integers (no rounding)."""
    present = np.flatnonzero(high | low)
    if not present.size:
        return Fraction(0)
    scales = np.maximum(present, 1).tolist()
    lowest = scales[0]
    total = sum(((int(high[e]) << _LOW_BITS) + int(low[e])) << (scale - lowest)
                for e, scale in zip(present.tolist(), scales, strict=True))
    return Fraction(total) * Fraction(2) ** (lowest - _EXPONENT_BIAS)


@numba.njit(cache=True, nogil=True)
def _finite_pass(values):
    """Count, min, max and mantissa sums (``_joined_sum``) of the finite values, in one pass.

    The mantissa and exponent are read from the value's bits: with frexp and a float product the
    passes over a 125,000-point chunk's three options took 3.2 instead of 2.0 ms."""
    high = np.zeros(_EXPONENT_FIELDS - 1, dtype=np.int64)
    low = np.zeros_like(high)
    bits = values.view(np.int64)
    count = 0
    lowest, highest = math.inf, -math.inf
    for point in range(values.shape[0]):
        exponent = (bits[point] >> _FRACTION_BITS) & (_EXPONENT_FIELDS - 1)
        if exponent != _EXPONENT_FIELDS - 1:  # finite
            value = values[point]
            count += 1
            lowest = min(lowest, value)
            highest = max(highest, value)
            mantissa = bits[point] & ((1 << _FRACTION_BITS) - 1)
            if exponent:
                mantissa |= 1 << _FRACTION_BITS
            if bits[point] < 0:
                mantissa = -mantissa
            high[exponent] += mantissa >> _LOW_BITS
            low[exponent] += mantissa & _LOW_MASK
    return count, lowest, highest, high, low


@numba.njit(cache=True, nogil=True)
def _option_pass(saving, breakeven):
    """A rent option's counts: buying wins (saving > 0), never breaks even (NaN); count, min,
    max and mantissa sums of the finite savings (``_finite_pass``); count, min and max of the
    finite breakeven months."""
    saving_count, saving_low, saving_high, high, low = _finite_pass(saving)
    buy_wins = never = breakeven_count = 0
    breakeven_low = math.inf
    breakeven_high = -math.inf
    for point in range(saving.shape[0]):
        if saving[point] > 0.0:
            buy_wins += 1
        month = breakeven[point]
        if math.isnan(month):
            never += 1
        elif math.isfinite(month):
            breakeven_count += 1
            breakeven_low = min(breakeven_low, month)
            breakeven_high = max(breakeven_high, month)
    return (buy_wins, never, saving_count, saving_low, saving_high, high, low,
            breakeven_count, breakeven_low, breakeven_high)


@numba.njit(cache=True, nogil=True)
def _cells(points, x_stride, x_groups, y_stride, y_groups, width):
    """The heat-map cell of each grid point, from its flat index (``_HeatmapCounts.cells``).

    A chunk's points are consecutive: each axis's value index is carried from the point before,
    and computed from the point only after a jump (125,000 points in 0.6 instead of 0.9 ms)."""
    cells = np.empty(points.shape[0], dtype=np.int64)
    x_count, y_count = x_groups.shape[0], y_groups.shape[0]
    previous = -2
    x = x_left = y = y_left = 0  # value indexes, and points left before each moves on
    for row in range(points.shape[0]):
        point = points[row]
        if point != previous + 1:
            x, x_left = point // x_stride % x_count, x_stride - point % x_stride
            y, y_left = point // y_stride % y_count, y_stride - point % y_stride
        cells[row] = y_groups[y] * width + x_groups[x]
        x_left -= 1
        if not x_left:
            x, x_left = (x + 1) % x_count, x_stride
        y_left -= 1
        if not y_left:
            y, y_left = (y + 1) % y_count, y_stride
        previous = point
    return cells


@numba.njit(cache=True, nogil=True)
def _chunk_cells(cells):
    """Each point's index among the distinct ``cells`` (ascending), and those cells."""
    low = cells.min()
    seen = np.zeros(cells.max() - low + 1, dtype=np.bool_)
    for cell in cells:
        seen[cell - low] = True
    index = np.empty(seen.shape[0], dtype=np.int64)
    ids = np.empty(seen.sum(), dtype=np.int64)
    present = 0
    for offset in range(seen.shape[0]):
        index[offset] = present
        if seen[offset]:
            ids[present] = low + offset
            present += 1
    local = np.empty(cells.shape[0], dtype=np.int64)
    for point in range(cells.shape[0]):
        local[point] = index[cells[point] - low]
    return local, ids


@numba.njit(cache=True, nogil=True)
def _nonzero_counts(counts, cell_ids, per_cell):
    """The heat map's (cell, month) slots with a nonzero count, ascending, and their counts, from
    the counts of the ``per_cell`` slots of each of ``cell_ids``: two passes over the counts,
    most of them zero, where NumPy's ``flatnonzero`` took ~1 ms an option."""
    present = 0
    for count in counts:
        present += count != 0
    slots = np.empty(present, dtype=np.int64)
    nonzero = np.empty(present, dtype=np.int64)
    found = 0
    for slot in range(counts.shape[0]):
        if counts[slot]:
            slots[found] = cell_ids[slot // per_cell] * per_cell + slot % per_cell
            nonzero[found] = counts[slot]
            found += 1
    return slots, nonzero


@numba.njit(cache=True, nogil=True)
def _count_slots(cells, breakeven, never, counts):
    """Add each point to ``counts`` of its (cell, breakeven month) slot; NaN and infinity are
    ``never``."""
    for point in range(cells.shape[0]):
        month = breakeven[point]
        slot = never if math.isnan(month) or month >= never else int(month)
        counts[cells[point] * (never + 1) + slot] += 1


@numba.njit(cache=True, nogil=True)
def _lower_medians(counts):
    """Per row of (month slot) counts, the slot of the lower median, the ((n - 1) // 2)-th
    smallest month ("never", the last slot, ranking last); -1 for a row with no point."""
    medians = np.full(counts.shape[0], -1, dtype=np.int64)
    for row in range(counts.shape[0]):
        points = counts[row].sum()
        if not points:
            continue
        rank, running = (points - 1) // 2, 0
        for slot in range(counts.shape[1]):
            running += counts[row, slot]
            if running > rank:
                medians[row] = slot
                break
    return medians


class _HeatmapCounts:
    """Points per heat-map cell and breakeven month (never last), for each rent option."""

    # Month slots 0..MAX_HORIZON_MONTHS, then "never".
    NEVER = engine.MAX_HORIZON_MONTHS + 1

    def __init__(self, spec: SweepSpec, option_names: Sequence[str]) -> None:
        self.spec = spec
        self.option_names = list(option_names)
        self.positions = [next(i for i, axis in enumerate(spec.axes) if axis.path == p)
                          for p in spec.heatmap_axes]
        # The cell of each axis value: neighbouring values grouped into at most HEATMAP_MAX_CELLS.
        self.groups = []
        for position in self.positions:
            count = len(spec.axes[position].values)
            self.groups.append(np.arange(count) * min(count, HEATMAP_MAX_CELLS) // count)
        self.width = int(self.groups[0][-1]) + 1
        self.height = int(self.groups[1][-1]) + 1 if len(self.groups) > 1 else 1
        # Allocated when the first tally is added: a chunk's tally needs no table of every slot.
        self.counts: dict[str, NDArray[np.int64]] = {}

    def cells(self, points: NDArray[np.int64]) -> NDArray[np.int64]:
        # The grid is in C order: an axis's value index is (point // stride) % count.
        strides = [math.prod(self.spec.shape[position + 1:]) for position in self.positions]
        x_axis = (strides[0], self.groups[0])
        y_axis = (strides[1], self.groups[1]) if len(self.positions) > 1 else (1, np.zeros(1, dtype=np.int64))
        return _cells(np.ascontiguousarray(points, dtype=np.int64), *x_axis, *y_axis, self.width)

    def chunk_cells(self, points: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Each point's index among the cells these points fall in, and those cells, ascending:
        a chunk counts only its own cells' slots. A chunk of 125,000 points of a 1,000 x 1,000
        grid falls in 350 of the heat map's 2,500 cells, in a range of 2,457: counting over that
        range (14 MB of zeros with three options) and writing the counts took 7.4 ms a chunk,
        against 4.8 ms."""
        cells = self.cells(points)
        if not cells.size:
            return cells, cells
        return _chunk_cells(cells)

    def count(self, cells: NDArray[np.int64], breakeven: NDArray[np.float64],
              counts: NDArray[np.int64]) -> None:
        """Add these points (their ``chunk_cells`` indexes) to ``counts`` of (cell, month) slots."""
        _count_slots(cells, np.ascontiguousarray(breakeven, dtype=np.float64), self.NEVER, counts)

    def merge(self, name: str, tally: list[list[int]]) -> None:
        slots, counts = (np.asarray(column, dtype=np.int64) for column in tally)
        self._counts(name)[slots] += counts  # a tally's slots are distinct

    def _counts(self, name: str) -> NDArray[np.int64]:
        if name not in self.counts:
            self.counts[name] = np.zeros(self.width * self.height * (self.NEVER + 1), dtype=np.int64)
        return self.counts[name]

    def figures(self) -> dict[str, Any]:
        maps = {}
        for name in self.option_names:
            months = _lower_medians(self._counts(name).reshape(self.width * self.height, self.NEVER + 1))
            # None: a cell with no point, or whose median is "never".
            medians = [None if month in (-1, self.NEVER) else float(month) for month in months.tolist()]
            maps[name] = [medians[row * self.width:(row + 1) * self.width] for row in range(self.height)]
        # Each cell is labelled with the mean of the axis values it groups.
        labels = [[float(self.spec.axes[position].values[group_of_value == cell].mean())
                   for cell in range(int(group_of_value[-1]) + 1)]
                  for position, group_of_value in zip(self.positions, self.groups, strict=True)]
        return {
            "x_path": self.spec.heatmap_axes[0],
            "y_path": self.spec.heatmap_axes[1] if len(self.spec.heatmap_axes) > 1 else None,
            "x_values": labels[0],
            "y_values": labels[1] if len(labels) > 1 else [],
            "breakeven_month": maps,
        }



def monte_carlo_summary(
    column: ColumnSource, spec: MonteCarloSpec, option_names: Sequence[str], seed: int,
    ranked: Sequence[tuple[str, str]] | None = None,
) -> dict[str, Any]:
    """P10/P50/P90 of the saving and breakeven, P(buying wins) and a histogram per rent option;
    the probability that each option (``ranked``: see ``SweepTally``) is the cheapest, the
    spread of its NPV and of the winner's margin, with a histogram of the margin."""
    table = _ColumnReader(column)
    ranked = _ranked(option_names, ranked)
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
    stats = (*SPREAD, "min", "max")
    margin = table.column(MARGIN_COLUMN)
    finite_margin = margin[np.isfinite(margin)]
    counts, edges = np.histogram(finite_margin, bins=spec.histogram_bins)
    return {
        "samples": spec.samples,
        "seed": seed,
        "buy_wins_probability": shares.get(BUY_WINS, 0.0),
        "winner_shares": shares,
        "ranking": [_ranking_row(kind, name, shares.get(name, 0.0),
                                 _stats(table.column(npv_column(name)), stats)) for kind, name in ranked],
        "margin_usd": {**_stats(margin, stats),
                       "histogram": {"bin_edges_usd": edges.tolist(), "counts": counts.tolist()}},
        "inputs": {path: _stats(table.column(path), SPREAD) for path in spec.distributions},
        "options": options,
    }


def sensitivity_summary(frame: pd.DataFrame, step_share: float) -> dict[str, Any]:
    """The tornado's rows, widest swing first, with the base saving they move from."""
    rows = [{key: finite_or_none(value) if isinstance(value, float) else value for key, value in row.items()}
            for row in frame.to_dict(orient="records")]
    return {
        "winner": rows[0]["winner"] if rows else None,
        "rent_option": rows[0]["rent_option"] if rows else None,
        "against_kind": rows[0]["against_kind"] if rows else None,
        "base_saving_usd": rows[0]["base_saving_usd"] if rows else None,
        "step_share": step_share,
        "rows": rows,
    }


def _row_fields(row: dict[str, Any]) -> dict[str, Any]:
    return {name: math.nan if row[name] is None else row[name]
            for name in SENSITIVITY_ROW_FIELDS if name in row}


def stored_tornado(summary: dict[str, Any]) -> engine.Tornado:
    """The engine's tornado back from a sensitivity summary (``sensitivity_summary``'s inverse)."""
    # A run's rows keep the figures, not the whole-count steps; older runs lack the continuous swing.
    # None in JSON is NaN (a continuous swing no step called for).
    rows = (engine.SensitivityRow(**_row_fields(row)) for row in summary["rows"])
    # Runs summarised before the margin was measured keep buying's saving against a rent option.
    return engine.Tornado(against=summary["rent_option"], base_saving_usd=summary["base_saving_usd"],
                          step_share=summary["step_share"], rows=tuple(rows),
                          against_kind=summary.get("against_kind") or RENT,
                          winner=summary.get("winner") or "")


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
