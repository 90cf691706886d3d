"""One-at-a-time sensitivity of the winner's margin, ranked for a tornado chart.

Every input is moved down and up by the same share of its value, each in its
own row of ONE batch, so P inputs cost one evaluation of 2P scenarios.

What moves is the margin of the verdict's winner (buying, a rent option or a per-token API)
over the next cheapest option, whatever its kind, at each moved value: negative where another
option overtakes it. Against a named rent option (``rent_option``) it is buying's NPV saving
against that option. Some inputs move the saving through a whole count (the systems bought, racks,
instances rented, the cooling tier): one more instance needed above 1.0 rented accelerators per
own one jumps the saving, whatever the input's own uncertainty. Such a row keeps its raw swing
for the chart, says where each count changes (``SensitivityRow.steps``), and is ranked by its
continuous effect: the saving's slope while the counts stay as they are, over the row's range.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from costmodel.compose import compute_result
from costmodel.compose import npv_saving_usd
from costmodel.footprint import fleet_footprint
from costmodel.inputs import Scenario
from costmodel.inputs import batch_shape
from costmodel.inputs import input_sections
from costmodel.inputs import numeric_fields
from costmodel.overrides import get_input
from costmodel.overrides import input_metadata
from costmodel.overrides import with_overrides
from costmodel.rent import accelerators_rented
from costmodel.rent import instances_needed
from costmodel.result import Result
from costmodel.verdict import API
from costmodel.verdict import BUY
from costmodel.verdict import RENT
from costmodel.verdict import option_npvs
from costmodel.verdict import verdict_of

# Halvings of the interval between an input's value and its move that locate a count's step,
# taken _LEVELS at a time: one batch holds every midpoint the next _LEVELS halvings can reach.
_BISECTIONS = 40
_LEVELS = 8

# Limits, definitions and figures that cannot move the saving are left out by default.
# The token mix's shares sum to 1: one cannot move alone.
_NOT_ASSUMPTIONS = (
    "max_kw_per_rack",
    "tokens_per_s_per_accelerator",
    "hours_per_month",
    "input_share",
    "output_share",
)


@dataclass(frozen=True)
class Step:
    """A whole count that changes inside a row's range: above (or below) ``threshold`` of the
    input, ``count`` goes from ``before`` to ``after``."""

    count: str
    threshold: float
    before: float
    after: float

    def words(self, label: str) -> str:
        """'the instances of X go from 1 to 2 above 1.000 (the equivalence factor)'."""
        way = "above" if self.after > self.before else "below"
        return (f"{self.count} go from {self.before:,.0f} to {self.after:,.0f} {way} "
                f"{self.threshold:,.4g} ({label})")


@dataclass(frozen=True)
class SensitivityRow:
    """How the NPV saving moves when one input moves down and up by the step.

    ``continuous_swing_usd`` is the swing the input's own effect gives, whole counts held (equal
    to ``swing_usd`` when no count changes in the row's range); rows are ranked by it.
    """

    path: str
    base_value: float
    low_value: float
    high_value: float
    saving_at_low_usd: float
    saving_at_high_usd: float
    continuous_swing_usd: float = math.nan
    steps: tuple[Step, ...] = ()

    @property
    def swing_usd(self) -> float:
        """Width of the tornado bar [USD]."""
        return abs(self.saving_at_high_usd - self.saving_at_low_usd)

    @property
    def effect_usd(self) -> float:
        """What the row is ranked by: the continuous swing (the raw one without a step)."""
        return self.swing_usd if math.isnan(self.continuous_swing_usd) else self.continuous_swing_usd


@dataclass(frozen=True)
class Tornado:
    """One-at-a-time sensitivity; rows largest continuous effect first.

    ``winner`` labels the verdict's winner (``Standing.label``) whose margin over the next
    cheapest option moves; ``against`` names that next cheapest at the scenario's own inputs
    and ``against_kind`` says its kind. Without a winner (a named rent option), the figure is
    buying's NPV saving against ``against``. The rows' ``saving_*`` fields hold the figure.
    """

    against: str
    base_saving_usd: float  # the figure at the scenario's own inputs (the winner's margin)
    step_share: float  # each input moves down and up by this share of its value
    rows: tuple[SensitivityRow, ...]
    against_kind: str = RENT
    winner: str = ""

    @property
    def measure(self) -> str:
        """What the rows move, in words: "the margin of Buy over the next cheapest (NPV)"."""
        if self.winner:
            return f"the margin of {self.winner} over the next cheapest (NPV)"
        return f"buying's NPV saving against {self.against}"


def sensitivity_paths(inputs: Scenario) -> list[str]:
    """Inputs worth moving by a share of their value: the continuous cost assumptions.

    Left out: zero or non-finite values (a share of them is no move), cooling
    tier limits and throughput (they do not move the saving), hours per month
    (a definition, 8,760 / 12), whole counts
    (accelerators per system or instance, terms, horizon), where 10 % of 8
    accelerators per instance is a different SKU, not an uncertain assumption,
    and the exchange-rate move when no input was given in another currency.
    """
    return [
        f"{prefix}.{name}"
        for prefix, section in input_sections(inputs)
        for name, value, metadata in numeric_fields(section)
        if not name.endswith(_NOT_ASSUMPTIONS)
        and not metadata["whole"]
        and math.isfinite(value)
        and value != 0.0
        and (prefix != "exchange" or inputs.exchange.converted)
    ]


def one_at_a_time(
    inputs: Scenario,
    *,
    paths: Sequence[str] | None = None,
    step_share: float = 0.1,
    rent_option: str | None = None,
    base: Result | None = None,
) -> Tornado | None:
    """Move each input by -step and +step of its value and rank the effect on the winner's margin.

    Parameters
    ----------
    inputs : Scenario
        A single scenario (scalar inputs).
    paths : sequence of str, optional
        Inputs to move; default ``sensitivity_paths(inputs)``.
    step_share : float
        Relative step, 0.1 = +/-10 % [-]. Moved values are clipped to each
        input's valid range (a utilisation of 0.95 moves up to 1, not 1.045).
    rent_option : str, optional
        A rent option to measure buying's NPV saving against; default the margin of the
        verdict's winner over the next cheapest option (of any kind) at each moved value.
    base : Result, optional
        An already computed result of ``inputs``, to save one evaluation.

    Returns
    -------
    Tornado or None
        Rows sorted by continuous effect, largest first; None when there is nothing to
        measure against (a single option ranked).
    """
    if batch_shape(inputs) != ():
        raise ValueError("sensitivity needs a single scenario (scalar inputs)")
    base = base if base is not None else compute_result(inputs, detail=False)
    paths = list(paths) if paths is not None else sensitivity_paths(inputs)
    if rent_option is not None:
        index = [option.name for option in inputs.rent].index(rent_option)
        base_saving = float(np.reshape(base.rent[index].npv_usd, -1)[0] - np.reshape(base.buy.npv_usd, -1)[0])
        rows = _rows(inputs, paths, step_share, lambda batch: _saving(batch, index),
                     lambda batch: _whole_counts(batch, (index,))) if paths else ()
        return Tornado(against=rent_option, base_saving_usd=base_saving, step_share=step_share, rows=rows)
    verdict = verdict_of(base, inputs)
    if verdict.runner_up is None:
        return None
    # The winner's row among option_npvs' rows (buying, the rent options, the APIs).
    order = [(BUY, "Buy"), *((RENT, o.name) for o in inputs.rent), *((API, o.name) for o in inputs.api)]
    winner = order.index((verdict.cheapest.kind, verdict.cheapest.name))
    # The margin steps with the counts of the pair it is between, where they are rent options.
    names = [option.name for option in inputs.rent]
    pair = tuple(names.index(o.name) for o in (verdict.cheapest, verdict.runner_up) if o.kind == RENT)
    rows = _rows(inputs, paths, step_share, lambda batch: _margin(batch, winner),
                 lambda batch: _whole_counts(batch, pair)) if paths else ()
    margin = verdict.margin_over_winner(verdict.runner_up)  # margin_usd, the runner-up being there
    return Tornado(against=verdict.runner_up.name, base_saving_usd=margin,
                   step_share=step_share, rows=rows, against_kind=verdict.runner_up.kind,
                   winner=verdict.cheapest.label)


def _rows(inputs: Scenario, paths: list[str], step_share: float, saving: Any, counts: Any
          ) -> tuple[SensitivityRow, ...]:
    declared = {
        f"{prefix}.{name}": (value, metadata)
        for prefix, section in input_sections(inputs)
        for name, value, metadata in numeric_fields(section)
    }
    # Paths naming a rent option by name (rent.aws-3y.price_usd_per_instance_hour) take the long way.
    located = {
        path: declared.get(path) or (get_input(inputs, path), input_metadata(inputs, path))
        for path in paths
    }
    values = {path: float(value) for path, (value, _) in located.items()}
    moved = {
        path: _moved_values(inputs, path, values[path], metadata, step_share)
        for path, (_, metadata) in located.items()
    }
    pairs = [(path, value) for path in paths for value in moved[path]]
    steps, plateaus = _steps(inputs, values, pairs, counts)
    stepped = list(dict.fromkeys(path for path, _ in plateaus))
    edges = {path: (plateaus.get((path, 0), moved[path][0]), plateaus.get((path, 1), moved[path][1]))
             for path in stepped}
    # One batch: every move, then each stepped input's plateau edges. The moves are clipped into
    # each input's range: only the checks between inputs remain.
    plateau_edges = [(path, edge) for path in stepped for edge in edges[path]]
    savings = saving(_batch(inputs, values, *zip(*(pairs + plateau_edges), strict=True)))
    continuous = _continuous_swings(moved, edges, savings[len(pairs):])
    rows = (
        SensitivityRow(
            path=path,
            base_value=values[path],
            low_value=moved[path][0],
            high_value=moved[path][1],
            saving_at_low_usd=savings[2 * position],
            saving_at_high_usd=savings[2 * position + 1],
            continuous_swing_usd=continuous.get(path, math.nan),
            steps=steps.get(path, ()),
        )
        for position, path in enumerate(paths)
    )
    return tuple(sorted(rows, key=lambda row: row.effect_usd, reverse=True))


def _batch(inputs: Scenario, values: Mapping[str, float], paths: Sequence[str], moved: ArrayLike
           ) -> Scenario:
    """One scenario per moved value, each with only its path's input moved: ``moved`` holds a
    value per path, or a row of values per path (the scenarios then go row by row)."""
    moved = np.asarray(moved, dtype=np.float64).reshape(len(paths), -1)
    return with_overrides(inputs, {
        path: np.where(np.array([other == path for other in paths])[:, None], moved, values[path]).ravel()
        for path in dict.fromkeys(paths)
    })


def _saving(batch: Scenario, index: int) -> list[float]:
    """Buying's NPV saving against one rent option, per scenario of a batch [USD]."""
    saving = npv_saving_usd(batch, index, ranges_checked=True)
    savings: list[float] = np.broadcast_to(saving, batch_shape(batch)).tolist()
    return savings


def _margin(batch: Scenario, winner: int) -> list[float]:
    """How much less the option in row ``winner`` of ``option_npvs`` costs than the cheapest
    other option the verdict ranks, per scenario of a batch [USD] (negative: overtaken)."""
    npvs = option_npvs(compute_result(batch, detail=False, ranges_checked=True))
    others = np.delete(np.where(np.isfinite(npvs), npvs, np.inf), winner, axis=0)
    margin = others.min(axis=0) - npvs[winner]
    margins: list[float] = np.broadcast_to(margin, batch_shape(batch)).tolist()
    return margins


def _whole_counts(batch: Scenario, rent: tuple[int, ...]) -> dict[str, np.ndarray]:
    """The whole counts the figure steps with, per scenario of a batch: the fleet's, and the
    instances of the rent options at ``rent``."""
    footprint = fleet_footprint(batch.workload, batch.buy, batch.facility, batch.cooling)
    shape = batch_shape(batch)
    counts = {"the systems bought": footprint.systems, "the racks": footprint.racks,
              "the cooling tier's position": footprint.cooling_tier_index}
    for index in rent:
        option = batch.rent[index]
        counts[f"the instances of {option.name}"] = instances_needed(
            accelerators_rented(option, batch.workload), option.accelerators_per_instance)
    return {name: np.broadcast_to(np.asarray(count, dtype=np.float64), shape)
            for name, count in counts.items()}


def _steps(inputs: Scenario, values: Mapping[str, float], pairs: list[tuple[str, float]], counts: Any
           ) -> tuple[dict[str, tuple[Step, ...]], dict[tuple[str, int], float]]:
    """Where a whole count changes between each input's value and its moves (by bisection), and
    each crossing side's last value with the base's counts (its plateau's edge)."""
    at_base = {name: float(np.reshape(count, -1)[0]) for name, count in counts(inputs).items()}
    at_moves = counts(_batch(inputs, values, *zip(*pairs, strict=True)))
    crossing = [position for position in range(len(pairs))
                if any(at_moves[name][position] != at_base[name] for name in at_base)]
    if not crossing:
        return {}, {}
    crossing_paths = [pairs[p][0] for p in crossing]

    def keeps_base_counts(probes: np.ndarray) -> np.ndarray:
        """Per crossing (row) and probed value of its input (column): whether the counts are the base's."""
        found = counts(_batch(inputs, values, crossing_paths, probes))
        kept: np.ndarray = np.all([found[name] == at_base[name] for name in at_base], axis=0)
        return kept.reshape(probes.shape)

    near, far = _bisect(np.array([values[path] for path in crossing_paths]),
                        np.array([pairs[p][1] for p in crossing]), keeps_base_counts)
    beyond = counts(_batch(inputs, values, crossing_paths, far))
    steps: dict[str, list[Step]] = {}
    plateaus = {}
    for position, (p, edge, step_at) in enumerate(zip(crossing, near, far, strict=True)):
        path = pairs[p][0]
        plateaus[(path, p % 2)] = float(edge)
        for name, before in at_base.items():
            after = float(beyond[name][position])
            if after != before:
                steps.setdefault(path, []).append(Step(name, float((edge + step_at) / 2), before, after))
    return {path: tuple(found) for path, found in steps.items()}, plateaus


def _bisect(near: np.ndarray, far: np.ndarray, keeps_base_counts: Any) -> tuple[np.ndarray, np.ndarray]:
    """``near`` and ``far`` after _BISECTIONS halvings, each interval's midpoint replacing ``near``
    where the counts there are the base's, else ``far``.

    The halvings go _LEVELS at a time: one batch probes every midpoint they can reach (a binary
    tree per interval, node k's halves are nodes 2k, the upper, and 2k+1), then each interval
    walks down its tree. The midpoints are those one halving per batch would probe, computed
    alike, so the result is the same to the last bit, in 5 batches instead of 40.
    """
    rows = np.arange(len(near))
    for done in range(0, _BISECTIONS, _LEVELS):
        levels = min(_LEVELS, _BISECTIONS - done)
        nodes = 2 ** levels
        lows, highs, middles = (np.empty((len(near), nodes)) for _ in range(3))
        lows[:, 1], highs[:, 1] = near, far
        for level in range(levels):
            parents = slice(2 ** level, 2 ** (level + 1))
            middles[:, parents] = (lows[:, parents] + highs[:, parents]) / 2.0
            if level + 1 < levels:
                children = 2 ** (level + 1), 2 ** (level + 2)
                upper, lower = slice(*children, 2), slice(children[0] + 1, children[1], 2)
                lows[:, upper], highs[:, upper] = middles[:, parents], highs[:, parents]
                lows[:, lower], highs[:, lower] = lows[:, parents], middles[:, parents]
        same = np.empty((len(near), nodes), dtype=bool)
        same[:, 1:] = keeps_base_counts(middles[:, 1:])
        node = np.ones(len(near), dtype=np.intp)
        for _ in range(levels):
            middle, kept = middles[rows, node], same[rows, node]
            near, far = np.where(kept, middle, near), np.where(kept, far, middle)
            node = 2 * node + ~kept
    return near, far


def _continuous_swings(moved: Mapping[str, tuple[float, float]],
                       edges: Mapping[str, tuple[float, float]], found: Sequence[float]) -> dict[str, float]:
    """Per input with a step: the saving's slope across its plateau (the values that keep the
    base's counts, whose edges' savings are ``found`` in order), times the row's range [USD]."""
    swings = {}
    for position, (path, (low_edge, high_edge)) in enumerate(edges.items()):
        width = high_edge - low_edge
        slope = (found[2 * position + 1] - found[2 * position]) / width if width > 0 else 0.0
        swings[path] = abs(slope) * (moved[path][1] - moved[path][0])
    return swings


# Inputs bounded by another input (lower path, upper path): a moved value stays on its side.
_ORDERED_PAIRS = (("buy.system_power_idle_kw", "buy.system_power_max_kw"),)


def _moved_values(
    inputs: Scenario, path: str, value: float, metadata: Mapping[str, Any], step_share: float
) -> tuple[float, float]:
    """(low, high) values of one input (now at ``value``), clipped inside its valid range."""
    low, high = metadata["low"], metadata["high"]
    if metadata["low_open"]:
        low = math.nextafter(low, math.inf)
    if metadata["high_open"]:
        high = math.nextafter(high, -math.inf)
    for lower, upper in _ORDERED_PAIRS:
        if path == lower:
            high = min(high, float(get_input(inputs, upper)))
        elif path == upper:
            low = max(low, float(get_input(inputs, lower)))
    down, up = value * (1.0 - step_share), value * (1.0 + step_share)
    return min(max(down, low), high), min(max(up, low), high)
