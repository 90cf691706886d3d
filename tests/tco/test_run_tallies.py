"""A sweep's summary from its chunks' tallies: exact sums, and the same figures as from the parts."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from tco.models import RunKind
from tco.models import SweepChunk
from tco.runs.compute import sweep_chunk_table
from tco.runs.specs import parse_sweep_spec
from tco.runs.summaries import SweepTally
from tco.runs.summaries import _cells
from tco.runs.summaries import _Ranges
from tco.runs.summaries import sweep_tally
from tco.services.engine_inputs import engine_case
from tco.services.runs import _chunk_plan
from tco.services.runs import _summary
from tests.tco.run_results import result_frame
from tests.tco.test_runs_services import PRICE
from tests.tco.test_runs_services import SAVING
from tests.tco.test_runs_services import start


def _mean_saving(*pieces: list[float]) -> float:
    """The mean saving of a rent option whose points came in ``pieces`` (each tallied, then merged)."""
    merged = _Ranges()
    for piece in pieces:
        ranges = _Ranges()
        ranges.add(np.array(piece), np.full(len(piece), 12.0))
        merged.merge(ranges.to_json())
    return merged.figures()["npv_saving_usd"]["mean"]


def test_a_mean_is_rounded_once_whatever_the_pieces():
    # Summed in floats, 0.1 + 0.2 rounds up first; the exact sum rounds once.
    assert sum([0.1, 0.2, 0.3]) / 3 == 0.20000000000000004
    assert _mean_saving([0.1, 0.2, 0.3]) == float((Fraction(0.1) + Fraction(0.2) + Fraction(0.3)) / 3) == 0.2
    assert _mean_saving([0.1], [0.2, 0.3]) == _mean_saving([0.1, 0.2], [0.3]) == 0.2


def test_a_mean_keeps_values_far_apart_in_size_and_leaves_out_what_is_not_finite():
    values = [1e300, 1.0, -1e300, 5e-324, -2.5, np.nan, np.inf]

    # Five finite values: (1 + 5e-324 - 2.5) / 5, with the 1e300s cancelling exactly.
    assert _mean_saving(values) == float((Fraction(1) + Fraction(5e-324) - Fraction(5, 2)) / 5) == -0.3


def test_the_counts_of_a_rent_option_in_one_pass():
    ranges = _Ranges()
    ranges.add(np.array([-5.0, 0.0, 3.0, np.nan, 7.0]), np.array([4.0, np.nan, np.nan, 30.0, np.inf]))

    assert ranges.to_json() == {
        "points": 5, "buy_wins": 2, "never": 2,
        "saving": {"count": 4, "min": -5.0, "max": 7.0, "sum": "5"},
        "breakeven": {"count": 2, "min": 4.0, "max": 30.0, "sum": "0"},
    }


@pytest.mark.django_db
@pytest.mark.usefixtures("media")
def test_a_sweep_summary_from_tallies_is_the_one_read_from_its_parts(run_scenario):
    spec = {"axes": [{"path": PRICE, "low": 20, "high": 60, "count": 9},
                     {"path": "utilisation", "start": 0.2, "stop": 1, "step": 0.1}]}
    run = start(run_scenario, RunKind.SWEEP, spec, chunk_size=10)
    chunks = SweepChunk.objects.filter(run=run)

    # 9 prices x 9 utilisations = 81 points: 8 chunks of 10 and one of 1.
    assert chunks.count() == 9 and all(tally is not None for tally in chunks.values_list("tally", flat=True))
    # A chunk counted before chunks kept tallies: the finisher reads its part instead.
    chunks.update(tally=None)
    assert _summary(run.pk, _chunk_plan(run.pk)) == run.summary
    # The mean is the exact mean of the stored savings, rounded once.
    saving = result_frame(run)[SAVING].to_numpy()
    mean = run.summary["options"]["p5 on demand"]["npv_saving_usd"]["mean"]
    assert mean == float(sum(map(Fraction, saving.tolist())) / len(saving))


def _chunk_of_a_9_by_9_grid(scenario):
    """Points 5 to 76 of 9 prices x 9 utilisations: the spec, the rent options' names and the
    chunk's table."""
    inputs = engine_case(scenario).inputs
    spec = parse_sweep_spec({"axes": [{"path": PRICE, "low": 20, "high": 60, "count": 9},
                                      {"path": "workload.utilisation", "low": 0.2, "high": 1.0, "count": 9}]},
                            inputs)
    return spec, [option.name for option in inputs.rent], sweep_chunk_table(inputs, spec, 5, 77)


@pytest.mark.django_db
def test_a_chunks_tally_gathered_a_batch_at_a_time_is_that_of_its_whole_table(run_scenario):
    spec, names, table = _chunk_of_a_9_by_9_grid(run_scenario)

    pieces = SweepTally(spec, names)
    for first, after in ((0, 1), (1, 30), (30, 31), (31, 72)):
        pieces.add(table, first, after)

    whole = sweep_tally(table, spec, names)
    assert pieces.to_json() == whole
    assert sum(whole["winners"].values()) == 72
    # Every point is in one heat-map slot of each option.
    assert all(sum(counts) == 72 for _, counts in whole["heatmap"].values())


@pytest.mark.django_db
def test_a_chunks_heat_map_counts_its_points_per_cell_and_breakeven_month(run_scenario):
    # Points 5 to 76: the last 4 utilisations of the first price, then whole rows. With 9 x 9
    # values each value is its own cell, x the price and y the utilisation: cell = util x 9 +
    # price, so the chunk's cells are not one range (45, 54, 63, 72, then 1, 10, ...).
    spec, names, table = _chunk_of_a_9_by_9_grid(run_scenario)
    points = table.column("point")
    cells = points % 9 * 9 + points // 9

    tally = sweep_tally(table, spec, names)
    per_cell = 242  # months 0 to 240, then "never"
    for name in names:
        breakeven = table.column(f"{name}: breakeven_month")
        months = np.where(np.isfinite(breakeven), np.nan_to_num(breakeven), per_cell - 1).astype(np.int64)
        slots, counts = np.unique(cells * per_cell + months, return_counts=True)
        assert tally["heatmap"][name] == [slots.tolist(), counts.tolist()]


def test_heat_map_cells_follow_each_points_flat_index_when_the_points_jump():
    # A 6 x 7 grid in C order (the first axis's value index is point // 7, the second's
    # point % 7), each axis's values grouped in pairs: 3 x 4 cells, cell = second x 3 + first.
    # Cells are carried from point to point and looked up again after a jump: both give the
    # cell of the point's own indexes.
    first_groups, second_groups = np.arange(6) // 2, np.arange(7) // 2
    points = np.array([5, 6, 7, 8, 20, 21, 22, 40, 41, 3], dtype=np.int64)

    cells = _cells(points, 7, first_groups, 1, second_groups, 3)

    expected = second_groups[points % 7] * 3 + first_groups[points // 7]
    assert cells.tolist() == expected.tolist() == [6, 9, 0, 0, 10, 1, 1, 8, 11, 3]
