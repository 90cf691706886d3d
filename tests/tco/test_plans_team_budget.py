"""A team's procurement plans draw within the team's places on the sweeps queue (issue 25's fair
queues): its plans and sweeps together have ``chunks_in_flight`` = 4 chunks queued, a plan at
most 2, so starting many plans does not flood the workers; the plans keep one place while the
team's sweeps hold all four, so a plan always moves on.

Tasks go to Redis and wait there (no worker): what a commit would send is run by hand, and what
was sent is read from the draw chunks each feed claims (``queued``).
"""
from __future__ import annotations

import pytest
import redis
from django.conf import settings

from core.queues import Queue
from tco.models import PlanDrawChunk
from tco.models import PlanStatus
from tco.models import RunKind
from tco.services.plans import plan_cancel
from tco.services.plans import plan_create
from tco.services.plans import plan_draws_compute
from tco.services.plans import plan_solve
from tco.services.runs import sweep_run_start
from tests.tco.test_plans_worker import SPEC  # 1,000 draws: 4 chunks of 250
from tests.tco.test_runs_worker import PRICE


@pytest.fixture
def broker(live_celery):
    queues = redis.Redis.from_url(settings.REDIS_URL)
    queues.delete(*Queue)
    yield
    queues.delete(*Queue)


def committed(capture, action):
    """Run ``action`` and then what its commit would run (the sends those add wait in Redis)."""
    with capture() as callbacks:
        result = action()
    for callback in callbacks:
        callback()
    return result


def drawing_plan(scenario, capture, name: str):
    plan = plan_create(scenario=scenario, name=name, spec=SPEC)  # its solve is sent on commit
    committed(capture, lambda: plan_solve(plan_id=plan.pk))
    plan.refresh_from_db()
    assert plan.status == PlanStatus.DRAWING and plan.chunks_total == 4
    return plan


def sent(*plans) -> list[int]:
    """How many draw chunks of each plan are sent and not done."""
    return [PlanDrawChunk.objects.filter(plan=plan, queued=True, done=False).count() for plan in plans]


@pytest.mark.django_db
def test_three_plans_of_a_team_share_its_four_places(run_scenario, broker,
                                                     django_capture_on_commit_callbacks):
    first = drawing_plan(run_scenario, django_capture_on_commit_callbacks, "first")
    assert sent(first) == [2]  # a plan's own limit
    second = drawing_plan(run_scenario, django_capture_on_commit_callbacks, "second")
    third = drawing_plan(run_scenario, django_capture_on_commit_callbacks, "third")
    assert sent(first, second, third) == [2, 2, 0]  # 4 places: the third waits (it was 2 + 2 + 2)

    # A chunk of the first finishes: its place goes to the plan with fewest in flight, the third.
    committed(django_capture_on_commit_callbacks, lambda: plan_draws_compute(plan_id=first.pk, index=0))
    assert sent(first, second, third) == [1, 2, 1]

    # Cancelled, the second's two places go to the others (2 each at most).
    committed(django_capture_on_commit_callbacks, lambda: plan_cancel(plan=second))
    assert sent(first, third) == [2, 2]


@pytest.mark.django_db
def test_a_plan_keeps_one_place_while_the_teams_sweeps_hold_all_four(run_scenario, broker,
                                                                      django_capture_on_commit_callbacks):
    spec = {"axes": [{"path": PRICE, "low": 20, "high": 100, "count": 12_000}]}
    run = committed(django_capture_on_commit_callbacks, lambda: sweep_run_start(
        scenario=run_scenario, kind=RunKind.SWEEP, spec=spec, chunk_size=1_000))
    run.refresh_from_db()
    assert run.chunks_queued - run.chunks_done == 4  # the team's four places

    first = drawing_plan(run_scenario, django_capture_on_commit_callbacks, "first")
    second = drawing_plan(run_scenario, django_capture_on_commit_callbacks, "second")
    assert sent(first, second) == [1, 0]  # one place for all the team's plans
    committed(django_capture_on_commit_callbacks, lambda: plan_draws_compute(plan_id=first.pk, index=0))
    assert sent(first, second) == [0, 1]  # the plans take turns
