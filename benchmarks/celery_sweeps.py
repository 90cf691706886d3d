"""Sweeps end to end through Celery workers on Redis, next to the engine alone on the same points.

Called by ``python -m benchmarks`` when REDIS_URL is set and DATABASE_URL points at PostgreSQL
(the workers write chunks concurrently). It migrates that database and loads the catalog and
the demo scenarios into it (both idempotent), then sweeps the "8x H100 training cluster" demo
(three rent options) over utilisation x electricity price at a 120-month horizon. Each
(worker processes, points) pair gets a fresh worker, so its peak memory is that run's alone.
The service chooses the chunk size, as it does for a client that names none; runs of more
than the request limit (10^6 points) are started as an operator would, with a raised limit.
Each run is deleted after it is measured (its parts in storage with it). A fresh worker first
computes a small sweep (a long-lived worker has); 1,000,000 points are then swept five times,
each after the engine alone on the same chunks and after the same chunks computed as a worker
computes them with nothing of the service around them (no Celery, database or storage) in as
many forked processes (and, on 2 processes or more, after the engine alone in as many forked
processes: the ceiling), and the best of each is compared (the median of the five sweeps' ratios
to the engine run just before each is printed beside it). On the same worker, sweeps of 100
and 10,000 points are then timed from start to done, as a person waits for them (the median
of 15).
"""
from __future__ import annotations

import math
import os
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks import like_a_worker
from benchmarks.cpu_use import cpu_line
from benchmarks.cpu_use import cpu_snapshot
from benchmarks.cpu_use import cpu_spent
from benchmarks.cpu_use import cpu_total
from benchmarks.targets import Figure
from benchmarks.targets import load_average
from benchmarks.targets import not_measured

HORIZON_MONTHS = 120
# The sweep the targets are set on, measured this many times (larger ones once): on the 2-core
# benchmark machines the engine alone took 1.05-1.32 s for it within minutes, and a sweep's time
# through the workers moved as much; five pairs find each one's best more often than three.
TARGET_POINTS = 1_000_000
REPEATS = 5
DEMO_SCENARIO = "8x H100 training cluster"
# Small sweeps timed from start to done on each warmed worker (the best of each is not what a
# person waits for: the median of this many).
SMALL_SWEEP_POINTS = (100, 10_000)
SMALL_SWEEP_RUNS = 15
# A small sweep each fresh worker computes before the measured one: 8 chunks, so that every
# pool process takes some.
WARM_UP_POINTS = 32_800
WARM_UP_CHUNK_POINTS = WARM_UP_POINTS // 8
# The longest the chunks computed alone may take, warm-up included.
CHUNKS_ALONE_TIMEOUT_S = 120
# Each worker process computes on one core: BLAS threads on top would oversubscribe the
# machine (set by benchmarks/__main__.py before NumPy is imported).
ONE_BLAS_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


@dataclass(frozen=True)
class CeleryMeasurement:
    """One sweep through Celery: its wall time, the engine alone on its points, worker memory."""

    points: int
    processes: int
    celery_seconds: float
    engine_seconds: float
    worker_peak_rss_mb: float
    load: float  # 1-minute load average when the run ended
    # Median milliseconds from start to done of small sweeps on the same worker, by points.
    small_sweep_ms: dict[int, float]
    # The same chunks computed as the worker computes them, with nothing of the service around
    # them, in as many forked processes (measured for the target sweep only).
    chunks_alone_seconds: float | None = None
    # The median over the repeats of the engine's time just before each sweep over the sweep's.
    median_ratio: float | None = None
    # Where the CPU went of the sweep with the median CPU over the engine alone's
    # (``benchmarks.cpu_use.cpu_line``), and of how many sweeps that is the median.
    cpu: str | None = None
    cpu_sweeps: int = 0
    # The engine alone on the same chunks in as many forked processes (2 or more): the machine's
    # ceiling for any service around it, as the processes slow each other's engine.
    engine_processes_seconds: float | None = None

    def line(self) -> str:
        """A printable row (and one for the small sweeps, when measured)."""
        label = f"celery, {self.processes} worker process{'es' if self.processes > 1 else ''}"
        throughput = f"{self.points / self.celery_seconds:>13,.0f}/s"
        engine = (f"{self.engine_seconds / self.celery_seconds:.2f}x the engine alone on one core, "
                  f"{self.points / self.engine_seconds:,.0f}/s")
        line = (f"{label:<42} {self.points:>10,d} {self.celery_seconds:9.3f} s {throughput} "
                f"{self.worker_peak_rss_mb:6.0f} MB RSS ({engine}; load {self.load:.1f})")
        if self.median_ratio:
            line += (f"\n{label:<42} each sweep against the engine alone just before it, median of "
                     f"{REPEATS}: {self.median_ratio:.2f}x")
        if self.cpu:
            median = f" (median of {self.cpu_sweeps})" if self.cpu_sweeps > 1 else ""
            line += f"\n{label:<42} CPU of the sweep{median}: {self.cpu}"
        if self.engine_processes_seconds and self.processes > 1:
            ceiling = self.engine_seconds / self.engine_processes_seconds
            line += (f"\n{label:<42} the engine alone in {self.processes} forked processes (nothing "
                     f"else): {ceiling:.2f}x the engine alone on one core")
        if self.chunks_alone_seconds:
            line += (f"\n{label:<42} the same chunks computed alone (table, part, tally; no Celery, "
                     f"database or storage): {self.engine_seconds / self.chunks_alone_seconds:.2f}x "
                     f"the engine alone on one core")
        if self.small_sweep_ms:
            waits = ", ".join(f"{points:,} points {ms:.1f} ms" for points, ms in self.small_sweep_ms.items())
            line += f"\n{label:<42} a sweep from start to done, median of {SMALL_SWEEP_RUNS}: {waits}"
        return line


def celery_unavailable_reason() -> str | None:
    """Why the Celery measurement cannot run here, or None when it can."""
    if not os.environ.get("REDIS_URL"):
        return "set REDIS_URL (and DATABASE_URL to PostgreSQL) to measure sweeps through Celery"
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        return "set DATABASE_URL to a PostgreSQL database: workers write chunks concurrently"
    return None


def measure_celery_sweeps(runs: Sequence[tuple[int, int]]) -> list[CeleryMeasurement]:
    """Time sweeps through workers: one per (points, worker processes) pair, in that order.

    Parameters
    ----------
    runs : sequence of (int, int)
        Grid points of the sweep (a power of ten of at least 100) and the worker processes
        (``celery worker --concurrency``) that compute it.
    """
    scenario = _bench_scenario()
    return [_celery_measurement(scenario, size, count) for size, count in runs]


def celery_figures(measurements: Sequence[CeleryMeasurement]) -> list[Figure]:
    """The targets: 1,000,000 points on 2 workers at least 1.5x the engine alone on one core, on
    1 worker at least 0.8x; the largest run's peak worker memory the same as 1,000,000 points'
    on as many processes (within 10 %)."""
    figures = []
    for processes, least in ((1, 0.8), (2, 1.5)):
        run = next((m for m in measurements if m.points == TARGET_POINTS and m.processes == processes), None)
        plural = "es" if processes > 1 else ""
        name = f"{TARGET_POINTS:,} points through Celery, {processes} worker process{plural}"
        if run is None:
            figures.append(not_measured(name, f">= {least}x", "not in this run"))
            continue
        rates = f"{run.points / run.celery_seconds:,.0f}/s vs engine {run.points / run.engine_seconds:,.0f}/s"
        figures.append(Figure(
            name, rates,
            f">= {least}x the engine on one core", ratio=run.engine_seconds / run.celery_seconds,
            at_least=least, load=run.load))
    largest = max(measurements, key=lambda m: m.points, default=None)
    base = next((m for m in measurements if largest and m.points == TARGET_POINTS
                 and m.processes == largest.processes), None)
    name = f"peak worker memory, 10,000,000 vs {TARGET_POINTS:,} points"
    if largest is None or base is None or largest is base:
        figures.append(not_measured(name, "flat (<= 1.1x)", "no larger sweep in this run"))
    else:
        figures.append(Figure(
            f"peak worker memory, {largest.points:,} vs {TARGET_POINTS:,} points ({largest.processes} proc.)",
            f"{largest.worker_peak_rss_mb:,.0f} MB vs {base.worker_peak_rss_mb:,.0f} MB", "flat (<= 1.1x)",
            ratio=largest.worker_peak_rss_mb / base.worker_peak_rss_mb, at_most=1.1, load=largest.load))
    return figures


def sweep_spec(points: int) -> dict:
    """Utilisation x electricity price with ``points`` grid points, at a 120-month horizon."""
    across = 10 ** (round(math.log10(points)) // 2)
    return {"axes": [
        {"path": "workload.utilisation", "low": 0.2, "high": 1.0, "count": across},
        {"path": "facility.electricity_usd_per_kwh", "low": 0.05, "high": 0.35, "count": points // across},
        {"path": "finance.horizon_months", "values": [HORIZON_MONTHS]},
    ]}


def _bench_scenario():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    # With DEBUG on, Django keeps every query (each chunk's Parquet bytes among them) in memory.
    os.environ.setdefault("DJANGO_DEBUG", "false")
    import django

    django.setup()
    from django.core.management import call_command

    from catalog.services import catalog_load
    from tco.demo import load_demo
    from tco.models import Scenario

    call_command("migrate", verbosity=0)
    catalog_load()
    load_demo()
    return Scenario.objects.get(name=DEMO_SCENARIO)


def _engine_seconds(scenario, points: int) -> tuple[float, float]:
    """The engine alone on the sweep's points, in the run's chunks (as the service cuts them for
    the live workers) and the engine's blocks (as a worker evaluates a chunk), one after the
    other: its wall and CPU seconds, neither counting the scenario's inputs read beforehand."""
    import costmodel as engine

    plan = _sweep_plan(scenario, points)
    overrides = plan.spec.overrides(*plan.bounds(0))
    engine.evaluate(engine.with_overrides(plan.inputs, overrides), detail=False)  # loads the kernel
    start_time, start_cpu = time.perf_counter(), time.process_time()
    for index in range(-(-points // plan.chunk_size)):
        _engine_on_chunk(plan, index)
    return time.perf_counter() - start_time, time.process_time() - start_cpu


def _engine_on_chunk(plan, index: int) -> None:
    """The engine alone on chunk ``index``'s points, block by block, its figures dropped."""
    import costmodel as engine

    for _ in engine.evaluate_points(plan.inputs, plan.spec.overrides(*plan.bounds(index))):
        pass


def _sweep_plan(scenario, points: int):
    """The benchmark sweep of ``points`` as a run's chunks need it, cut as the service cuts it
    for the live workers."""
    from tco.runs.chunks import ChunkPlan
    from tco.runs.limits import chunk_points_for
    from tco.runs.specs import parse_sweep_spec
    from tco.services.engine_inputs import engine_case
    from tco.services.sweep_workers import sweep_worker_processes

    inputs = engine_case(scenario).inputs
    spec = parse_sweep_spec(sweep_spec(points), inputs, max_points=points)
    size = chunk_points_for(len(inputs.rent), points=points, workers=sweep_worker_processes())
    return ChunkPlan(inputs, spec, None, size, points)


def _chunks_alone_seconds(scenario, points: int, processes: int, *, engine_only: bool = False) -> float:
    """The sweep's chunks computed as a worker computes them (engine, table, part, tally:
    tco/runs/chunks.py) but with no Celery, database or storage, in ``processes`` forked
    processes taking every ``processes``-th chunk: what the workers would deliver if the
    service around the computation cost nothing. Like a pool process, each process has
    computed a chunk before it is timed. ``engine_only``: the engine alone on those chunks
    (no table, part or tally)."""
    import multiprocessing

    from django.db import connection

    plan = _sweep_plan(scenario, points)
    indexes = range(-(-points // plan.chunk_size))
    # As a worker decides (tco/runs/worker_steps.py): a spare core encodes the parts.
    alongside = processes < len(os.sched_getaffinity(0))
    connection.close()  # a forked process must not share this one's connection
    context = multiprocessing.get_context("fork")
    # Passed by each process and this one: once warmed up, and once its chunks are done.
    warm, done = context.Barrier(processes + 1), context.Barrier(processes + 1)
    computing = [context.Process(target=_compute_chunks,
                                 args=(plan, indexes[first::processes], alongside, engine_only, warm, done))
                 for first in range(processes)]
    for process in computing:
        process.start()
    warm.wait(timeout=CHUNKS_ALONE_TIMEOUT_S)
    start_time = time.perf_counter()
    done.wait(timeout=CHUNKS_ALONE_TIMEOUT_S)
    elapsed = time.perf_counter() - start_time
    for process in computing:
        process.join()
    if any(process.exitcode for process in computing):
        raise RuntimeError("computing the chunks alone failed; see the error above")
    return elapsed


def _compute_chunks(plan, indexes: range, alongside: bool, engine_only: bool, warm, done) -> None:
    from tco.runs.chunks import chunk_table
    from tco.runs.results import PartEncoder

    def compute(index: int) -> None:
        if engine_only:
            _engine_on_chunk(plan, index)
            return
        tally = plan.tally()
        with PartEncoder(alongside=alongside) as part:
            chunk_table(plan, index, part, tally)
            part.finish()
        tally.to_json()

    compute(indexes[0])  # as a pool process has computed chunks before
    warm.wait()
    for index in indexes:
        compute(index)
    done.wait()


def _celery_measurement(scenario, points: int, processes: int) -> CeleryMeasurement:
    """The best of ``REPEATS`` sweeps of ``points`` on one fresh worker, against the best of as
    many runs of the engine alone, each timed just before a sweep: on a shared machine the
    engine's rate drifts by 10-20 % within a minute, and figures taken apart would measure it."""
    from benchmarks.worker_process import WorkerProcess
    from config.celery_app import app
    from tco.runs.limits import MAX_RUN_POINTS

    app.control.purge()
    passed_on = ("DJANGO_SETTINGS_MODULE", "DJANGO_DEBUG", "DATABASE_URL", "REDIS_URL", *ONE_BLAS_THREAD)
    # The worker logs each task to its file (var/worker-*.log): where a run's time went.
    worker = WorkerProcess(concurrency=processes, env={
        **{name: os.environ[name] for name in passed_on}, "DJANGO_LOG_LEVEL": "INFO"}).start()
    celery_seconds, engine_seconds, alone_seconds, engines_seconds = [], [], [], []
    cpu_lines: list[tuple[float, str]] = []  # (the sweep's CPU over the engine's, where it went)
    try:
        # A worker serves many runs: the first chunks of a fresh process (its pool processes
        # still starting, its first database connection) are not what a run costs.
        _run_to_end(scenario, sweep_spec(WARM_UP_POINTS), chunk_size=WARM_UP_CHUNK_POINTS)
        for _ in range(REPEATS if points <= TARGET_POINTS else 1):
            engine_wall, engine_cpu = _engine_seconds(scenario, points)
            engine_seconds.append(engine_wall)
            if points == TARGET_POINTS:
                alone_seconds.append(_chunks_alone_seconds(scenario, points, processes))
                if processes > 1:
                    engines_seconds.append(
                        _chunks_alone_seconds(scenario, points, processes, engine_only=True))
            before = cpu_snapshot(worker.process.pid)
            start_time = time.perf_counter()
            run = _run_to_end(scenario, sweep_spec(points), max_points=max(points, MAX_RUN_POINTS))
            celery_seconds.append(time.perf_counter() - start_time)
            spent = cpu_spent(before, cpu_snapshot(worker.process.pid))
            if spent is not None:
                cpu_lines.append((cpu_total(spent) / engine_cpu, cpu_line(spent, engine_cpu)))
            run.delete()
        peak_mb = _peak_rss_mb(worker.process.pid)
        small = {size: _start_to_done_ms(scenario, size) for size in SMALL_SWEEP_POINTS} if (
            points == TARGET_POINTS) else {}
    finally:
        worker.stop()
    ratios = [engine / celery for engine, celery in zip(engine_seconds, celery_seconds, strict=True)]
    return CeleryMeasurement(points, processes, min(celery_seconds), min(engine_seconds), peak_mb,
                             load_average(), small, min(alone_seconds, default=None),
                             statistics.median(ratios) if len(ratios) > 1 else None,
                             sorted(cpu_lines)[len(cpu_lines) // 2][1] if cpu_lines else None,
                             len(cpu_lines), min(engines_seconds, default=None))


def _start_to_done_ms(scenario, points: int) -> float:
    """The median milliseconds from a sweep's start to its client seeing it done."""
    waits = []
    for _ in range(SMALL_SWEEP_RUNS):
        start_time = time.perf_counter()
        run = _run_to_end(scenario, sweep_spec(points))
        waits.append(1000 * (time.perf_counter() - start_time))
        run.delete()
    return statistics.median(waits)


def _run_to_end(scenario, spec: dict, **options):
    """Start a sweep and wait for it to end as ``run_sweep`` does (woken by the run's changes,
    not polling: the client shares the cores); the run, DONE (RuntimeError otherwise)."""
    from tco.models import RunKind
    from tco.models import RunStatus
    from tco.services.run_waits import sweep_run_wait
    from tco.services.runs import sweep_run_start

    run = sweep_run_wait(sweep_run_start(scenario=scenario, kind=RunKind.SWEEP, spec=spec, **options))
    if run.status != RunStatus.DONE:
        raise RuntimeError(f"run {run.pk} ended {run.status}: {run.error}")
    return run


def _peak_rss_mb(process_group: int) -> float:
    """The largest peak resident memory (VmHWM) of any process in the worker's group [MB]."""
    peaks = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == process_group:  # field 5 of stat: the process group id
                status = (stat.parent / "status").read_text()
                peaks.append(int(next(line.split()[1] for line in status.splitlines()
                                      if line.startswith("VmHWM:"))) / 1024)
        except (OSError, IndexError, StopIteration):
            continue  # the process ended while we looked
    return max(peaks)


def main() -> None:
    """``python -m benchmarks.celery_sweeps [POINTS ...]``: only these measurements."""
    import sys

    for variable in (*ONE_BLAS_THREAD, "NUMBA_NUM_THREADS"):
        os.environ.setdefault(variable, "1")
    reason = celery_unavailable_reason()
    if reason:
        raise SystemExit(f"celery sweeps: not measured ({reason})")
    like_a_worker()
    sizes = tuple(int(text.replace("_", "")) for text in sys.argv[1:]) or (TARGET_POINTS,)
    for measurement in measure_celery_sweeps([(size, count) for count in (1, 2) for size in sizes]):
        print(measurement.line(), flush=True)


if __name__ == "__main__":
    main()
