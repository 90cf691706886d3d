"""Latency of the pages people wait for: a scenario's admin page and /healthz.

Called by ``python -m benchmarks``. It serves requests in process through Django's test client
(no network, no server in the way) against the configured database, which it migrates and
fills with the catalog and the demo scenarios (both idempotent). The scenario page is timed
cold (its cached evaluation dropped before each request: what every load cost before the
cache) and warm; /healthz cold (the kept worker status dropped, so it pings for a second) and
warm.
"""
from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from benchmarks.targets import Figure
from benchmarks.targets import not_measured

DEMO_SCENARIO = "8x H100 training cluster"
BENCH_USER = "bench-pages"
COLD_REQUESTS = 5
WARM_REQUESTS = 30


@dataclass(frozen=True)
class Latency:
    """Wall and CPU time of one kind of request.

    On a shared machine the wall time includes waiting for a core; the CPU time of this
    process (the request is served in it, single-threaded) is the load-independent part.
    """

    label: str
    seconds: list[float]
    cpu_seconds: list[float]

    def percentile_ms(self, share: int) -> float:
        """The wall time below which ``share`` percent of the requests finished (nearest rank) [ms]."""
        if share == 50:
            return statistics.median(self.seconds) * 1000
        ordered = sorted(self.seconds)
        return ordered[min(len(ordered) - 1, round(share / 100 * (len(ordered) - 1)))] * 1000

    def line(self) -> str:
        """A printable row: requests, wall p50 and p95, CPU p50, in milliseconds."""
        return (f"{self.label:<42} {len(self.seconds):>3,d} requests  wall p50 "
                f"{self.percentile_ms(50):7.1f} ms  p95 {self.percentile_ms(95):7.1f} ms  "
                f"CPU p50 {statistics.median(self.cpu_seconds) * 1000:7.1f} ms")


def _timed(label: str, count: int, request: Callable[[], int], before: Callable[[], None]) -> Latency:
    seconds, cpu_seconds = [], []
    for _ in range(count):
        before()
        started, cpu_started = time.perf_counter(), time.process_time()
        status = request()
        seconds.append(time.perf_counter() - started)
        cpu_seconds.append(time.process_time() - cpu_started)
        if status != 200:
            raise RuntimeError(f"{label}: HTTP {status}")
    return Latency(label, seconds, cpu_seconds)


def measure_pages() -> list[Latency]:
    """The scenario page and /healthz, cold and warm."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    # A log line per request would bury the figures this prints.
    os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from django.core.management import call_command
    from django.test import Client

    from core.health import WORKER_STATUS_KEY
    from tco.admin.result import PAGE
    from tco.models import Scenario
    from tco.services.figures import figures_key

    call_command("migrate", verbosity=0)
    call_command("load_catalog", verbosity=0)
    call_command("load_demo", verbosity=0)
    scenario = Scenario.objects.filter(name=DEMO_SCENARIO).order_by("-pk").first()
    user = get_user_model().objects.filter(username=BENCH_USER).first() or \
        get_user_model().objects.create_superuser(BENCH_USER, "bench@example.com", None)
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    page = f"/admin/tco/scenario/{scenario.pk}/change/"

    def get(url: str) -> Callable[[], int]:
        return lambda: client.get(url).status_code

    def nothing() -> None:
        return None

    return [
        _timed("scenario page, cold (evaluates and draws)", COLD_REQUESTS, get(page),
               lambda: cache.delete(figures_key(scenario, PAGE))),
        _timed("scenario page, warm (cached evaluation)", WARM_REQUESTS, get(page), nothing),
        _timed("/healthz, cold (pings workers)", COLD_REQUESTS, get("/healthz"),
               lambda: cache.delete(WORKER_STATUS_KEY)),
        _timed("/healthz, warm (kept worker status)", WARM_REQUESTS, get("/healthz"), nothing),
    ]


def print_pages() -> list[Figure]:
    """Print the page latencies, or why they could not be measured; the warm page's figure."""
    name = "scenario page, warm (cached evaluation)"
    try:
        latencies = measure_pages()
    except Exception as exc:  # the engine figures above still stand
        print(f"page latency: not measured ({type(exc).__name__}: {exc})")
        return [not_measured(name, "", f"{type(exc).__name__}: {exc}")]
    for latency in latencies:
        print(latency.line())
    warm = next(latency for latency in latencies if latency.label == name)
    return [Figure(name, f"p50 {warm.percentile_ms(50):,.1f} ms, p95 {warm.percentile_ms(95):,.1f} ms")]


if __name__ == "__main__":
    print_pages()
