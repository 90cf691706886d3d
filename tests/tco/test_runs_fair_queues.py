"""Teams share the sweeps queue fairly: one team's big runs do not starve another team's small
one (issue 25, finding 7).

A team has at most ``chunks_in_flight`` chunks queued over all its runs, and each finished
chunk queues the next of the team's runs in turn; the queue is first in, first out. So when
team A has three 12-chunk sweeps going and team B starts a 2-chunk sweep, B's chunks wait
behind at most A's 4 queued chunks, not behind 3 x 4 = 12 (one run's window each, as before).

One worker process computing one chunk at a time makes the order the queue's order.
"""
from __future__ import annotations

import pytest

from tco.models import RunKind
from tco.models import RunStatus
from tco.models import SweepChunk
from tco.models import SweepRun
from tco.runs.limits import chunks_in_flight
from tco.services.runs import sweep_run_start
from tco.services.scenarios import scenario_save
from tests.tco.test_runs_worker import PRICE
from tests.tco.test_runs_worker import finished
from tests.tco.test_runs_worker import start_worker  # noqa: F401
from tests.teams.members import team

# Chunks queued at once per run and per team, with the default 2 sweeps worker processes: 4.
PLACES = chunks_in_flight(2)

pytestmark = pytest.mark.worker

CHUNK_POINTS = 1_000


def sweep(scenario, chunks: int) -> SweepRun:
    spec = {"axes": [{"path": PRICE, "low": 20, "high": 100, "count": chunks * CHUNK_POINTS}]}
    return sweep_run_start(scenario=scenario, kind=RunKind.SWEEP, spec=spec, chunk_size=CHUNK_POINTS)


def copy_for_team(scenario, slug: str):
    """The same scenario (same rent option) saved in another team."""
    options = list(scenario.rent_options.all())
    for option in options:
        option.pk = None
    scenario.pk = None
    scenario.team = team(slug)
    return scenario_save(scenario=scenario, rent_options=options)


def claimed_in_order(runs: list[SweepRun]) -> list[int]:
    """The run of each chunk, in the order a worker began them."""
    chunks = SweepChunk.objects.filter(run__in=runs).order_by("claimed_at")
    return list(chunks.values_list("run_id", flat=True))


def test_a_small_sweep_of_one_team_finishes_while_another_teams_big_sweeps_run(
        start_worker, run_scenario):  # noqa: F811
    big = [sweep(run_scenario, chunks=12) for _ in range(3)]
    queued = {run.pk: run.chunks_queued for run in SweepRun.objects.filter(pk__in=[r.pk for r in big])}
    assert sum(queued.values()) == PLACES  # 4 of team A's 36 chunks, not 12
    assert sorted(queued.values()) == [0, 0, 4]  # the first run's; the others take turns later

    small = sweep(copy_for_team(run_scenario, "team-b"), chunks=2)
    assert small.chunks_queued == 2  # team B's own places: it waits for no one of team A's
    start_worker(concurrency=2)  # as many processes as the runs were cut for: the places stay 4

    small = finished(small)
    assert small.status == RunStatus.DONE
    big = [finished(run) for run in big]
    assert all(run.status == RunStatus.DONE for run in big)

    # Read once every run is done: chunks of 1,000 points take milliseconds, so team A's runs
    # go on while the polling notices that B's is done.
    order = claimed_in_order([*big, small])
    last_of_b = max(i for i, run_id in enumerate(order) if run_id == small.pk)
    ahead_of_b = last_of_b + 1 - small.chunks_total
    assert ahead_of_b <= PLACES  # B waited for team A's queued chunks only

    # Team A's runs took turns: each of the three began a chunk among A's first 6.
    assert {run.pk for run in big} <= set([run_id for run_id in order if run_id != small.pk][:6]), order
    # B's run finished before any of team A's (read from the rows, not raced by the polling:
    # chunks of 1,000 points take milliseconds).
    assert small.finished_at < min(run.finished_at for run in big)
