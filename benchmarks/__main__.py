"""Throughput and memory: ``python -m benchmarks [--repeats N] [--quick]`` (from the project root).

Sweeps through Celery are measured when REDIS_URL and DATABASE_URL (PostgreSQL) are set, e.g.
``REDIS_URL=redis://127.0.0.1:6379/9 DATABASE_URL=postgres://postgres@127.0.0.1/tco_bench``:
a Redis database of its own (the run purges its queues) and a database it may migrate and fill.
The last lines are the issue's targets as one table (figure, target, ratio, met, load average).

A thin driver: each area keeps its measurements in its own module (the engine in
``benchmarks.engine``, the evaluate endpoint on gunicorn in ``benchmarks.http_load``,
sweeps through Celery in ``benchmarks.celery_sweeps``, procurement plans in
``benchmarks.plan``) and is called from ``main`` below. Figures are per
core; the machine's other load moves them, so the engine's measurements are
repeated and printed as their best and their median.
"""

from __future__ import annotations

import os

# One BLAS thread, set before NumPy loads OpenBLAS: the figures are per core, and extra BLAS
# threads only slow the engine's small matrix products down (measured: 59,000 vs 43,000
# points/s). Celery worker processes get the same setting (benchmarks/celery_sweeps.py).
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
# A log line per request or task would bury the figures (the page and sweep measurements run
# Django in this process).
os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")

import argparse  # noqa: E402
import time  # noqa: E402

from benchmarks import like_a_worker  # noqa: E402
from benchmarks import plan as plan_bench  # noqa: E402
from benchmarks.targets import Figure  # noqa: E402
from benchmarks.targets import load_average  # noqa: E402
from benchmarks.targets import not_measured  # noqa: E402
from benchmarks.targets import table  # noqa: E402

# (points, worker processes) of each sweep through Celery: the targets' 1,000,000 points on 1
# and 2 processes, and 10^7 on 2 to show that worker memory does not grow with the run.
CELERY_RUNS = ((1_000_000, 1), (1_000_000, 2), (10_000_000, 2))
# --quick: no 10^7 run (memory flatness is then not measured).
CELERY_RUNS_QUICK = ((1_000_000, 1), (1_000_000, 2))


def main() -> None:
    """Print every measurement, then the targets' table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of each measurement (default 3)")
    parser.add_argument(
        "--engine-only", action="store_true", help="only the engine: skip HTTP, Celery sweeps and plans"
    )
    parser.add_argument("--quick", action="store_true",
                        help="one run of each engine measurement, no 10^7-point sweep, no plans")
    options = parser.parse_args()
    repeats = 1 if options.quick else options.repeats
    like_a_worker()
    started = time.perf_counter()
    print(f"load average at start: {load_average():.1f} (1 min) on {os.cpu_count()} cores", flush=True)

    from benchmarks.engine import engine_lines

    lines, figures = engine_lines(repeats)
    for line in lines:
        print(line, flush=True)
    from benchmarks.strategies import strategy_lines

    for line in strategy_lines(repeats):
        print(line, flush=True)
    if not options.engine_only:
        figures += print_http_load()
        figures += print_celery_sweeps(CELERY_RUNS_QUICK if options.quick else CELERY_RUNS)
        if not options.quick:
            plan_bench.main()
        figures += print_page_latencies()
    print(f"\ntargets (issue 30), {time.perf_counter() - started:,.0f} s in all; "
          "load = 1-minute load average when measured:")
    for line in table(figures):
        print(line, flush=True)


def print_http_load() -> list[Figure]:
    """The evaluate endpoint and the API root under 8 clients on gunicorn (benchmarks/http_load.py)."""
    from benchmarks.http_load import http_lines

    try:
        lines, figures = http_lines()
    except Exception as exc:  # the other areas' figures still stand
        reason = f"{type(exc).__name__}: {exc}"
        print(f"HTTP load: not measured ({reason})")
        return [not_measured("evaluate endpoint vs API root, 8 clients", ">= 50 %", reason)]
    for line in lines:
        print(line, flush=True)
    return figures


def print_page_latencies() -> list[Figure]:
    """The scenario page and /healthz, cold and warm (benchmarks/pages.py)."""
    from benchmarks.pages import print_pages

    return print_pages()


def print_celery_sweeps(runs: tuple[tuple[int, int], ...]) -> list[Figure]:
    """Sweeps end to end through Celery (needs Redis, PostgreSQL); their target figures."""
    from benchmarks.celery_sweeps import celery_figures
    from benchmarks.celery_sweeps import celery_unavailable_reason
    from benchmarks.celery_sweeps import measure_celery_sweeps

    reason = celery_unavailable_reason()
    if reason:
        print(f"celery sweeps: not measured ({reason})")
        return [not_measured("1,000,000 points through Celery", ">= 0.8x (1 process), >= 1.5x (2)", reason)]
    try:
        measurements = measure_celery_sweeps(runs)
    except Exception as exc:  # a run that failed says why; the other areas' figures still stand
        print(f"celery sweeps: not measured ({type(exc).__name__}: {exc})")
        return [not_measured("1,000,000 points through Celery", ">= 0.8x (1 process), >= 1.5x (2)",
                             f"{type(exc).__name__}: {exc}")]
    for measurement in measurements:
        print(measurement.line(), flush=True)
    return celery_figures(measurements)


if __name__ == "__main__":
    main()
