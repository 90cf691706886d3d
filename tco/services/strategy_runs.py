"""Monte Carlo runs of a scenario's strategies over price paths on the workers (``StrategyRun``).

The start checks the request, fits the price model on the curve's history and fixes it on the
run with the strategies' keys, so every chunk draws from the same model; each chunk costs its
paths (``costmodel.price_paths.strategy_npvs``) and is counted once by a conditional UPDATE (a
redelivered chunk changes nothing twice); the worker that counts the last one assembles the
result. Chunks go to the sweeps queue, beside the sweeps' and the plans' draws.
"""
from __future__ import annotations

import dataclasses
from functools import partial

import numpy as np
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core import jobs
from core.queues import Queue
from costmodel.price_paths import PriceModel
from costmodel.price_paths import StrategyDistribution
from costmodel.price_paths import strategy_npvs
from costmodel.strategies import StrategyBook
from tco.errors import FieldError
from tco.models import RunStatus
from tco.models import Scenario
from tco.models import StrategyRun
from tco.models import StrategyRunChunk
from tco.services.evaluation import scenario_evaluate
from tco.services.strategies import ScenarioStrategies
from tco.services.strategies import curve_fit
from tco.services.strategies import scenario_strategies

PATHS_PER_CHUNK = 5_000
MAX_RUN_PATHS = 1_000_000
MAX_SEED = 2**63 - 1


class StrategyRunError(FieldError):
    """A run that cannot start; ``field`` names what to fix (paths, seed, scenario)."""


def strategy_run_start(*, scenario: Scenario, paths: int, seed: int, created_by: User | None = None,
                       paths_per_chunk: int = PATHS_PER_CHUNK) -> StrategyRun:
    """Check the request, fix the price model and queue the chunks; nothing is saved on an error."""
    if not isinstance(paths, int) or not 1 <= paths <= MAX_RUN_PATHS:
        raise StrategyRunError("paths", f"must be a whole number from 1 to {MAX_RUN_PATHS:,}")
    if not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise StrategyRunError("seed", "must be a whole number from 0 to 2^63 - 1")
    book = _book(_strategies(scenario))
    try:
        fit = curve_fit(scenario)
    except ValueError as exc:
        raise StrategyRunError("paths", str(exc)) from exc
    model = {"price_model": dataclasses.asdict(fit.model()), "fit": fit.to_dict(),
             "strategies": list(book.labels.items())}
    starts = range(0, paths, paths_per_chunk)
    with transaction.atomic():
        run = StrategyRun.objects.create(scenario=scenario, created_by=created_by, paths=paths, seed=seed,
                                         model=model, chunks_total=len(starts))
        StrategyRunChunk.objects.bulk_create(
            StrategyRunChunk(run=run, index=index, start=start, stop=min(paths, start + paths_per_chunk))
            for index, start in enumerate(starts))
        transaction.on_commit(partial(_send_chunks, run.pk, len(starts)))
    return run


def strategy_run_chunk_compute(*, run_id: int, index: int) -> None:
    """Cost one chunk's paths; the worker that counts the last chunk assembles the result."""
    chunks = StrategyRunChunk.objects.select_related("run__scenario")
    chunk = chunks.filter(run_id=run_id, index=index).first()
    if chunk is None or chunk.done or chunk.run.status not in (RunStatus.PENDING, RunStatus.RUNNING):
        return  # deleted, failed, or done by an earlier delivery
    run = chunk.run
    StrategyRun.objects.filter(pk=run_id, status=RunStatus.PENDING).update(status=RunStatus.RUNNING)
    try:
        book = _book(_strategies(run.scenario))
        if [list(pair) for pair in book.labels.items()] != run.model["strategies"]:
            raise StrategyRunError("scenario", "its strategies changed since the run started; start it again")
    except StrategyRunError as exc:
        StrategyRun.objects.filter(pk=run_id).update(status=RunStatus.FAILED, error=str(exc),
                                                     finished_at=timezone.now())
        return
    model = PriceModel(**run.model["price_model"])
    npv = strategy_npvs(book, model, first_path=chunk.start, paths=chunk.stop - chunk.start, seed=run.seed)
    with transaction.atomic():
        if StrategyRunChunk.objects.filter(pk=chunk.pk, done=False).update(done=True, npv=npv.tolist()):
            StrategyRun.objects.filter(pk=run_id).update(chunks_done=F("chunks_done") + 1)
    _finish_if_complete(run_id)


def _strategies(scenario: Scenario) -> ScenarioStrategies:
    return scenario_strategies(scenario, scenario_evaluate(scenario=scenario))


def _book(found: ScenarioStrategies) -> StrategyBook:
    if found.inputs is None:
        raise StrategyRunError("scenario", found.missing)
    return StrategyBook(found.inputs)


def _finish_if_complete(run_id: int) -> None:
    with transaction.atomic():
        run = StrategyRun.objects.select_for_update().get(pk=run_id)
        if run.status != RunStatus.RUNNING or run.chunks_done < run.chunks_total:
            return
        parts = StrategyRunChunk.objects.filter(run_id=run_id).order_by("index").values_list("npv", flat=True)
        keys, labels = zip(*run.model["strategies"], strict=True)
        npv = np.concatenate([np.asarray(part, dtype=np.float64) for part in parts], axis=1)
        model = PriceModel(**run.model["price_model"])
        distribution = StrategyDistribution(tuple(keys), tuple(labels), npv, run.seed, model)
        run.status, run.finished_at = RunStatus.DONE, timezone.now()
        run.result = {"fit": run.model["fit"], **distribution.to_dict()}
        run.save(update_fields=["status", "finished_at", "result"])


def _send_chunks(run_id: int, count: int) -> None:
    from tco.tasks import strategy_run_chunk_task  # the tasks module imports this one

    for index in range(count):
        jobs.send(strategy_run_chunk_task, (run_id, index), queue=Queue.SWEEPS)
