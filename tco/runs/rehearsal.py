"""A chunk's whole computation, on the engine's example scenario, nothing stored.

A worker runs it when it starts (tco/runs/worker_steps.py), so the first chunk of the first run it
takes does not pay for loading compiled code (the kernel and the tally loops, from Numba's
cache) and for growing the process's heap to a chunk's size: the first 125,000-point chunk of
a fresh pool process took ~160 ms longer than the next ones, and the first summary ~320 ms.
"""
from __future__ import annotations

from costmodel.examples import rich_scenario
from tco.runs.chunks import ChunkPlan
from tco.runs.chunks import chunk_table
from tco.runs.results import PartEncoder
from tco.runs.specs import parse_sweep_spec
from tco.runs.summaries import sweep_summary

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
    plan = ChunkPlan(inputs, spec, None, spec.points_total, spec.points_total)
    tally = plan.tally()
    with PartEncoder(alongside=False) as part:
        chunk_table(plan, 0, part, tally)
        payload = part.finish()
    sweep_summary([tally.to_json()], spec, [option.name for option in inputs.rent])
    return len(payload)
