"""A chunk's whole computation, once, on the engine's example scenario, nothing stored.

A worker runs it when it starts, so the first chunk of the first run it takes does not pay for
loading compiled code (the kernel and the tally loops, from Numba's cache, and the paths of
NumPy and Arrow a chunk takes): the first 125,000-point chunk of a process that had only
evaluated one scenario took ~90 ms longer than the next ones, one after this took as long.
"""
from __future__ import annotations

from tco.engine.examples import rich_scenario
from tco.runs.compute import sweep_chunk_table
from tco.runs.results import part_bytes
from tco.runs.specs import parse_sweep_spec
from tco.runs.summaries import sweep_tally

# 8,192 points on two axes, as a heat map needs: a few ms, and as good as a whole chunk.
_SPEC = {"axes": [
    {"path": "workload.utilisation", "low": 0.2, "high": 1.0, "count": 128},
    {"path": "facility.electricity_usd_per_kwh", "low": 0.05, "high": 0.35, "count": 64},
]}


def rehearse_chunk() -> int:
    """Compute, encode and tally one small chunk of a sweep; the bytes its part would take."""
    inputs = rich_scenario()
    spec = parse_sweep_spec(_SPEC, inputs)
    table = sweep_chunk_table(inputs, spec, 0, spec.points_total)
    sweep_tally(table, spec, [option.name for option in inputs.rent])
    return len(part_bytes(table.arrow()))
