"""A run's chunk computed as a worker computes it: the table, the part's bytes encoded and the
sweep's tally counted as the engine hands on its rows (on the part's thread, or once the engine
is done: ``PartEncoder``). Nothing here reads the database or writes storage: the service
(tco/services/runs.py) claims, stores and counts around it, and the benchmarks time it alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import pandas as pd
import pyarrow as pa

import costmodel as engine
from tco.runs.compute import PointsTable
from tco.runs.compute import monte_carlo_chunk_table
from tco.runs.compute import ranked_options
from tco.runs.compute import sensitivity_frame
from tco.runs.compute import sweep_chunk_table
from tco.runs.results import PartEncoder
from tco.runs.specs import MonteCarloSpec
from tco.runs.specs import SensitivitySpec
from tco.runs.specs import SweepSpec
from tco.runs.summaries import SweepTally

RunSpec = SweepSpec | MonteCarloSpec | SensitivitySpec


@dataclass(frozen=True)
class ChunkPlan:
    """What a run's chunks need of it, all fixed when it starts."""

    inputs: engine.Scenario
    spec: RunSpec
    seed: int | None
    chunk_size: int
    points_total: int

    def bounds(self, index: int) -> tuple[int, int]:
        """The first point of chunk ``index`` and the one after its last."""
        start = index * self.chunk_size
        return start, min(start + self.chunk_size, self.points_total)

    def tally(self) -> SweepTally | None:
        """A sweep chunk's counts for the summary (None for other kinds: their summaries need
        the whole columns, percentiles and the tornado)."""
        if not isinstance(self.spec, SweepSpec):
            return None
        names = [option.name for option in self.inputs.rent]
        return SweepTally(self.spec, names, ranked_options(self.inputs))


@dataclass(frozen=True)
class SensitivityTable:
    """A sensitivity run's one chunk, the tornado, stored like a chunk of points."""

    frame: pd.DataFrame

    def __len__(self) -> int:
        return len(self.frame)

    def arrow(self) -> pa.Table:
        return pa.Table.from_pandas(self.frame, preserve_index=False)


def chunk_table(plan: ChunkPlan, index: int, part: PartEncoder,
                tally: SweepTally | None) -> PointsTable | SensitivityTable:
    """Chunk ``index``'s table, its rows handed to ``part`` (and counted in ``tally``) as they
    are computed."""

    def encode(table: PointsTable, start: int, stop: int) -> None:
        part.write(partial(table.arrow, start, stop))
        if tally is not None:
            part.beside(partial(tally.add, table, start, stop))

    if isinstance(plan.spec, SweepSpec):
        return sweep_chunk_table(plan.inputs, plan.spec, *plan.bounds(index), on_rows=encode)
    if isinstance(plan.spec, MonteCarloSpec):
        return monte_carlo_chunk_table(plan.inputs, plan.spec, plan.seed, *plan.bounds(index), on_rows=encode)
    tornado = SensitivityTable(sensitivity_frame(plan.inputs, plan.spec))
    part.write(tornado.arrow)
    return tornado
