"""Procurement plans: check and save a spec, solve it on a worker, re-evaluate it over draws.

Each step that must happen once is claimed with a conditional UPDATE (as runs are, see
tco/services/runs.py), so a redelivered task changes nothing twice.
"""
from __future__ import annotations

import secrets
from datetime import datetime
from functools import partial
from typing import Any

import numpy as np
from django.db import transaction
from django.db.models import Count
from django.db.models import F
from django.db.models import Sum
from django.utils import timezone

from core import jobs
from core.queues import Queue
from core.signals import job_finished_send
from costmodel.inputs import InputError
from costmodel.plan import PlanInputs
from costmodel.plan import make_plan
from costmodel.plan.solve import SolveTimeLimit
from costmodel.plan.spec import plan_inputs
from costmodel.plan.uncertainty import cases_of
from costmodel.plan.uncertainty import reevaluate
from costmodel.plan.uncertainty import summarise
from costmodel.plan.validation import validate_plan
from sites.plan_sites import cooling_media
from sites.plan_sites import with_site_rows
from tco.errors import FieldError
from tco.models import PlanDrawChunk
from tco.models import PlanStatus
from tco.models import ProcurementPlan
from tco.models import RunStatus
from tco.models import Scenario
from tco.models import SweepRun
from tco.runs.distributions import Distribution
from tco.runs.distributions import distribution_from_json
from tco.runs.errors import RunSpecError
from tco.services.engine_inputs import ScenarioInputError
from tco.services.engine_inputs import reporting_currency
from tco.services.evaluation import scenario_check
from tco.services.strategies import scenario_market
from tco.services.sweep_workers import chunk_places

DRAWS_PER_CHUNK = 250
# Draw chunks of one plan on the sweeps queue at once: each finished chunk sends the next, so
# other users' sweeps and plans interleave with a 100,000-draw plan instead of queueing behind
# its 400 chunks, and a cancel stops it within a few chunks. A team's plans together share its
# places on that queue with its sweeps (``chunk_places``), see ``_feed_team_draws``.
DRAW_CHUNKS_IN_FLIGHT = 2
MAX_DRAWS = 100_000
# A plan in one of these is under way: it may be cancelled.
ACTIVE_PLAN_STATUSES = (PlanStatus.PENDING, PlanStatus.SOLVING, PlanStatus.DRAWING)
MAX_SEED = 2**63 - 1
UNCERTAINTY_KEYS = {"draws", "seed", "growth_delta_per_month", "rent_price_factor"}
NO_CHANGE = {"growth_delta_per_month": 0.0, "rent_price_factor": 1.0}


class PlanSpecError(FieldError):
    """A spec that cannot be planned; ``field`` is its path inside the spec."""


def scenario_plan_inputs(scenario: Scenario, spec: Any) -> PlanInputs:
    """The plan's engine inputs from its spec and its scenario's catalog, facility and finance."""
    try:
        case = scenario_check(scenario=scenario, pinned=True)
    except ScenarioInputError as exc:
        raise PlanSpecError(f"scenario.{exc.field}", exc.message) from exc
    market = (scenario_market(scenario, reporting_currency(scenario))
              if isinstance(spec, dict) and {"term_structure", "next_generation"} & set(spec) else None)
    try:
        inputs = plan_inputs(with_site_rows(spec), case.inputs, system_name=scenario.system.name,
                             cooling_media=cooling_media(),
                             curve=None if market is None else market.terms,
                             next_generation=None if market is None else market.next_generation)
        validate_plan(inputs)
    except InputError as exc:
        if exc.path == "term_structure" and market is not None and market.missing:
            raise PlanSpecError(exc.path, market.missing) from exc
        raise PlanSpecError(exc.path, exc.message) from exc
    return inputs


def uncertainty_of(spec: dict[str, Any]) -> tuple[int, int, dict[str, Distribution | float]] | None:
    """(draws, seed, distributions) of a spec's uncertainty, None when it asks for none."""
    raw = spec.get("uncertainty")
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise PlanSpecError("uncertainty", "must be an object")
    unknown = set(raw) - UNCERTAINTY_KEYS
    if unknown:
        raise PlanSpecError(f"uncertainty.{sorted(unknown)[0]}", "is not an uncertainty setting")
    draws = raw.get("draws", 1000)
    if not isinstance(draws, int) or not 1 <= draws <= MAX_DRAWS:
        raise PlanSpecError("uncertainty.draws", f"must be a whole number from 1 to {MAX_DRAWS:,}")
    seed = raw.get("seed")
    if not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise PlanSpecError("uncertainty.seed", "must be a whole number from 0 to 2^63 - 1")
    distributions: dict[str, Distribution | float] = {}
    for name, fixed in NO_CHANGE.items():
        if name not in raw:
            distributions[name] = fixed
            continue
        try:
            distributions[name] = distribution_from_json(raw[name], f"uncertainty.{name}")
        except RunSpecError as exc:
            raise PlanSpecError(exc.field, exc.message) from exc
    return draws, seed, distributions


def plan_create(*, scenario: Scenario, name: str, spec: Any, created_by: Any = None) -> ProcurementPlan:
    """Check the spec, save the plan and queue its solve; ``PlanSpecError`` saves nothing."""
    if not isinstance(spec, dict):
        raise PlanSpecError("spec", "must be an object")
    spec = seeded(spec)
    scenario_plan_inputs(scenario, spec)
    uncertainty_of(spec)
    with transaction.atomic():
        plan = ProcurementPlan.objects.create(scenario=scenario, name=name, spec=spec, created_by=created_by,
                                              attempts=1, queued_at=timezone.now())
        transaction.on_commit(partial(_send_solve, plan.pk))
    return plan


def seeded(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec with a random seed for its uncertainty when it asks for draws and names none."""
    spec = dict(spec)
    if isinstance(spec.get("uncertainty"), dict) and spec["uncertainty"].get("seed") is None:
        spec["uncertainty"] = {**spec["uncertainty"], "seed": secrets.randbelow(MAX_SEED)}
    return spec


def plan_respec(*, plan: ProcurementPlan, name: str, spec: Any) -> bool:
    """Give an ended plan a new name and spec and solve it again; False while one is under way.

    The spec is checked as on create (``PlanSpecError`` changes nothing).
    """
    spec = seeded(spec)
    scenario_plan_inputs(plan.scenario, spec)
    uncertainty_of(spec)
    with transaction.atomic():
        ended = ProcurementPlan.objects.filter(pk=plan.pk, status__in=(PlanStatus.DONE, PlanStatus.FAILED))
        if not ended.update(name=name, spec=spec):
            plan.refresh_from_db()
            return False
        return plan_resolve(plan=plan)


def plan_resolve(*, plan: ProcurementPlan) -> bool:
    """Queue an ended plan's solve again (after its scenario changed); False while one is under way."""
    with transaction.atomic():
        ended = ProcurementPlan.objects.filter(
            pk=plan.pk, status__in=(PlanStatus.DONE, PlanStatus.FAILED, PlanStatus.CANCELLED))
        won = ended.update(
            status=PlanStatus.PENDING, result=None, uncertainty=None, error="", chunks_total=0, chunks_done=0,
            attempts=1, queued_at=timezone.now(), worker="", task_id="", started_at=None, finished_at=None)
        if won:
            PlanDrawChunk.objects.filter(plan=plan).delete()
            transaction.on_commit(partial(_send_solve, plan.pk))
    plan.refresh_from_db()
    return bool(won)


def plan_solve(*, plan_id: int) -> None:
    """Solve a queued plan; then queue its draws, or finish it."""
    queued = ProcurementPlan.objects.filter(pk=plan_id, status=PlanStatus.PENDING)
    if not queued.update(status=PlanStatus.SOLVING, started_at=timezone.now(), **jobs.claim_fields()):
        return
    plan = ProcurementPlan.objects.select_related("scenario").get(pk=plan_id)
    try:
        inputs = scenario_plan_inputs(plan.scenario, plan.spec)
        # Its money is in the scenario's reporting currency, as the scenario's own figures are.
        result = {**make_plan(inputs).to_json(), "currency": reporting_currency(plan.scenario)}
    except PlanSpecError as exc:
        jobs.fail(PLAN_JOBS, plan_id, f"{exc.field}: {exc.message}")
        return
    except SolveTimeLimit as exc:
        jobs.fail(PLAN_JOBS, plan_id, str(exc))
        return
    uncertainty = uncertainty_of(plan.spec)
    now = timezone.now()
    solving = ProcurementPlan.objects.filter(pk=plan_id, status=PlanStatus.SOLVING)  # not cancelled since
    with transaction.atomic():
        if uncertainty is None or not result["feasible"]:
            solving.update(status=PlanStatus.DONE, result=result, solved_at=now, finished_at=now)
            _finished(plan)
            return
        draws = uncertainty[0]
        starts = range(0, draws, DRAWS_PER_CHUNK)
        # Drawing is a new stage: its chunks get their own attempts.
        if not solving.update(status=PlanStatus.DRAWING, result=result, solved_at=now, draws_total=draws,
                              chunks_total=len(starts), attempts=1, queued_at=now):
            return
        PlanDrawChunk.objects.bulk_create(
            PlanDrawChunk(plan_id=plan_id, index=index, start=start, stop=min(draws, start + DRAWS_PER_CHUNK))
            for index, start in enumerate(starts))
        transaction.on_commit(partial(_feed_team_draws, plan.scenario.team_id))


def plan_draws_compute(*, plan_id: int, index: int) -> None:
    """Re-evaluate the plan and its baselines over one chunk of draws; the last chunk summarises."""
    chunk = (PlanDrawChunk.objects.select_related("plan__scenario")
             .filter(plan_id=plan_id, index=index).first())
    if chunk is None or chunk.done or chunk.plan.status != PlanStatus.DRAWING:
        return  # deleted, cancelled, or done by an earlier delivery
    plan = chunk.plan
    inputs = scenario_plan_inputs(plan.scenario, plan.spec)
    _, seed, distributions = uncertainty_of(plan.spec)
    growth, price = draw_chunk(distributions, seed, chunk.start, chunk.stop)
    cases = cases_of(inputs, plan.result)
    npv, _ = reevaluate(list(cases.values()), growth, price)
    with transaction.atomic():
        won = PlanDrawChunk.objects.filter(pk=chunk.pk, done=False).update(
            done=True, npv_usd={name: values.tolist() for name, values in zip(cases, npv, strict=True)})
        if won:
            ProcurementPlan.objects.filter(pk=plan_id).update(chunks_done=F("chunks_done") + 1,
                                                              queued_at=timezone.now())
            transaction.on_commit(partial(_feed_team_draws, plan.scenario.team_id))
    _finish_if_complete(plan_id)


def draw_chunk(
    distributions: dict[str, Distribution | float], seed: int, start: int, stop: int
) -> tuple[np.ndarray, np.ndarray]:
    """Demand growth deltas and rent price factors of draws ``start``..``stop - 1``.

    Chunks are ``DRAWS_PER_CHUNK`` draws, each from ``default_rng([seed, start])``, so a
    draw's values depend only on the seed and its index.
    """
    rng = np.random.default_rng([seed, start])
    values = []
    for name in NO_CHANGE:
        distribution = distributions[name]
        size = stop - start
        values.append(np.full(size, distribution) if isinstance(distribution, float)
                      else distribution.sample(rng, size))
    return values[0], values[1]


def _finish_if_complete(plan_id: int) -> None:
    plan = ProcurementPlan.objects.get(pk=plan_id)
    if plan.status != PlanStatus.DRAWING or plan.chunks_done < plan.chunks_total:
        return
    by_case: dict[str, list[float]] = {}
    chunks = PlanDrawChunk.objects.filter(plan_id=plan_id).order_by("index")
    for npv in chunks.values_list("npv_usd", flat=True):
        for name, values in npv.items():
            by_case.setdefault(name, []).extend(values)
    arrays = {name: np.asarray(values) for name, values in by_case.items()}
    summary = summarise(arrays.pop("plan"), arrays, plan.result.get("best_baseline"))
    if ProcurementPlan.objects.filter(pk=plan_id, status=PlanStatus.DRAWING).update(
            status=PlanStatus.DONE, uncertainty=summary, finished_at=timezone.now()):
        _finished(plan)


def _finished(plan: ProcurementPlan) -> None:
    job_finished_send(kind="plan", job_id=plan.pk, scenario_id=plan.scenario_id,
                      label=f"Plan '{plan.name}' of {plan.scenario}")


def plan_cancel(*, plan: ProcurementPlan) -> bool:
    """Stop a queued, solving or drawing plan: its unfinished draw chunks are removed and the
    tasks still queued for it return at once. False when it had already ended."""
    with transaction.atomic():
        cancelled = ProcurementPlan.objects.filter(
            pk=plan.pk, status__in=ACTIVE_PLAN_STATUSES,
        ).update(status=PlanStatus.CANCELLED, finished_at=timezone.now())
        if cancelled:
            PlanDrawChunk.objects.filter(plan=plan, done=False).delete()
            # Its places on the queue go to the team's other plans.
            transaction.on_commit(partial(_feed_team_draws, plan.scenario.team_id))
    plan.refresh_from_db()
    return bool(cancelled)


def plan_delete(*, plan: ProcurementPlan) -> None:
    """Delete a plan and its draw chunks; a task still queued for it finds nothing and returns."""
    team_id = plan.scenario.team_id
    with transaction.atomic():
        plan.delete()
        transaction.on_commit(partial(_feed_team_draws, team_id))


def plans_reap(*, now: datetime | None = None) -> jobs.Reaped:
    """Send again the plans whose worker died or whose messages were lost, or fail them.

    A solving plan whose worker no longer holds its task is queued to solve again; a queued
    plan, or a drawing one with no draw chunk finished, sent longer than
    ``JOBS_RESEND_PENDING_AFTER_S`` ago is sent again (its unfinished draw chunks); after
    ``JOBS_MAX_ATTEMPTS`` sends it is failed with the reason (core/jobs.py).
    """
    return jobs.reap(PLAN_JOBS, now=now)


def _send_solve(plan_id: int) -> None:
    from tco.tasks import plan_solve_task  # the tasks module imports this one

    jobs.send(plan_solve_task, (plan_id,), queue=Queue.DEFAULT)


def _feed_team_draws(team_id: int) -> None:
    """Send draw chunks of the team's drawing plans into the team's free places on the sweeps
    queue, each chunk claimed once (``queued``).

    The team's sweep chunks in flight and its plans' count against ``chunk_places``,
    but the plans keep one place even when the sweeps hold them all, so a plan always moves on;
    a plan has at most ``DRAW_CHUNKS_IN_FLIGHT``. Free places go one at a time to the plan with
    the fewest chunks in flight, then the fewest done (the oldest first), so the team's plans
    take turns.
    """
    from tco.tasks import plan_draws_task  # the tasks module imports this one

    with transaction.atomic():
        # Locked in one order, so two workers feeding the same team wait for each other.
        drawing = ProcurementPlan.objects.select_for_update(of=("self",)).filter(
            scenario__team_id=team_id, status=PlanStatus.DRAWING).order_by("pk")
        done = dict(drawing.values_list("pk", "chunks_done"))
        plans = list(done)
        sent = PlanDrawChunk.objects.filter(plan_id__in=plans, queued=True, done=False)
        in_flight = dict.fromkeys(plans, 0) | dict(
            sent.values("plan_id").annotate(n=Count("pk")).values_list("plan_id", "n"))
        places = max(1, chunk_places() - _team_sweep_chunks_in_flight(team_id))
        claimed: list[tuple[int, int]] = []
        all_sent: set[int] = set()
        while sum(in_flight.values()) < places:
            hungry = [pk for pk in plans if in_flight[pk] < DRAW_CHUNKS_IN_FLIGHT and pk not in all_sent]
            if not hungry:
                break
            plan_id = min(hungry, key=lambda pk: (in_flight[pk], done[pk], pk))
            chunk = (PlanDrawChunk.objects.filter(plan_id=plan_id, queued=False, done=False)
                     .order_by("index").first())
            if chunk is None:
                all_sent.add(plan_id)
                continue
            PlanDrawChunk.objects.filter(pk=chunk.pk).update(queued=True)
            claimed.append((plan_id, chunk.index))
            in_flight[plan_id] += 1
        # A plan waiting for a place has lost nothing: the reaper leaves it until it has one.
        waiting = [pk for pk, count in in_flight.items() if count == 0]
        ProcurementPlan.objects.filter(pk__in=waiting).update(queued_at=timezone.now())
    for plan_id, index in claimed:
        jobs.send(plan_draws_task, (plan_id, index), queue=Queue.SWEEPS)


def _team_sweep_chunks_in_flight(team_id: int) -> int:
    """The team's sweep chunks queued and not yet done, over its unfinished runs."""
    runs = SweepRun.objects.filter(scenario__team_id=team_id,
                                   status__in=(RunStatus.PENDING, RunStatus.RUNNING))
    return runs.aggregate(n=Sum(F("chunks_queued") - F("chunks_done")))["n"] or 0


def _send_again(plan_id: int) -> None:
    """Queue what the plan waits for: its solve, or its unfinished draw chunks."""
    status = ProcurementPlan.objects.values_list("status", flat=True).get(pk=plan_id)
    if status == PlanStatus.PENDING:
        _send_solve(plan_id)
    elif status == PlanStatus.DRAWING:
        # Their messages are lost: the unfinished chunks are fed again a few at a time.
        PlanDrawChunk.objects.filter(plan_id=plan_id, done=False).update(queued=False)
        _feed_team_draws(ProcurementPlan.objects.values_list("scenario__team_id", flat=True).get(pk=plan_id))


# A 60-month plan with its baselines and limit re-solves takes seconds; a chunk of draws, less.
PLAN_SOFT_TIME_LIMIT_S = 600
PLAN_TIME_LIMIT_S = 660
PLAN_JOBS = jobs.JobKind(
    model=ProcurementPlan, running=PlanStatus.SOLVING, done=PlanStatus.DONE,
    hard_limit_s=PLAN_TIME_LIMIT_S, queue=Queue.DEFAULT,
    requeue_as={PlanStatus.SOLVING: PlanStatus.PENDING, PlanStatus.PENDING: PlanStatus.PENDING,
                PlanStatus.DRAWING: PlanStatus.DRAWING},
    send=_send_again, failed={"status": PlanStatus.FAILED})
