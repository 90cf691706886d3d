"""Sizes and time limits of run chunks, with the measurements behind them.

The compiled kernel walks the months of one scenario at a time, so a batch's memory does not
grow with the horizon: a chunk holds the payment table, the per-point figures and its result
table, measured with tracemalloc (65,536 points traced 33 MB with one rent option and 49 MB
with three, at 12, 120 and 240 months alike: 520 and 776 bytes a point). The figures below
are those with a margin of about 1.5x. Since the engine evaluates a chunk in blocks of 8,192
points (``costmodel.blocks``), only the chunk's table and its encoded part grow with it: a
chunk with three rent options traced 20 MB at 65,536 points and 29 MB at 131,072 (~145 bytes
a point over one block's ~10 MB), so the budget now holds with a margin of 3-4x.
"""
from __future__ import annotations

ENGINE_BYTES_PER_POINT = 512
ENGINE_BYTES_PER_POINT_PER_RENT_OPTION = 256

# Engine memory a chunk may use; a worker process holds one chunk at a time.
CHUNK_MEMORY_BUDGET_BYTES = 256 * 1024 * 1024

# Monte Carlo draws come in blocks seeded by (seed, block index), so point i gets the same
# draws whatever the chunking; chunks are whole blocks. At 120 months a block evaluates in
# about 0.5 s on one core of the 2-core benchmark machine.
RNG_BLOCK_POINTS = 8_192

# Chunk bounds: the budget allows 209,715 points with three rent options and 349,525 with one;
# the upper bound (~0.2 s of the compiled kernel, as 131,072 points were when the kernel was
# 2x slower) keeps progress moving and a cancel quick. A chunk costs its worker ~15 ms beside
# the engine (claim, part, count, Celery): a 1,000,000-point sweep on one worker process was
# cut into 8 chunks at 131,072 points and is cut into 5 at 209,715, 1.04-1.07 s against 1.12-1.17 s.
MIN_CHUNK_POINTS = 1
MAX_CHUNK_POINTS = 262_144
# A chunk costs a task message, two small UPDATEs and one stored object whatever its size: a
# run has at most this many, so a requested chunk size has a floor of points / MAX_RUN_CHUNKS.
MAX_RUN_CHUNKS = 1_024
# Chunks the service cuts a run into per worker process (when the client names no size): a
# few each, so the processes finish together and a slow one holds up little.
CHUNKS_PER_WORKER = 4
# Below this a chosen chunk is mostly overhead (message, UPDATEs, object, ~10 ms): no smaller.
MIN_CHOSEN_CHUNK_POINTS = 4_096

# Largest grid or sample a run accepts: 10^6 points at 120 months is ~31 chunks of work.
MAX_RUN_POINTS = 1_000_000

# Most sweep axes and Monte Carlo distributions one run takes: a Monte Carlo spec is checked
# by evaluating every combination of its distributions' extremes (2^10 = 1,024 scenarios).
MAX_SWEEP_AXES = 10
MAX_DISTRIBUTIONS = 10

# Chunks queued at once per worker process on the sweeps queue: one computing and one waiting,
# so that no process waits for the next chunk to be queued; never fewer than a deployment of
# one or two processes had before the count followed the workers.
CHUNKS_IN_FLIGHT_PER_WORKER = 2
MIN_CHUNKS_IN_FLIGHT = 4

# A chunk takes seconds; its limits stay far below the Redis visibility timeout (3,600 s),
# or acks_late would hand a still-running chunk to a second worker.
CHUNK_SOFT_TIME_LIMIT_S = 300
CHUNK_TIME_LIMIT_S = 360
# A chunk's task goes on with its run's next chunk, with no message in between, while nothing
# else waits on the queues its worker serves and it has run less than this: its last chunk
# (seconds at most) ends far inside its time limits.
GO_ON_FOR_S = CHUNK_SOFT_TIME_LIMIT_S // 5
# Summarising a run takes milliseconds for a sweep (its chunks' tallies) and seconds for a
# 10^6-sample Monte Carlo run (it reads the columns it needs from the parts); the task that
# counts the last chunk does it within the chunk's limits, a finisher sent again within these.
FINISH_SOFT_TIME_LIMIT_S = 600
FINISH_TIME_LIMIT_S = 660

# No chunk finished for this long although chunks were queued: no live worker can still be
# computing them (the hard time limit would have stopped it), so the reaper queues them again.
REQUEUE_STALLED_AFTER_S = CHUNK_TIME_LIMIT_S + 60
# No progress for this long (past the broker's own redelivery after its 1 h visibility
# timeout): the run is failed as timed out.
RUN_STALL_DEADLINE_S = 3_600 + 2 * CHUNK_TIME_LIMIT_S
# A run that reached FINISHING but has no result after this long lost its finisher.
FINISH_DEADLINE_S = FINISH_TIME_LIMIT_S + 60



def chunk_points_for(
    rent_options: int, *, points: int | None = None, workers: int = 1, align: int = 1
) -> int:
    """Points per chunk: inside the memory budget, and small enough that every worker process
    gets ``CHUNKS_PER_WORKER`` chunks of the run, but not below ``MIN_CHOSEN_CHUNK_POINTS``.

    Parameters
    ----------
    rent_options : int
        Rent options of the run's scenario (each adds columns to every point).
    points : int, optional
        Points of the run; None = size to the memory budget alone.
    workers : int
        Worker processes consuming the sweeps queue (over all machines).
    align : int
        Chunks are a whole number of these points (the RNG block for Monte Carlo).

    Examples
    --------
    >>> chunk_points_for(3, align=8192)  # the budget, 268,435,456 / (512 + 3 x 256): 25 blocks
    204800
    >>> chunk_points_for(1)  # the upper bound
    262144
    >>> chunk_points_for(3, points=1_000_000, workers=2)  # 1,000,000 / (2 x 4)
    125000
    >>> chunk_points_for(20, points=1_000_000, workers=2)  # 256 MiB / (512 + 20 x 256 B)
    47662
    """
    fitting = CHUNK_MEMORY_BUDGET_BYTES // (ENGINE_BYTES_PER_POINT + ENGINE_BYTES_PER_POINT_PER_RENT_OPTION
                                            * rent_options)
    if points is not None:
        shared = -(-points // (max(workers, 1) * CHUNKS_PER_WORKER))
        fitting = min(fitting, max(shared, MIN_CHOSEN_CHUNK_POINTS, smallest_chunk_points(points)))
    bounded = max(MIN_CHUNK_POINTS, min(MAX_CHUNK_POINTS, fitting))
    return max(align, bounded // align * align)


def chunks_in_flight(workers: int) -> int:
    """Chunks queued at once for one run, and for all one team's runs (sweeps, Monte Carlo runs
    and plan draws), shared round-robin among them, with ``workers`` processes on the sweeps
    queue: a run uses every process; a cancel stops after the chunks already queued; and another
    team's small sweep waits behind this many of a team's chunks at most, about two chunks'
    time whatever the workers, so teams interleave instead of queueing.

    >>> chunks_in_flight(1), chunks_in_flight(2), chunks_in_flight(6)
    (4, 4, 12)
    """
    return max(MIN_CHUNKS_IN_FLIGHT, CHUNKS_IN_FLIGHT_PER_WORKER * workers)


def smallest_chunk_points(points: int) -> int:
    """The smallest chunk a run of ``points`` may be cut into (``MAX_RUN_CHUNKS`` chunks)."""
    return max(MIN_CHUNK_POINTS, -(-points // MAX_RUN_CHUNKS))
