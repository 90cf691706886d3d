"""The strategies' Monte Carlo over price paths beside the plain sweep of the same size.

100,000 price paths of ``costmodel.examples.strategy_example`` (every strategy: buy now, six
terms, on demand, spot, the next generation, a mix; 120 months) in chunks of 10,000, against
100,000 points of the plain sweep (``benchmarks.engine``, compiled kernel, chunks of 10,000).
"""

from __future__ import annotations

from benchmarks.engine import HEADER
from benchmarks.engine import measure_chunks
from benchmarks.engine import timed
from costmodel.examples import strategy_example
from costmodel.price_paths import around_forward
from costmodel.price_paths import strategy_monte_carlo

PATHS = 100_000
CHUNK_PATHS = 10_000
SEED = 20261128


def strategy_lines(repeats: int) -> list[str]:
    """The two measurements as rows, the Monte Carlo's with its ratio to the sweep."""
    inputs = strategy_example()
    model = around_forward(0.4)

    def run() -> None:
        strategy_monte_carlo(inputs, model, paths=PATHS, seed=SEED, chunk_paths=CHUNK_PATHS)

    sweep = measure_chunks(repeats, PATHS, compiled=True, chunk_size=CHUNK_PATHS)
    label = f"strategy Monte Carlo, {PATHS:,} paths in chunks of {CHUNK_PATHS:,}"
    paths = timed(label, PATHS, run, repeats=repeats, memory_run=run)
    return [
        "strategies over price paths (ratio: paths per second over the plain sweep's points per second)",
        HEADER.replace("x ref, best", "x sweep"),
        sweep.line(),
        paths.line(sweep),
    ]
