"""Report exports: request one (a job row, built in the background), build it, or build files directly.

HOW AN EXPORT RUNS
1. ``report_export_request()`` creates a ReportExport (PENDING) that pins the price date, and
   on commit queues ``report_export_task`` on the reports queue; the API answers 202.
2. The task calls ``report_export_run()``: a finished export is left alone (a redelivery);
   otherwise it is marked RUNNING, the scenario is evaluated with its prices pinned and the
   whole file is built in memory.
3. Only a complete file is stored: one conditional UPDATE (RUNNING -> DONE) records it with the
   engine version, price snapshot and key figures. A scenario that cannot be evaluated marks the
   export FAILED with the reason and stores no file.
"""

from __future__ import annotations

import copy
import logging
import time
from datetime import date
from datetime import datetime
from functools import partial
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.text import slugify

import costmodel as engine
from catalog.selectors import source_citations
from core import jobs
from core.queues import Queue
from core.signals import job_finished_send
from finops.exports.projections import scenario_focus
from reports.builders.excel import build_workbook
from reports.builders.pdf import build_pdf
from reports.choices import ExportStatus
from reports.choices import FailureType
from reports.choices import PaperSize
from reports.choices import ReportFormat
from reports.content import RecordedPlan
from reports.content import RecordedRun
from reports.content import ReportContent
from reports.content import ReportMeta
from reports.content import SizingSummary
from reports.content import key_figures
from reports.formatting import timestamp
from reports.models import ReportExport
from tco.models import PlanStatus
from tco.models import RunKind
from tco.models import RunStatus
from tco.models import Scenario
from tco.models import SweepRun
from tco.services.cash_flows import cash_flow_table
from tco.services.engine_inputs import PriceUsed
from tco.services.engine_inputs import ScenarioInputError
from tco.services.evaluation import Evaluation
from tco.services.figures import Showing
from tco.services.figures import scenario_figures
from tco.services.runs import run_result_frame
from tco.services.strategies import scenario_strategies
from tco.services.strategies_view import strategies_shown

logger = logging.getLogger(__name__)

BUILDERS = {ReportFormat.XLSX: build_workbook, ReportFormat.PDF: build_pdf}
# A sweep with more points than this is shown by its summary and heat maps only. Measured:
# listing 10,000 points (16 columns) adds 2.9 s to a workbook; openpyxl took 50 s and 600 MB
# for 100,000 rows of 16 columns. The full table stays the run's own download.
SWEEP_SHEET_MAX_POINTS = 10_000
TIMEOUT_MESSAGE = "The report took longer than its time limit; try again later."
# Measured: 0.2 s (xlsx) and 2.1 s (pdf) for a demo scenario; 0.5 s and 2.7 s with a
# 100,000-point sweep. The limits leave room for a slow machine, far below 3,600 s.
REPORT_SOFT_TIME_LIMIT_S = 300
REPORT_TIME_LIMIT_S = 330
SYSTEM_MESSAGE = "The report could not be built because of a service error ({error}); it has been logged."
# A report shows the evaluation itself, built once per export: nothing to keep.
REPORT = Showing("report", lambda scenario, evaluation: evaluation, kept=False)


def report_export_request(
    *,
    scenario: Scenario,
    format: str,
    paper_size: str = PaperSize.A4,
    requested_by: AbstractBaseUser | None = None,
    prices_as_of: date | None = None,
) -> ReportExport:
    """Create an export job and queue it once the transaction commits.

    The price date is pinned now (the scenario's own date, else today), so the export and any
    regeneration of it evaluate the same catalog prices.
    """
    export = ReportExport(
        scenario=scenario,
        format=format,
        paper_size=paper_size,
        requested_by=requested_by,
        prices_as_of=prices_as_of or scenario.prices_as_of or timezone.localdate(),
        scenario_updated_at=scenario.updated_at,
    )
    export.attempts = 1
    export.queued_at = timezone.now()
    export.full_clean()
    export.save()
    transaction.on_commit(partial(_send, export.pk))
    return export


def _send(export_id: int) -> None:
    # Imported here: the tasks module imports this one.
    from reports.tasks import report_export_task

    jobs.send(report_export_task, (export_id,), queue=Queue.REPORTS)


def report_export_regenerate(
    *, export: ReportExport, requested_by: AbstractBaseUser | None = None
) -> ReportExport:
    """A new export of the same scenario, format and paper with the same price date."""
    return report_export_request(
        scenario=export.scenario,
        format=export.format,
        paper_size=export.paper_size,
        requested_by=requested_by,
        prices_as_of=export.prices_as_of,
    )


def report_export_run(*, export_id: int) -> ReportExport:
    """Build the export's file and record it; a scenario that cannot be evaluated fails it.

    Safe to run twice (a redelivered task): a finished export is returned unchanged, and of two
    concurrent builds only the first to finish stores its file.
    """
    export = ReportExport.objects.select_related("scenario", "requested_by").get(pk=export_id)
    if export.is_finished:
        return export
    ReportExport.objects.filter(pk=export.pk, status__in=[ExportStatus.PENDING, ExportStatus.RUNNING]).update(
        status=ExportStatus.RUNNING, started_at=timezone.now(), **jobs.claim_fields()
    )
    started = time.perf_counter()
    try:
        content = report_content_for(
            scenario=export.scenario,
            paper_size=export.paper_size,
            author=_author(export.requested_by),
            prices_as_of=export.prices_as_of,
            report_id=export.pk,
        )
        payload = report_build(content=content, format=export.format)
    except (ScenarioInputError, engine.InputError) as exc:
        return _fail(export, FailureType.USER, str(exc))
    except SoftTimeLimitExceeded:
        return _fail(export, FailureType.TIMEOUT, TIMEOUT_MESSAGE)
    except Exception as exc:  # the job row must say it failed, whatever broke
        logger.exception("report export %s failed", export.pk)
        return _fail(export, FailureType.SYSTEM, SYSTEM_MESSAGE.format(error=type(exc).__name__))
    return _store(export, content, payload, build_seconds=time.perf_counter() - started)


def report_content_for(
    *,
    scenario: Scenario,
    paper_size: str = PaperSize.A4,
    author: str = "",
    prices_as_of: date | None = None,
    report_id: int | None = None,
    generated_at: datetime | None = None,
) -> ReportContent:
    """Evaluate a stored scenario (prices pinned to ``prices_as_of``) and gather what a report shows.

    Raises ScenarioInputError when the scenario cannot be evaluated.
    """
    pinned = copy.copy(scenario)
    pinned.prices_as_of = prices_as_of or scenario.prices_as_of or timezone.localdate()
    evaluation = scenario_figures(scenario=pinned, shown_as=REPORT).shown
    meta = ReportMeta(
        scenario_name=scenario.name,
        scenario_description=scenario.description,
        scenario_id=scenario.pk,
        scenario_updated_at=scenario.updated_at,
        author=author,
        generated_at=generated_at or timezone.now(),
        prices_as_of=pinned.prices_as_of,
        engine_version=evaluation.engine_version,
        paper_size=paper_size,
        report_id=report_id,
        labels={
            "Accelerator": scenario.accelerator.name,
            "System": scenario.system.label,
            "Facility": scenario.facility.name,
        },
        status=_status(scenario),
        sources=source_citations([key for a in evaluation.assumptions for key in a.source_keys],
                                 team_id=scenario.team_id),
    )
    strategies = scenario_strategies(pinned, evaluation)
    return ReportContent(
        meta=meta,
        evaluation=evaluation,
        sweeps=_latest_runs(scenario, RunKind.SWEEP),
        monte_carlo=_latest_runs(scenario, RunKind.MONTE_CARLO),
        sizing=_sizing(evaluation),
        plans=_latest_plan(scenario),
        focus=scenario_focus(pinned, evaluation=evaluation),
        fiscal_years=cash_flow_table(pinned, evaluation, "year"),
        fiscal_quarters=cash_flow_table(pinned, evaluation, "quarter"),
        strategies=strategies_shown(strategies),
        strategy_inputs=strategies.inputs,
    )


def _status(scenario: Scenario) -> str:
    if not scenario.is_approved:
        return "Draft (not approved)"
    who = scenario.approved_by.get_full_name() or scenario.approved_by.get_username()
    return f"Approved by {who} on {timestamp(scenario.approved_at)}"


def report_build(*, content: ReportContent, format: str) -> bytes:
    """The report file in one format."""
    return BUILDERS[ReportFormat(format)](content)


def report_file_name(export: ReportExport) -> str:
    """A readable, safe file name: <scenario slug>-report-<id>.<format>."""
    return f"{slugify(export.scenario.name)[:60] or 'scenario'}-report-{export.pk}.{export.format}"


def _store(
    export: ReportExport, content: ReportContent, payload: bytes, *, build_seconds: float
) -> ReportExport:
    """Save the file, then record it, unless another build of the same export got there first."""
    export.file.save(report_file_name(export), ContentFile(payload), save=False)
    recorded = ReportExport.objects.filter(pk=export.pk, status=ExportStatus.RUNNING).update(
        status=ExportStatus.DONE,
        file=export.file.name,
        size_bytes=len(payload),
        engine_version=content.meta.engine_version,
        scenario_updated_at=content.meta.scenario_updated_at,
        price_snapshot=[_price_json(price) for price in content.prices],
        key_figures={
            **key_figures(content.result),
            "runs": [run.run_id for run in content.sweeps + content.monte_carlo],
        },
        finished_at=timezone.now(),
        build_seconds=round(build_seconds, 3),
    )
    if not recorded:
        export.file.storage.delete(export.file.name)
    else:
        label = f"{export.get_format_display()} export {export.pk} of {content.meta.scenario_name}"
        job_finished_send(kind="export", job_id=export.pk, scenario_id=export.scenario_id, label=label)
    export.refresh_from_db()
    return export


def _fail(export: ReportExport, failure_type: str, error: str) -> ReportExport:
    """Mark an unfinished export failed with its reason; it offers no file."""
    ReportExport.objects.filter(pk=export.pk).filter(
        ~Q(status__in=[ExportStatus.DONE, ExportStatus.FAILED])
    ).update(status=ExportStatus.FAILED, failure_type=failure_type, error=error, finished_at=timezone.now())
    export.refresh_from_db()
    return export


def report_export_fail(*, export_id: int, failure_type: str, error: str) -> None:
    """Mark an export failed from outside its run (the task gave up on it)."""
    _fail(ReportExport.objects.get(pk=export_id), failure_type, error)


def report_exports_reap(*, now: datetime | None = None) -> jobs.Reaped:
    """Send again the exports whose worker died or whose message was lost, or fail them.

    A running export whose worker no longer holds its task, and a pending one sent longer
    than ``JOBS_RESEND_PENDING_AFTER_S`` ago, are sent again until they have been sent
    ``JOBS_MAX_ATTEMPTS`` times; then they are failed with the reason (core/jobs.py).
    """
    return jobs.reap(EXPORT_JOBS, now=now)


EXPORT_JOBS = jobs.JobKind(
    model=ReportExport, running=ExportStatus.RUNNING, done=ExportStatus.DONE,
    hard_limit_s=REPORT_TIME_LIMIT_S, queue=Queue.REPORTS,
    requeue_as={ExportStatus.RUNNING: ExportStatus.PENDING, ExportStatus.PENDING: ExportStatus.PENDING},
    send=_send, failed={"status": ExportStatus.FAILED, "failure_type": FailureType.SYSTEM})


def _author(user: AbstractBaseUser | None) -> str:
    if user is None:
        return ""
    return user.get_full_name() or user.get_username()


def _price_json(price: PriceUsed) -> dict[str, Any]:
    return {
        "price_point_id": price.price_point_id,
        "target": price.target,
        "amount": float(price.amount),
        "currency": price.currency,
        "as_of": price.as_of.isoformat(),
        "source": price.source,
    }


def _latest_runs(scenario: Scenario, kind: str) -> tuple[RecordedRun, ...]:
    """The scenario's latest finished run of a kind (reports show one of each)."""
    run = (
        SweepRun.objects.filter(scenario=scenario, kind=kind, status=RunStatus.DONE, summary__isnull=False)
        .order_by("-finished_at", "-id")
        .first()
    )
    if run is None:
        return ()
    points = None
    if kind == RunKind.SWEEP and run.points_total <= SWEEP_SHEET_MAX_POINTS:
        points = run_result_frame(run).drop(columns="point", errors="ignore")
    return (
        RecordedRun(
            run_id=run.pk,
            kind=str(run.kind),
            summary=run.summary,
            finished_at=run.finished_at,
            stale=run.created_at < scenario.updated_at,
            points=points,
        ),
    )


def _latest_plan(scenario: Scenario) -> tuple[RecordedPlan, ...]:
    """The scenario's latest solved, feasible procurement plan (reports show one)."""
    plans = scenario.plans.filter(status=PlanStatus.DONE, result__feasible=True)
    plan = plans.order_by("-finished_at", "-id").first()
    if plan is None:
        return ()
    return (
        RecordedPlan(
            plan_id=plan.pk,
            name=plan.name,
            result=plan.result,
            uncertainty=plan.uncertainty,
            discount_rate_per_year=float(scenario.discount_rate_per_year),
            stale=(plan.solved_at or plan.created_at) < scenario.updated_at,
        ),
    )


def _sizing(evaluation: Evaluation) -> SizingSummary | None:
    sizing = evaluation.sizing
    if sizing is None:
        return None
    return SizingSummary(
        title=sizing.describe(),
        rows=tuple((figure.name, figure.value, figure.unit) for figure in sizing.figures()),
    )
