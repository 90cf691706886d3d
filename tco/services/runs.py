"""Run writes: start, compute a chunk, finish, cancel, fail and reap (see tco/runs/__init__.py).

Every step that must happen once is claimed with a conditional UPDATE and goes on only when
its row count says it won, so redelivered or duplicated tasks change nothing twice.
"""
from __future__ import annotations

import logging
import math
import secrets
import time
from dataclasses import dataclass
from dataclasses import field
from datetime import datetime
from datetime import timedelta
from functools import lru_cache
from functools import partial
from typing import Any
from typing import NamedTuple

import pandas as pd
import pyarrow as pa
from celery.exceptions import SoftTimeLimitExceeded
from celery.exceptions import TimeLimitExceeded
from django.db import transaction
from django.db.models import Count
from django.db.models import F
from django.db.models import OuterRef
from django.db.models import Q
from django.db.models import Subquery
from django.utils import timezone

import costmodel as engine
from core import jobs
from core.queues import Queue
from core.signals import job_finished_send
from tco.models import ACTIVE_STATUSES
from tco.models import ChunkStatus
from tco.models import FailureType
from tco.models import RunKind
from tco.models import RunStatus
from tco.models import Scenario
from tco.models import SweepChunk
from tco.models import SweepRun
from tco.runs.chunks import ChunkPlan
from tco.runs.chunks import RunSpec
from tco.runs.chunks import chunk_table
from tco.runs.compute import PointsTable
from tco.runs.compute import ranked_options
from tco.runs.errors import RunSpecError
from tco.runs.errors import whole_number
from tco.runs.limits import CHUNK_TIME_LIMIT_S
from tco.runs.limits import FINISH_DEADLINE_S
from tco.runs.limits import FINISH_TIME_LIMIT_S
from tco.runs.limits import GO_ON_FOR_S
from tco.runs.limits import MAX_CHUNK_POINTS
from tco.runs.limits import MAX_RUN_CHUNKS
from tco.runs.limits import MAX_RUN_POINTS
from tco.runs.limits import REQUEUE_STALLED_AFTER_S
from tco.runs.limits import RNG_BLOCK_POINTS
from tco.runs.limits import RUN_STALL_DEADLINE_S
from tco.runs.limits import chunk_points_for
from tco.runs.limits import smallest_chunk_points
from tco.runs.quota import quota_check
from tco.runs.results import PartEncoder
from tco.runs.results import part_delete
from tco.runs.results import part_save
from tco.runs.results import part_table
from tco.runs.results import parts_column
from tco.runs.snapshot import scenario_from_json
from tco.runs.snapshot import scenario_to_json
from tco.runs.specs import MonteCarloSpec
from tco.runs.specs import SweepSpec
from tco.runs.specs import parse_monte_carlo_spec
from tco.runs.specs import parse_sensitivity_spec
from tco.runs.specs import parse_sweep_spec
from tco.runs.summaries import monte_carlo_summary
from tco.runs.summaries import sensitivity_summary
from tco.runs.summaries import sweep_summary
from tco.runs.summaries import sweep_tally
from tco.services.engine_inputs import ScenarioInputError
from tco.services.engine_inputs import reporting_currency
from tco.services.evaluation import scenario_check
from tco.services.sweep_workers import chunk_places
from tco.services.sweep_workers import sweep_worker_processes

logger = logging.getLogger(__name__)

# Seeds fit PostgreSQL's bigint.
MAX_SEED = 2**63 - 1
# Tracebacks are in the worker log; the row keeps the message.
MAX_ERROR_CHARS = 10_000
# Runs with chunk messages out on the broker, which a worker's death or a broker restart can lose.
QUEUED_STATUSES = (RunStatus.PENDING, RunStatus.RUNNING)


def run_spec(kind: str, raw: Any, inputs: engine.Scenario, *, max_points: int = MAX_RUN_POINTS) -> RunSpec:
    """The parsed, checked spec of a run of ``kind``; RunSpecError when it cannot run.

    A started run's spec is parsed again with its own point count as the limit: the request
    limit was checked when it started.
    """
    if kind == RunKind.SWEEP:
        return parse_sweep_spec(raw, inputs, max_points=max_points)
    if kind == RunKind.MONTE_CARLO:
        return parse_monte_carlo_spec(raw, inputs, max_points=max_points)
    if kind == RunKind.SENSITIVITY:
        return parse_sensitivity_spec(raw, inputs)
    raise RunSpecError("kind", f"must be one of {', '.join(RunKind.values)}, got {kind!r}")


def run_inputs(run: SweepRun) -> engine.Scenario:
    """The engine inputs the run started with."""
    return scenario_from_json(run.engine_inputs)


def run_currency(run: SweepRun) -> str:
    """The currency of a run's amounts: the one its summary says, else (a run summarised before
    it said one, or not finished) its scenario's reporting currency."""
    return (run.summary or {}).get("currency") or str(reporting_currency(run.scenario))


def run_part_names(run: SweepRun) -> list[str]:
    """The storage names of a run's counted parts, in point order."""
    return _part_names(run.pk)


def run_result_frame(run: SweepRun) -> pd.DataFrame:
    """A finished run's whole result, one row per point (for results small enough to hold)."""
    return pa.concat_tables(part_table(name) for name in run_part_names(run)).to_pandas()


def sweep_run_start(
    *,
    scenario: Scenario,
    kind: str,
    spec: Any,
    seed: int | None = None,
    chunk_size: int | None = None,
    created_by: Any = None,
    max_points: int = MAX_RUN_POINTS,
) -> SweepRun:
    """Check the spec, create the run and its chunks, and queue the first chunks on commit.

    Raises RunSpecError (nothing written, nothing queued) when the scenario cannot be
    evaluated, the spec cannot run, or its result would not fit the team's storage quota.
    Chunk rows are created as their chunks are queued, a few at a time, so a request
    writes the same few rows whatever the run's size. ``max_points`` is the request limit;
    only operators' tools (a benchmark, a command) raise it.
    """
    try:
        case = scenario_check(scenario=scenario, pinned=True)
    except ScenarioInputError as exc:
        raise RunSpecError("scenario", f"cannot be evaluated: {exc}") from None
    parsed = run_spec(kind, spec, case.inputs, max_points=max_points)
    size = _chunk_size(kind, parsed, case.inputs, chunk_size)
    total = parsed.points_total
    quota_check(scenario.team, parsed, case.inputs)
    if kind == RunKind.MONTE_CARLO and seed is None:
        seed = secrets.randbelow(MAX_SEED)
    elif seed is not None:
        seed = whole_number(seed, "seed", low=0, high=MAX_SEED)
    now = timezone.now()
    with transaction.atomic():
        run = SweepRun.objects.create(
            scenario=scenario, created_by=created_by, kind=kind, spec=parsed.to_json(),
            seed=seed if kind == RunKind.MONTE_CARLO else None,
            engine_inputs=scenario_to_json(case.inputs), points_total=parsed.points_total,
            chunk_size=size, chunks_total=math.ceil(total / size), progressed_at=now,
            deadline_at=now + timedelta(seconds=RUN_STALL_DEADLINE_S),
        )
        _queue_chunks(run.pk)
    run.refresh_from_db()
    return run


def sweep_chunk_compute(*, run_id: int, index: int) -> None:
    """Compute one chunk, store its table once, count it once, and move the run along; then, while
    nothing else waits for a worker, the run's next chunks.

    A run that is no longer active (cancelled, failed, deleted) is left alone; a chunk that is
    already DONE (a redelivered message) is not computed again, though the chunk this task went
    on with and had not counted is (a retry, or the same message handed out again). The chunk's
    table goes straight to storage as the run's part; the database gets its name and a count. A
    chunk costs two round trips to the database: its claim, and one transaction that counts it
    and queues the team's next chunks (the run's fixed fields are read once per worker process).
    While nothing but the run's own chunks waits on the sweeps queue, that transaction claims
    the run's next chunk for this task, which computes it at once: no message, no claim of its
    own, no wait for a worker (for ``GO_ON_FOR_S`` at most). The task that counts a run's last
    chunk summarises the run itself (``sweep_run_finish``), with no message and no wait.
    """
    laps = _Laps()
    unfinished = SweepChunk.objects.filter(
        run_id=run_id, index=index, run__status__in=QUEUED_STATUSES).exclude(status=ChunkStatus.DONE)
    claimed = laps.timed("claim", unfinished.update, status=ChunkStatus.RUNNING, claimed_at=timezone.now(),
                         attempts=F("attempts") + 1, **jobs.claim_fields())
    if not claimed:
        # This task's chunk is counted; the one it went on with, if any, is not.
        gone_on_with = _chunk_gone_on_with(run_id)
        if gone_on_with is None:
            # Left alone: a run no longer active (its place goes to the team's other runs), or a
            # chunk already DONE (a redelivered message). An active run's missing chunk is an error.
            if SweepRun.objects.filter(pk=run_id, status__in=QUEUED_STATUSES).exists():
                SweepChunk.objects.get(run_id=run_id, index=index)
            _queue_chunks(run_id)
            # A retry of the task that counted the last chunk and failed summarising (a dropped
            # database connection, say) summarises again; for any other run this changes nothing.
            sweep_run_finish(run_id=run_id)
            return
        index = gone_on_with
    plan = _chunk_plan(run_id)
    _run_started(run_id)
    began = time.monotonic()
    while index is not None:
        tally = plan.tally()
        with PartEncoder() as part:
            table = laps.timed("compute", chunk_table, plan, index, part, tally)
            payload = laps.timed("encode", part.finish)
        name, size = laps.timed("part", part_save, run_id, index, payload)
        counted = laps.timed("store", _store_chunk, run_id, index, name, size,
                             tally=tally and tally.to_json(), go_on=time.monotonic() - began < GO_ON_FOR_S)
        if counted.finishing:
            laps.timed("finish", sweep_run_finish, run_id=run_id)
        # Where a chunk's time went, in the worker's log (compute = the engine and its columns;
        # encode = the part's encoding and the tally left when the engine is done).
        logger.info("run %s chunk %s: %s points; %s", run_id, index, len(table), laps)
        index, laps = counted.next_index, _Laps()


def sweep_run_finish(*, run_id: int) -> None:
    """Summarise a complete run from its parts' columns and mark it DONE (once).

    Nothing is assembled: the parts are the result. Only a run in FINISHING is summarised; if
    two finishers race (a redelivery), the FINISHING -> DONE update lets one of them win.
    """
    if not SweepRun.objects.filter(pk=run_id, status=RunStatus.FINISHING).update(**jobs.claim_fields()):
        return
    summary = _summary(run_id, _chunk_plan(run_id))
    if SweepRun.objects.filter(pk=run_id, status=RunStatus.FINISHING).update(
            status=RunStatus.DONE, progress=100, finished_at=timezone.now(), summary=summary):
        kind, scenario_id, scenario = SweepRun.objects.values_list(
            "kind", "scenario_id", "scenario__name").get(pk=run_id)
        job_finished_send(kind="run", job_id=run_id, scenario_id=scenario_id,
                          label=f"{RunKind(kind).label} {run_id} of {scenario}")


def sweep_run_cancel(*, run: SweepRun) -> bool:
    """Stop an active run: no more chunks are queued, queued ones return at once, and the rows
    of chunks no worker began are removed (the parts done so far stay until the run is deleted)."""
    with transaction.atomic():
        cancelled = SweepRun.objects.filter(pk=run.pk, status__in=ACTIVE_STATUSES).update(
            status=RunStatus.CANCELLED, finished_at=timezone.now())
        if cancelled:
            SweepChunk.objects.filter(run_id=run.pk, status=ChunkStatus.PENDING).delete()
    if cancelled:
        _queue_chunks(run.pk)  # its places go to the team's other runs
    run.refresh_from_db()
    return bool(cancelled)


def sweep_run_fail(*, run_id: int, failure_type: str, error: str) -> bool:
    """Mark an active run FAILED with why; False when it had already ended."""
    return bool(SweepRun.objects.filter(pk=run_id, status__in=ACTIVE_STATUSES).update(
        status=RunStatus.FAILED, failure_type=failure_type, error=error[:MAX_ERROR_CHARS],
        finished_at=timezone.now()))


def failure_type_of(exc: BaseException) -> str:
    """Classify why a run's task gave up: its inputs, time, or the system."""
    if isinstance(exc, (RunSpecError, ScenarioInputError, engine.InputError)):
        return FailureType.USER
    if isinstance(exc, (SoftTimeLimitExceeded, TimeLimitExceeded)):
        return FailureType.TIMEOUT
    return FailureType.SYSTEM


@dataclass(frozen=True)
class ReapReport:
    """What one reaper pass did: runs failed, chunks queued again per run, finishers sent again."""

    failed: list[int] = field(default_factory=list)
    requeued: dict[int, list[int]] = field(default_factory=dict)
    finishers: list[int] = field(default_factory=list)


def sweep_runs_reap(*, now: datetime | None = None) -> ReapReport:
    """Fail runs past their deadline; queue again the chunks and finishers that were lost.

    A chunk whose worker no longer holds its task (killed, restarted) is queued again at once
    (core/jobs.py). A pending or running run with no chunk finished for
    ``REQUEUE_STALLED_AFTER_S`` lost its queued chunks (a Redis restart emptied the queue, or
    a send failed while the broker was down): its unfinished queued chunks are queued again,
    once per stall, and the queue is topped up (or the complete run moved on to its finisher).
    A waiting chunk sent before the broker or the database last started is sent again at once,
    even while the run's other chunks progress. A finisher whose worker died, or whose message
    was not taken ``JOBS_RESEND_PENDING_AFTER_S`` after it was sent, is sent again. A chunk
    started, or a finisher sent, ``JOBS_MAX_ATTEMPTS`` times fails its run with why; a run with
    no progress until its deadline is failed as timed out.
    """
    now = now or timezone.now()
    report = ReapReport()
    late = SweepRun.objects.filter(status__in=ACTIVE_STATUSES, deadline_at__lt=now)
    for run_id, status in late.values_list("pk", "status"):
        if SweepRun.objects.filter(pk=run_id, status=status, deadline_at__lt=now).update(
            status=RunStatus.FAILED, failure_type=FailureType.TIMEOUT, error=_DEADLINE_REASONS[status],
            finished_at=now,
        ):
            report.failed.append(run_id)
    _requeue_lost_chunks(now, report)
    # A run with no progress since Redis last started lost its queued chunks: queue them again
    # now, not once stalled.
    stalled_before = jobs.sent_before_messages_lost(now, REQUEUE_STALLED_AFTER_S)
    stalled = SweepRun.objects.filter(status__in=QUEUED_STATUSES, progressed_at__lt=stalled_before).filter(
        Q(requeued_at__isnull=True) | Q(requeued_at__lt=stalled_before))
    for run_id in stalled.values_list("pk", flat=True):
        indexes = _requeue_unfinished(run_id, now, stalled_before)
        if indexes:
            report.requeued[run_id] = indexes
        # Top up what the requeue left out, or move a complete run on.
        _queue_chunks(run_id)
    _resend_chunks_sent_before_restart(now, report)
    _resend_lost_finishers(now, report)
    return report


def _resend_chunks_sent_before_restart(now: datetime, report: ReapReport) -> None:
    """Send again the waiting chunks that were sent before the broker or the database last
    started: the message is gone, or its task gave up while PostgreSQL was down. The run's
    other chunks may still be stored after the restart, so the run never looks stalled."""
    started = jobs.last_started_at()
    if started is None:
        return
    waiting = SweepChunk.objects.filter(status=ChunkStatus.PENDING, queued_at__lt=started,
                                        run__status__in=QUEUED_STATUSES)
    for run_id in waiting.order_by("run_id").values_list("run_id", flat=True).distinct():
        with transaction.atomic():
            chunks = waiting.select_for_update(of=("self",)).filter(run_id=run_id)
            indexes = sorted(chunks.values_list("index", flat=True))
            chunks.update(queued_at=now)
            if indexes:
                report.requeued[run_id] = sorted({*report.requeued.get(run_id, []), *indexes})
                transaction.on_commit(partial(_send_chunks, run_id, indexes))


def _requeue_lost_chunks(now: datetime, report: ReapReport) -> None:
    """Queue again the running chunks that no live worker holds; fail a run whose chunk was
    started ``JOBS_MAX_ATTEMPTS`` times."""
    running = {pk: (run_id, index, jobs.Claim(worker, task_id), claimed_at, attempts)
               for pk, run_id, index, worker, task_id, claimed_at, attempts in SweepChunk.objects.filter(
                   status=ChunkStatus.RUNNING, run__status__in=QUEUED_STATUSES).values_list(
                   "pk", "run_id", "index", "worker", "task_id", "claimed_at", "attempts")}
    lost = jobs.lost_jobs({pk: row[2] for pk, row in running.items()},
                          started={pk: row[3] for pk, row in running.items()},
                          hard_limit_s=CHUNK_TIME_LIMIT_S, now=now)
    by_run: dict[int, list[int]] = {}
    for pk in sorted(lost):
        by_run.setdefault(running[pk][0], []).append(pk)
    for run_id, pks in by_run.items():
        if _fail_if_retried_out(run_id, [running[pk][1:] for pk in pks], report):
            continue
        with transaction.atomic():
            chunks = SweepChunk.objects.filter(pk__in=pks, status=ChunkStatus.RUNNING)
            indexes = sorted(chunks.values_list("index", flat=True))
            chunks.update(status=ChunkStatus.PENDING, queued_at=now, worker="", task_id="")
            if indexes:
                report.requeued[run_id] = indexes
                transaction.on_commit(partial(_send_chunks, run_id, indexes))


def _fail_if_retried_out(run_id: int, chunks: list[tuple[int, jobs.Claim, datetime, int]],
                         report: ReapReport) -> bool:
    """Fail the run when one of its lost ``chunks`` (index, claim, claimed_at, attempts) was
    started ``JOBS_MAX_ATTEMPTS`` times already."""
    worn = [(index, attempts) for index, _, _, attempts in chunks if attempts >= jobs.max_attempts()]
    if not worn:
        return False
    index, attempts = worn[0]
    if sweep_run_fail(run_id=run_id, failure_type=FailureType.SYSTEM, error=(
            f"chunk {index} was started {attempts} times and its worker stopped each time "
            "(restarted or out of memory)")):
        report.failed.append(run_id)
    return True


def _resend_lost_finishers(now: datetime, report: ReapReport) -> None:
    """Send again the finisher of a run whose finisher's worker died or whose message was lost."""
    finishing = {pk: (jobs.Claim(worker, task_id), max(progressed_at, requeued_at or progressed_at), attempts)
                 for pk, worker, task_id, progressed_at, requeued_at, attempts in SweepRun.objects.filter(
                     status=RunStatus.FINISHING).values_list(
                     "pk", "worker", "task_id", "progressed_at", "requeued_at", "finish_attempts")}
    claimed = {pk: row[0] for pk, row in finishing.items() if row[0].task_id}
    lost = jobs.lost_jobs(claimed, started={pk: finishing[pk][1] for pk in claimed},
                          hard_limit_s=FINISH_TIME_LIMIT_S, now=now)
    unsent = {pk for pk, (held, sent, _) in finishing.items()
              if not held.task_id and sent < jobs.resend_before(now)}
    for pk in sorted(lost | unsent):
        held, _, attempts = finishing[pk]
        rows = SweepRun.objects.filter(pk=pk, status=RunStatus.FINISHING, finish_attempts=attempts)
        if attempts >= jobs.max_attempts():
            if rows.update(status=RunStatus.FAILED, failure_type=FailureType.SYSTEM, finished_at=now, error=(
                    f"assembling the result was sent to a worker {attempts} times and never finished")):
                report.failed.append(pk)
            continue
        with transaction.atomic():
            if rows.update(finish_attempts=F("finish_attempts") + 1, requeued_at=now, worker="", task_id="",
                           deadline_at=now + timedelta(seconds=FINISH_DEADLINE_S)):
                report.finishers.append(pk)
                transaction.on_commit(partial(_send_finish, pk))


_DEADLINE_REASONS = {
    RunStatus.PENDING: "no worker took a chunk before the deadline; is a worker consuming the sweeps queue?",
    RunStatus.RUNNING: "no chunk finished for a long time: a worker died and nothing redelivered its chunks",
    RunStatus.FINISHING: "assembling the result did not finish in time",
}


def _chunk_size(kind: str, spec: RunSpec, inputs: engine.Scenario, requested: int | None) -> int:
    """The requested chunk size, checked, or one chosen from the points, the rent options and the workers."""
    align = RNG_BLOCK_POINTS if kind == RunKind.MONTE_CARLO else 1
    if requested is None:
        return chunk_points_for(len(inputs.rent), points=spec.points_total,
                                workers=sweep_worker_processes(), align=align)
    smallest = smallest_chunk_points(spec.points_total)
    size = whole_number(requested, "chunk_size", low=1, high=MAX_CHUNK_POINTS)
    largest = chunk_points_for(len(inputs.rent))
    if size > largest:
        raise RunSpecError("chunk_size", f"must be at most {largest:,} for {len(inputs.rent)} rent options "
                                         f"(a worker's memory budget for one chunk), got {size:,}")
    if size < smallest:
        raise RunSpecError("chunk_size", f"must be at least {smallest:,} for {spec.points_total:,} points "
                                         f"(a run has at most {MAX_RUN_CHUNKS:,} chunks), got {size:,}")
    if size % align:
        raise RunSpecError("chunk_size", f"must be a multiple of {align:,} (one RNG block) for Monte Carlo")
    return size


class _Laps:
    """Wall and CPU time of named steps [ms]."""

    def __init__(self) -> None:
        self.steps: list[tuple[str, float, float]] = []

    def timed(self, name: str, step: Any, *args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        result = step(*args, **kwargs)
        self.steps.append((name, 1000 * (time.perf_counter() - wall), 1000 * (time.process_time() - cpu)))
        return result

    def __str__(self) -> str:
        return ", ".join(f"{name} {wall:.1f} ms ({cpu:.1f} CPU)" for name, wall, cpu in self.steps)


@lru_cache(maxsize=8)
def _chunk_plan(run_id: int) -> ChunkPlan:
    """A run's inputs and parsed spec, parsed once per worker process: a Monte Carlo spec's check
    evaluates up to 1,024 scenarios."""
    engine_inputs, kind, spec, points, seed, size = SweepRun.objects.values_list(
        "engine_inputs", "kind", "spec", "points_total", "seed", "chunk_size").get(pk=run_id)
    inputs = scenario_from_json(engine_inputs)
    return ChunkPlan(inputs, run_spec(kind, spec, inputs, max_points=points), seed, size, points)


@lru_cache(maxsize=8)
def _run_started(run_id: int) -> None:
    """Mark a pending run RUNNING, once per worker process (later chunks skip the statement)."""
    SweepRun.objects.filter(pk=run_id, status=RunStatus.PENDING).update(
        status=RunStatus.RUNNING, started_at=timezone.now())


def _chunk_gone_on_with(run_id: int) -> int | None:
    """The chunk of run ``run_id`` this task went on with and did not count (claimed again), when
    the task is retried or its message handed out again (the same task id); None otherwise."""
    task_id = jobs.claim().task_id
    if not task_id:  # called inline: no task went on
        return None
    held = SweepChunk.objects.filter(run_id=run_id, status=ChunkStatus.RUNNING, task_id=task_id,
                                     run__status__in=QUEUED_STATUSES)
    index = held.order_by("index").values_list("index", flat=True).first()
    if index is not None:
        held.filter(index=index).update(claimed_at=timezone.now(), attempts=F("attempts") + 1,
                                        **jobs.claim_fields())
    return index


class _Counted(NamedTuple):
    """What counting a chunk leaves to its task: the run to summarise, the chunk to compute next."""

    finishing: bool = False
    next_index: int | None = None


def _store_chunk(run_id: int, index: int, name: str, size: int, *,
                 tally: dict[str, Any] | None = None, go_on: bool = False) -> _Counted:
    """Mark the chunk DONE with its stored part and tally, count it on the run only if this update
    won, and queue the team's next chunks, in one transaction. ``finishing`` when this count
    completed the run, which is then FINISHING and the caller's to summarise (its finisher is
    not sent); with ``go_on``, the ``next_index`` of the run's chunk the caller holds now.

    The copy of a chunk whose update lost (a second worker on a redelivered message) is deleted.
    """
    # The work that waits while this task goes on: on the sweeps queue and any other this worker
    # serves. Read before any row is locked: a broker that does not answer holds up no one else.
    waiting = jobs.waiting(jobs.queues_served() | {Queue.SWEEPS}) if go_on else None
    with transaction.atomic():
        unfinished = SweepChunk.objects.filter(run_id=run_id, index=index).exclude(status=ChunkStatus.DONE)
        won = unfinished.update(status=ChunkStatus.DONE, result_name=name, result_bytes=size, tally=tally,
                                finished_at=timezone.now())
        counted = _queue_chunks(run_id, counted_bytes=size if won else None, waiting=waiting if won else None)
    if not won:
        part_delete(name)
    return counted


def _queue_chunks(run_id: int, *, counted_bytes: int | None = None, waiting: int | None = None) -> _Counted:
    """Create and queue the next chunks of the team of run ``run_id``, and move its complete runs
    to their finisher, on commit.

    ``counted_bytes``: the size of the part of a chunk of run ``run_id`` just marked DONE, counted
    on the run here, under the team's lock: workers storing chunks of one team's runs lock them
    in one order, so none waits for another in a cycle. ``finishing`` when that count completed
    the run, moved to FINISHING here and its finisher left to the caller instead of sent. When
    the ``waiting`` messages (read by a caller that may go on) are all chunks of run ``run_id``,
    the first chunk fed to that run is created claimed by the caller's task instead of queued
    (``next_index``).

    A team has at most ``chunk_places`` unfinished chunks queued over all its runs, and so
    has a run (two per live sweeps worker process, at least 4); free places go one
    at a time to the team's run with the fewest chunks in flight (the oldest first), so a team's
    runs take turns and a run started while the team's places are taken waits for the next
    finished chunk. A task goes on with its run's chunk only while no other run's chunk (nor a
    plan's draws, nor a finisher) waits: those wait for one chunk at most, and runs keep turns.
    """
    places = chunk_places()
    team = SweepRun.objects.filter(pk=run_id).values("scenario__team_id")
    # Inside the caller's transaction, if any (no savepoint: one round trip fewer).
    with transaction.atomic(savepoint=False):
        # Locked in one order, so two workers feeding the same team wait for each other. A
        # deleted run's team is none: nothing to feed.
        # Only the counters: a run's inputs, spec and summary are kilobytes of JSON to decode.
        locked = SweepRun.objects.select_for_update(of=("self",)).filter(
            scenario__team_id=Subquery(team), status__in=QUEUED_STATUSES).order_by("pk").only(
            "status", "chunks_done", "chunks_total", "chunks_queued", "chunk_size", "points_total")
        if waiting:  # whether they are all the run's own is read with the lock, in one statement
            locked = locked.annotate(pending=_pending_chunks())
        runs = list(locked)
        # What changes on each run, written once a run: counting the chunk and a run's next
        # places in one UPDATE.
        changes: dict[int, dict[str, Any]] = {run.pk: {} for run in runs}
        if counted_bytes is not None:
            changes.setdefault(run_id, {}).update(_count_fields(counted_bytes))
            for run in runs:
                run.chunks_done += run.pk == run_id
        finishing = False
        for run in runs:
            if run.status == RunStatus.RUNNING and run.chunks_done == run.chunks_total:
                here = counted_bytes is not None and run.pk == run_id
                if here:  # the finisher's claim reads the count
                    SweepRun.objects.filter(pk=run_id).update(**changes.pop(run_id))
                finishing |= _finish(run.pk, send=not here) and here
        in_flight = {run.pk: run.chunks_queued - run.chunks_done for run in runs}
        fed: dict[int, list[int]] = {run.pk: [] for run in runs}
        for _ in range(places - sum(in_flight.values())):
            hungry = [run for run in runs if in_flight[run.pk] < places
                      and run.chunks_queued + len(fed[run.pk]) < run.chunks_total]
            if not hungry:
                break
            run = min(hungry, key=lambda run: (in_flight[run.pk], run.pk))
            fed[run.pk].append(run.chunks_queued + len(fed[run.pk]))
            in_flight[run.pk] += 1
        now = timezone.now()
        its = next((run for run in runs if run.pk == run_id), None)
        held = fed[run_id][0] if its is not None and fed[run_id] and _only_its_chunks(
            waiting, getattr(its, "pending", None)) else None
        for pk, indexes in fed.items():
            if indexes:
                changes[pk]["chunks_queued"] = indexes[-1] + 1
        for pk, fields in changes.items():
            if fields:
                SweepRun.objects.filter(pk=pk).update(**fields)
        for run in runs:
            indexes = fed[run.pk]
            if not indexes:
                continue
            SweepChunk.objects.bulk_create(
                SweepChunk(run_id=run.pk, index=index, start=index * run.chunk_size,
                           stop=min((index + 1) * run.chunk_size, run.points_total), queued_at=now,
                           **(_held_here(now) if (run.pk, index) == (run_id, held) else {}))
                for index in indexes)
            sent = [index for index in indexes if (run.pk, index) != (run_id, held)]
            if sent:
                transaction.on_commit(partial(_send_chunks, run.pk, sent))
    return _Counted(finishing, held)


def _count_fields(size: int) -> dict[str, Any]:
    """A run's changes that count a chunk just marked DONE, with its part of ``size`` bytes."""
    now = timezone.now()
    return {
        "chunks_done": F("chunks_done") + 1,
        "progress": (F("chunks_done") + 1) * 99 / F("chunks_total"),  # 99 at most: 100 = summarised
        "result_bytes": F("result_bytes") + size,
        "progressed_at": now,
        "deadline_at": now + timedelta(seconds=RUN_STALL_DEADLINE_S),
    }


def _pending_chunks() -> Subquery:
    """The chunks of the outer query's run queued and not yet taken."""
    pending = SweepChunk.objects.filter(run_id=OuterRef("pk"), status=ChunkStatus.PENDING).order_by()
    return Subquery(pending.values("run_id").annotate(count=Count("pk")).values("count"))


def _only_its_chunks(waiting: int | None, pending: int | None) -> bool:
    """Whether the ``waiting`` messages (of the queues the worker serves) can only be the run's
    ``pending`` chunks: none of another run, a plan's draws, a finisher or another queue's job;
    False when they were not read."""
    if waiting is None:
        return False
    return waiting == 0 or waiting <= (pending or 0)


def _held_here(now: datetime) -> dict[str, Any]:
    """A chunk's fields as claimed by the task running now."""
    return {"status": ChunkStatus.RUNNING, "claimed_at": now, "attempts": 1, **jobs.claim_fields()}


def _requeue_unfinished(run_id: int, now: datetime, stalled_before: datetime) -> list[int]:
    with transaction.atomic():
        run = (SweepRun.objects.select_for_update()
               .filter(pk=run_id, status__in=QUEUED_STATUSES, progressed_at__lt=stalled_before).first())
        if run is None:
            return []
        unfinished = SweepChunk.objects.filter(run_id=run_id, index__lt=run.chunks_queued).exclude(
            status=ChunkStatus.DONE)
        seen = list(unfinished.values_list("index", "worker", "task_id", "claimed_at", "attempts"))
        if _fail_if_retried_out(run_id, [(index, jobs.Claim(*held), claimed, attempts)
                                         for index, *held, claimed, attempts in seen], ReapReport()):
            return []
        indexes = [index for index, *_ in seen]
        unfinished.update(status=ChunkStatus.PENDING, queued_at=now)
        SweepRun.objects.filter(pk=run_id).update(requeued_at=now)
        if indexes:
            transaction.on_commit(partial(_send_chunks, run_id, indexes))
    return indexes


def _part_names(run_id: int) -> list[str]:
    return list(SweepChunk.objects.filter(run_id=run_id, status=ChunkStatus.DONE)
                .order_by("index").values_list("result_name", flat=True))


def _send_chunks(run_id: int, indexes: list[int]) -> None:
    # Imported here: the tasks module imports this one.
    from tco.tasks import sweep_chunk_task

    for index in indexes:
        jobs.send(sweep_chunk_task, (run_id, index), queue=Queue.SWEEPS)


def _finish(run_id: int, *, send: bool = True) -> bool:
    """Move a complete run RUNNING -> FINISHING; the one caller that does queues its finisher on
    commit (``send``) or summarises it itself. Whether this call moved it."""
    won = SweepRun.objects.filter(pk=run_id, status=RunStatus.RUNNING, chunks_done=F("chunks_total")).update(
        status=RunStatus.FINISHING, deadline_at=timezone.now() + timedelta(seconds=FINISH_DEADLINE_S),
        finish_attempts=1)
    if won and send:
        transaction.on_commit(partial(_send_finish, run_id))
    return bool(won)


def _send_finish(run_id: int) -> None:
    from tco.tasks import sweep_run_finish_task

    jobs.send(sweep_run_finish_task, (run_id,), queue=Queue.SWEEPS)


def _summary(run_id: int, plan: ChunkPlan) -> dict[str, Any]:
    """The run's summary, its amounts in ``currency``: its scenario's reporting currency, which
    its inputs were converted into."""
    scenario = Scenario.objects.select_related("team").get(runs__pk=run_id)
    return {**_figures(run_id, plan), "currency": str(reporting_currency(scenario))}


def _figures(run_id: int, plan: ChunkPlan) -> dict[str, Any]:
    names = [option.name for option in plan.inputs.rent]
    ranked = ranked_options(plan.inputs)
    if isinstance(plan.spec, SweepSpec):
        # One query for every chunk's tally; a chunk counted before chunks kept tallies is read.
        done = SweepChunk.objects.filter(run_id=run_id, status=ChunkStatus.DONE).order_by("index")
        tallies = (sweep_tally(PointsTable.from_arrow(part_table(name)), plan.spec, names, ranked)
                   if tally is None else tally
                   for name, tally in done.values_list("result_name", "tally").iterator())
        return sweep_summary(tallies, plan.spec, names, ranked)
    parts = _part_names(run_id)
    if isinstance(plan.spec, MonteCarloSpec):
        return monte_carlo_summary(partial(parts_column, parts), plan.spec, names, plan.seed, ranked)
    return sensitivity_summary(part_table(parts[0]).to_pandas(), plan.spec.step_share)
