"""A chunk's whole computation, on the engine's example scenario, nothing stored.

A worker runs it when it starts (config/celery_app.py), so the first chunk of the first run it
takes does not pay for loading compiled code (the kernel and the tally loops, from Numba's
cache) and for growing the process's heap to a chunk's size: the first 125,000-point chunk of
a fresh pool process took ~160 ms longer than the next ones, and the first summary ~320 ms.
"""
from __future__ import annotations

from tco.engine.examples import rich_scenario
from tco.runs.compute import sweep_chunk_table
from tco.runs.results import part_bytes
from tco.runs.specs import parse_sweep_spec
from tco.runs.summaries import sweep_summary
from tco.runs.summaries import sweep_tally

# The points of the first axis; the second has the rest (two axes, as a heat map needs).
_ACROSS = 128


def rehearse_chunk(points: int) -> int:
    """Compute, encode, tally and summarise a chunk of ``points`` (a multiple of 128) of a sweep;
    the bytes its part would take."""
    inputs = rich_scenario()
    spec = parse_sweep_spec({"axes": [
        {"path": "workload.utilisation", "low": 0.2, "high": 1.0, "count": _ACROSS},
        {"path": "facility.electricity_usd_per_kwh", "low": 0.05, "high": 0.35, "count": points // _ACROSS},
    ]}, inputs)
    table = sweep_chunk_table(inputs, spec, 0, spec.points_total)
    names = [option.name for option in inputs.rent]
    sweep_summary([sweep_tally(table, spec, names)], spec, names)
    return len(part_bytes(table.arrow()))
