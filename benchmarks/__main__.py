"""Throughput and memory: ``python -m benchmarks [--repeats N]`` (run from the project root).

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

import argparse  # noqa: E402

from benchmarks import plan as plan_bench  # noqa: E402

# 10^7 points shows that worker memory does not grow with the run.
CELERY_SWEEP_POINTS = (100_000, 1_000_000, 10_000_000)
CELERY_WORKER_PROCESSES = (1, 2)


def main() -> None:
    """Print every measurement."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of each measurement (default 3)")
    parser.add_argument(
        "--engine-only", action="store_true", help="only the engine: skip HTTP, Celery sweeps and plans"
    )
    options = parser.parse_args()

    from benchmarks.engine import engine_lines

    for line in engine_lines(options.repeats):
        print(line, flush=True)
    if not options.engine_only:
        from benchmarks.http_load import http_lines

        for line in http_lines():
            print(line, flush=True)
        print_celery_sweeps()
        plan_bench.main()
        print_page_latencies()


def print_page_latencies() -> None:
    """The scenario page and /healthz, cold and warm (benchmarks/pages.py)."""
    from benchmarks.pages import print_pages

    print_pages()


def print_celery_sweeps() -> None:
    """Sweeps end to end through Celery with 1 and 2 worker processes (needs Redis, PostgreSQL)."""
    from benchmarks.celery_sweeps import celery_unavailable_reason
    from benchmarks.celery_sweeps import measure_celery_sweeps

    reason = celery_unavailable_reason()
    if reason:
        print(f"celery sweeps: not measured ({reason})")
        return
    for measurement in measure_celery_sweeps(CELERY_SWEEP_POINTS, CELERY_WORKER_PROCESSES):
        print(measurement.line())


if __name__ == "__main__":
    main()
