"""Benchmarks: `python -m benchmarks` prints each figure (the latest in the README, every dated
run in benchmarks/RESULTS.md).

Nothing in the service imports this package; it drives the service from outside.
"""


def like_a_worker() -> None:
    """Run the engine in this process as a sweep worker runs it (tco/runs/worker_steps.py), freed heap
    kept for the next chunk, so that "the engine alone" and the workers are measured alike."""
    from core.heap import keep_freed_heap
    from tco.runs.limits import CHUNK_MEMORY_BUDGET_BYTES

    keep_freed_heap(CHUNK_MEMORY_BUDGET_BYTES)
