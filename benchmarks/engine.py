"""Engine measurements for ``python -m benchmarks``, each beside the plain-Python reference.

The batches vary the inputs a sweep or Monte Carlo run varies, drawn from a
fixed seed, on ``costmodel.examples.rich_scenario`` (every cost line,
financing, three pricing models) over 120 months. The reference is the
month-by-month model in ``costmodel.reference``, timed in the same run so that
each ratio compares like with like on a machine whose load changes. Every
measurement is repeated; the best and the median are printed.
"""

from __future__ import annotations

import statistics
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import replace
from functools import partial

import numpy as np

from benchmarks.targets import Figure
from costmodel import BLOCK_POINTS
from costmodel import Scenario
from costmodel import batch_slice
from costmodel import evaluate
from costmodel import get_input
from costmodel import input_metadata
from costmodel import with_overrides
from costmodel.compose import compute_result
from costmodel.examples import rich_scenario
from costmodel.reference import reference_evaluate

HORIZON_MONTHS = 120.0
CHUNK_SIZE = 50_000
SEED = 20240611
VARIED_INPUTS = (
    "workload.utilisation",
    "workload.accelerators",
    "buy.system_price_usd",
    "facility.electricity_usd_per_kwh",
    "facility.pue",
    "finance.discount_rate_per_year",
    "rent.0.price_usd_per_instance_hour",
    "rent.1.price_usd_per_instance_hour",
    "rent.2.price_usd_per_instance_hour",
)


@dataclass(frozen=True)
class Measurement:
    """Repeated timed runs of one workload: how many scenarios, each run's time, the peak memory.

    ``seconds`` is wall-clock time; ``cpu_seconds`` the process's CPU time in the same runs,
    which other jobs on a shared machine move less.
    """

    label: str
    scenarios: int
    seconds: tuple[float, ...]
    peak_mb: float | None
    cpu_seconds: tuple[float, ...] = ()

    @property
    def best_per_s(self) -> float:
        """Throughput of the fastest run [scenarios/s]."""
        return self.scenarios / min(self.seconds)

    @property
    def median_per_s(self) -> float:
        """Throughput of the median run [scenarios/s]."""
        return self.scenarios / statistics.median(self.seconds)

    def line(self, reference: Measurement | None = None) -> str:
        """A printable row; with a reference, its best and median ratios to the reference's."""
        ms = 1e3 * min(self.seconds) / self.scenarios
        cpu_ms = 1e3 * min(self.cpu_seconds) / self.scenarios
        row = (
            f"{self.label:<50} {self.scenarios:>9,d} {ms:10.4f} ms {cpu_ms:10.4f} ms "
            f"{self.best_per_s:>11,.0f}/s {self.median_per_s:>11,.0f}/s"
        )
        if reference is not None:
            best = self.best_per_s / reference.best_per_s
            median = self.median_per_s / reference.median_per_s
            row += f" {_ratio(best):>8} {_ratio(median):>7}"
        else:
            row += " " * 18
        return row + (f" {self.peak_mb:8.0f} MB" if self.peak_mb is not None else "")


def _ratio(ratio: float) -> str:
    """300x, 2.5x, 0.035x: whole above 10, two significant digits below."""
    return f"{ratio:,.0f}x" if ratio >= 10 else f"{ratio:.2g}x"


HEADER = (
    f"{'measurement':<50} {'scenarios':>9} {'best, each':>13} {'CPU, each':>13} {'best':>13} {'median':>13}"
    f" {'x ref, best':>8} {'median':>7} {'peak traced':>11}"
)


def base_scenario() -> Scenario:
    """The benchmark's base scenario, over the benchmark horizon."""
    scenario = rich_scenario()
    return replace(scenario, finance=replace(scenario.finance, horizon_months=HORIZON_MONTHS))


def random_batch(size: int, rng: np.random.Generator) -> Scenario:
    """``size`` scenarios with each varied input drawn within +/-30 % of the base (kept valid)."""
    base = base_scenario()
    overrides = {}
    for path in VARIED_INPUTS:
        value = float(get_input(base, path))
        metadata = input_metadata(base, path)
        draws = rng.uniform(0.7 * value, 1.3 * value, size)
        overrides[path] = np.clip(draws, metadata["low"], metadata["high"])
    return with_overrides(base, overrides)


def single_scenarios(sample: int) -> list[Scenario]:
    """The first ``sample`` scenarios of the benchmark batch, each on its own (scalar inputs)."""
    batch = random_batch(sample, np.random.default_rng(SEED))
    return [
        with_overrides(batch, {path: np.asarray(get_input(batch, path))[index] for path in VARIED_INPUTS})
        for index in range(sample)
    ]


def timed(
    label: str,
    scenarios: int,
    run: Callable[[], object],
    *,
    repeats: int,
    memory_run: Callable[[], object] | None = None,
) -> Measurement:
    """Time ``run`` ``repeats`` times untraced, then ``memory_run`` under tracemalloc for the peak."""
    seconds, cpu_seconds = [], []
    for _ in range(repeats):
        start, cpu_start = time.perf_counter(), time.process_time()
        run()
        seconds.append(time.perf_counter() - start)
        cpu_seconds.append(time.process_time() - cpu_start)
    peak_mb = None
    if memory_run is not None:
        tracemalloc.start()
        memory_run()
        peak_mb = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
    return Measurement(label, scenarios, tuple(seconds), peak_mb, tuple(cpu_seconds))


def timed_in_chunks(
    label: str, total: int, chunk_size: int, chunk: Callable[[int], object], *, repeats: int
) -> Measurement:
    """Time ``chunk(start)`` over the chunks of ``total`` scenarios, one after the other.

    The first chunk runs once untimed (it compiles the kernel, or loads it from Numba's
    cache), and the memory peak is that of one chunk.
    """

    def run() -> None:
        for start in range(0, total, chunk_size):
            chunk(start)

    chunk(0)
    return timed(label, total, run, repeats=repeats, memory_run=lambda: chunk(0))


def timed_in_turn(
    label: str, scenarios: list[Scenario], call: Callable[[Scenario], object], *, repeats: int
) -> Measurement:
    """Time ``call`` on each scenario in turn, in a Python loop."""

    def run() -> None:
        for scenario in scenarios:
            call(scenario)

    return timed(label, len(scenarios), run, repeats=repeats)


def measure_reference(repeats: int, sample: int = 200) -> Measurement:
    """The plain-Python reference on ``sample`` scenarios, one at a time."""
    label = f"reference (plain Python), {sample} one at a time"
    run = partial(reference_evaluate, with_breakeven_utilisation=False)
    return timed_in_turn(label, single_scenarios(sample), run, repeats=repeats)


def measure_chunks(
    repeats: int, total: int, *, compiled: bool, chunk_size: int = CHUNK_SIZE
) -> Measurement:
    """``total`` scenarios in chunks of ``chunk_size``, as a sweep's workers evaluate them."""
    batch = random_batch(total, np.random.default_rng(SEED))

    def chunk(start: int) -> None:
        compute_result(
            batch_slice(batch, slice(start, start + chunk_size)), detail=False, irr=False, compiled=compiled
        )

    path = "compiled kernel" if compiled else "NumPy path"
    label = f"engine ({path}), {total:,} in chunks of {chunk_size:,}"
    return timed_in_chunks(label, total, chunk_size, chunk, repeats=repeats)


def measure_chunk_tables(repeats: int, total: int, chunk_size: int = CHUNK_SIZE) -> Measurement:
    """Sweep / Monte Carlo chunks as the workers run them: the engine call and the chunk's table."""
    from tco.runs.compute import points_table

    base = base_scenario()
    batch = random_batch(total, np.random.default_rng(SEED))
    overrides = {path: np.asarray(get_input(batch, path), dtype=np.float64) for path in VARIED_INPUTS}

    def chunk(start: int) -> None:
        stop = start + chunk_size
        points_table(base, {path: values[start:stop] for path, values in overrides.items()}, start).arrow()

    label = f"sweep/Monte Carlo chunk tables, {total:,} in {chunk_size:,}s"
    return timed_in_chunks(label, total, chunk_size, chunk, repeats=repeats)


def measure_one_at_a_time(repeats: int, sample: int = 1_000) -> Measurement:
    """The engine called once per scenario in a Python loop, sweep figures only: what batching saves."""
    label = f"engine, {sample:,} one at a time (sweep figures)"
    return timed_in_turn(label, single_scenarios(sample), partial(evaluate, detail=False), repeats=repeats)


def measure_with_sensitivity(repeats: int, sample: int = 100) -> Measurement:
    """What the API and the scenario page ask for: monthly detail, IRR, sensitivity and recommendation."""
    singles = single_scenarios(sample)
    evaluate(singles[0])
    label = f"one scenario with its sensitivity, {sample} in turn"
    return timed_in_turn(label, singles, evaluate, repeats=repeats)


def engine_lines(repeats: int) -> tuple[list[str], list[Figure]]:
    """Every engine measurement as a printable row, with its ratio to the reference, and the
    target figure: one scenario evaluated alone against the reference."""
    reference = measure_reference(repeats)
    one_at_a_time = measure_one_at_a_time(repeats)
    measurements = [
        measure_chunks(repeats, 1_000_000, compiled=True),
        measure_chunks(repeats, 1_000_000, compiled=True, chunk_size=BLOCK_POINTS),
        measure_chunks(repeats, 10 * 10_000, compiled=True, chunk_size=10_000),
        measure_chunks(repeats, 200_000, compiled=False),
        measure_chunk_tables(repeats, 1_000_000),
        one_at_a_time,
        measure_with_sensitivity(repeats),
    ]
    engine_ms = 1e3 / one_at_a_time.best_per_s
    reference_ms = 1e3 / reference.best_per_s
    # CPU time beside the wall clock: on a busy machine the two timings wait differently.
    cpu_ratio = (min(reference.cpu_seconds) / reference.scenarios) / (
        min(one_at_a_time.cpu_seconds) / one_at_a_time.scenarios)
    alone = Figure("one scenario alone: engine (sweep figures) vs plain-Python reference",
                   f"{engine_ms:.3f} vs {reference_ms:.3f} ms (CPU time: {cpu_ratio:.2f}x)", ">= 1x",
                   ratio=reference_ms / engine_ms, at_least=1.0)
    lines = [HEADER, reference.line(), *(measurement.line(reference) for measurement in measurements)]
    return lines, [alone]
