"""Many points evaluated in cache-sized blocks.

Before the compiled kernel walks the months, the engine prepares each input and cost line
with NumPy over the whole batch: a few dozen passes over arrays of one float a point. Past
the CPU's L2 cache those passes wait on memory. Measured on 1,000,000 sweep points (the
benchmark's H100 sweep, 2-core Intel Xeon with 2 MiB of L2 a core), the engine ran at
834,000-938,000 points/s in calls of 131,072 points, 1.11-1.13 million in calls of 8,192 or
16,384, 1.00 million in 4,096 and 0.84-0.88 million in 2,048 (Python's per-call work). Two
processes at once reached 1.46-1.72x one process in calls of 125,000, 1.84-1.89x in 16,384
or 32,768: they no longer share the memory bus. 8,192 points keeps a block's arrays at
64 KiB, inside smaller L2 caches too (512 KiB a core on the AMD EPYC machines).

Every point is evaluated on its own, so the figures are the same, bit for bit, whatever the
blocks (costmodel/tests/test_blocks.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from collections.abc import Mapping

import numpy as np
from numpy.typing import ArrayLike

from costmodel.evaluate import evaluate
from costmodel.inputs import Scenario
from costmodel.overrides import with_overrides
from costmodel.result import Result

BLOCK_POINTS = 8_192


def evaluate_points(
    inputs: Scenario, overrides: Mapping[str, ArrayLike], *, block_points: int = BLOCK_POINTS
) -> Iterator[tuple[int, int, Result]]:
    """The sweep figures (``detail=False``) of every point, one block at a time.

    Parameters
    ----------
    inputs : Scenario
        The base scenario (scalar inputs).
    overrides : mapping of str to array
        Input path -> one value per point, all of the same length.
    block_points : int
        Points evaluated in one call.

    Yields
    ------
    (int, int, Result)
        The block's first point, the point after its last, and its result (batch shape
        ``(stop - start,)``, or scalars where no varied input moves a figure).
    """
    values = {path: np.asarray(value, dtype=np.float64) for path, value in overrides.items()}
    count = len(next(iter(values.values())))
    for start in range(0, count, block_points):
        stop = min(start + block_points, count)
        block = {path: value[start:stop] for path, value in values.items()}
        yield start, stop, evaluate(with_overrides(inputs, block), detail=False)
