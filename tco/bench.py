"""Engine throughput and memory: ``python -m tco.bench`` (run from the project root).

Each measurement is its own function returning a ``Measurement`` so more (for
example Celery end-to-end sweeps) can be added next to them. The batches vary
the inputs a sweep or Monte Carlo run varies, drawn from a fixed seed, on the
test suite's ``rich_scenario`` (every cost line, financing, three pricing
models) over 120 months. The reference is the month-by-month plain-Python
oracle in ``tests/tco/reference_model.py``.
"""

from __future__ import annotations

import os

# One BLAS thread, set before NumPy loads OpenBLAS: the figures are per core, and extra BLAS
# threads only slow the engine's small matrix products down (measured: 59,000 vs 43,000
# points/s). Celery worker processes get the same setting (tco/bench_celery.py).
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import time  # noqa: E402
import tracemalloc  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, replace  # noqa: E402

import numpy as np  # noqa: E402

from tco.engine import Scenario, batch_slice, evaluate, get_input, input_metadata, with_overrides  # noqa: E402
from tco.engine.plan import bench as plan_bench  # noqa: E402

HORIZON_MONTHS = 120.0
CHUNK_SIZE = 50_000
SEED = 20240611
CELERY_SWEEP_POINTS = (10_000, 100_000, 1_000_000)
CELERY_WORKER_PROCESSES = (1, 2)
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
    """One timed run: how many scenarios, how long, and the peak traced memory."""

    label: str
    scenarios: int
    seconds: float
    peak_mb: float | None

    @property
    def scenarios_per_s(self) -> float:
        """Throughput [scenarios/s]."""
        return self.scenarios / self.seconds

    def line(self) -> str:
        """A printable row."""
        peak = f"{self.peak_mb:9.0f} MB" if self.peak_mb is not None else " " * 12
        throughput = f"{self.scenarios_per_s:>13,.0f}/s"
        return f"{self.label:<42} {self.scenarios:>9,d} {self.seconds:9.3f} s {throughput} {peak}"


def base_scenario() -> Scenario:
    """The benchmark's base scenario, over the benchmark horizon."""
    from tests.tco.engine.scenarios import rich_scenario

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


def _timed(
    label: str, scenarios: int, run: Callable[[], object], *, memory_run: Callable[[], object] | None
) -> Measurement:
    """Time ``run`` untraced, then run ``memory_run`` under tracemalloc for the peak."""
    start = time.perf_counter()
    run()
    seconds = time.perf_counter() - start
    peak_mb = None
    if memory_run is not None:
        tracemalloc.start()
        memory_run()
        peak_mb = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
    return Measurement(label, scenarios, seconds, peak_mb)


def measure_engine_batch(size: int) -> Measurement:
    """One ``evaluate(detail=False)`` call on a batch of ``size`` scenarios."""
    batch = random_batch(size, np.random.default_rng(SEED))

    def run() -> None:
        evaluate(batch, detail=False)

    return _timed(f"engine, one batch of {size:,}", size, run, memory_run=run)


def measure_engine_chunked(total: int, chunk_size: int = CHUNK_SIZE) -> Measurement:
    """``total`` scenarios evaluated in chunks of ``chunk_size``, as a chunked sweep would.

    The memory peak is that of one chunk: chunks run one after the other.
    """
    batch = random_batch(total, np.random.default_rng(SEED))

    def run() -> None:
        for start in range(0, total, chunk_size):
            evaluate(batch_slice(batch, slice(start, start + chunk_size)), detail=False)

    def one_chunk() -> None:
        evaluate(batch_slice(batch, slice(0, chunk_size)), detail=False)

    return _timed(f"engine, {total:,} in chunks of {chunk_size:,}", total, run, memory_run=one_chunk)


def single_scenarios(sample: int) -> list[Scenario]:
    """The first ``sample`` scenarios of the benchmark batch, each on its own (scalar inputs)."""
    batch = random_batch(sample, np.random.default_rng(SEED))
    return [
        with_overrides(batch, {path: np.asarray(get_input(batch, path))[index] for path in VARIED_INPUTS})
        for index in range(sample)
    ]


def measure_engine_one_at_a_time(sample: int = 1_000) -> Measurement:
    """The engine called once per scenario in a Python loop: what batching saves."""
    singles = single_scenarios(sample)

    def run() -> None:
        for scenario in singles:
            evaluate(scenario, detail=False)

    return _timed(f"engine, {sample:,} one at a time", sample, run, memory_run=None)


def measure_reference(sample: int = 200) -> Measurement:
    """The plain-Python reference on ``sample`` scenarios, one at a time."""
    from tests.tco.reference_model import reference_evaluate

    singles = single_scenarios(sample)

    def run() -> None:
        for scenario in singles:
            reference_evaluate(scenario, with_breakeven_utilisation=False)

    return _timed(f"reference, {sample} one at a time", sample, run, memory_run=None)


def main() -> None:
    """Print every measurement and the engine/reference ratio per scenario."""
    print(f"{'measurement':<42} {'scenarios':>9} {'time':>11} {'throughput':>15} {'peak traced':>12}")
    engine_runs = [
        measure_engine_batch(10_000),
        measure_engine_batch(100_000),
        measure_engine_chunked(1_000_000),
    ]
    one_at_a_time = measure_engine_one_at_a_time()
    reference = measure_reference()
    for measurement in [*engine_runs, one_at_a_time, reference]:
        print(measurement.line())
    for measurement in engine_runs:
        ratio = measurement.scenarios_per_s / reference.scenarios_per_s
        print(f"speed-up per scenario, {measurement.label}: {ratio:,.0f}x the reference")
    print_celery_sweeps()
    plan_bench.main()


def print_celery_sweeps() -> None:
    """Sweeps end to end through Celery with 1 and 2 worker processes (needs Redis, PostgreSQL)."""
    from tco.bench_celery import celery_unavailable_reason, measure_celery_sweeps

    reason = celery_unavailable_reason()
    if reason:
        print(f"celery sweeps: not measured ({reason})")
        return
    for measurement in measure_celery_sweeps(CELERY_SWEEP_POINTS, CELERY_WORKER_PROCESSES):
        print(measurement.line())


if __name__ == "__main__":
    main()
