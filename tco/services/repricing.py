"""Price snapshots of evaluated scenarios, and re-pricing saved scenarios after a price refresh.

    evaluation = scenario_evaluate(scenario=scenario)          # side-effect free
    scenario_snapshot_save(scenario=scenario, evaluation=evaluation)  # what the user was shown

After a refresh that wrote prices, ``scenarios_reprice(job_id=...)`` evaluates again every saved
scenario with a rent option priced from the catalog on an offering the refresh re-priced (or,
for an option in its cheapest region, on any region of an instance type it re-priced), and
compares with the scenario's latest snapshot. When against some rent option whose price point
changed the winner flips, or the breakeven month moves by at least
``settings.REPRICE_BREAKEVEN_THRESHOLD_MONTHS`` (to or from "never" always counts), it writes a
PriceAlert per such option and a new snapshot. Over every option (buying, each rent option, each
per-token API) the verdict alerts too: when the cheapest option changes, or when the winner's
margin over the next cheapest moves by more than the team's share (``Team.alert_margin_share``).
Without an alert the snapshot is kept, so small
moves add up against the figures last reported until together they cross the threshold.
A scenario edited since its snapshot, or never snapshotted, gets a fresh snapshot and no alert:
its old figures are not comparable, or not known.

An approved scenario keeps the answer pinned at its approval (tco/services/pinning.py); what
moves is its answer at today's prices, compared with the approval snapshot (or the last alert
since): ``scenario_alert_today`` alerts on it whenever the approved scenario is evaluated, and
after a refresh. Its frozen inputs cannot move it, so any move beyond the thresholds alerts.
"""
from __future__ import annotations

import logging
from datetime import datetime
from decimal import Decimal
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Exists
from django.db.models import F
from django.db.models import OuterRef
from django.db.models import Q
from django.db.models import QuerySet
from django.utils import timezone

from catalog.models import CloudOffering
from catalog.models import PricePoint
from catalog.models import PriceRefreshJob
from core import jobs
from core.queues import Queue
from costmodel.version import ENGINE_VERSION
from costmodel.vocabulary import RESULTS
from costmodel.vocabulary import Kind
from costmodel.vocabulary import money
from costmodel.vocabulary import money_in
from costmodel.vocabulary import show
from tco.models import AlertKind
from tco.models import PriceAlert
from tco.models import RepriceJob
from tco.models import RepriceStatus
from tco.models import Scenario
from tco.models import ScenarioSnapshot
from tco.models import SnapshotReason
from tco.services.engine_inputs import ScenarioInputError
from tco.services.engine_inputs import reporting_currency
from tco.services.evaluation import Evaluation
from tco.services.evaluation import option_figures
from tco.services.evaluation import scenario_evaluate

logger = logging.getLogger(__name__)
NPV_QUANTUM = Decimal("0.01")


def scenario_snapshot_save(*, scenario: Scenario, evaluation: Evaluation,
                           reason: SnapshotReason = SnapshotReason.EVALUATED,
                           refresh_job: PriceRefreshJob | None = None,
                           pinned: dict[str, Any] | None = None) -> ScenarioSnapshot:
    """Record the price points a saved scenario was evaluated with and the figures it gave (and,
    on approval, the ``pinned`` inputs it is evaluated with from then on)."""
    prices = evaluation.prices
    snapshot = ScenarioSnapshot.objects.create(
        scenario=scenario, reason=reason, refresh_job=refresh_job, engine_version=ENGINE_VERSION,
        prices=[{"price_point_id": p.price_point_id, "target": p.target, "amount": str(p.amount),
                 "currency": p.currency, "as_of": p.as_of.isoformat(), "source": p.source,
                 "path": p.path, "checked_on": p.checked_on and p.checked_on.isoformat()}
                for p in prices],
        options=snapshot_options(scenario, evaluation), verdict=verdict_figures(evaluation),
        pinned=pinned)
    snapshot.price_points.set(PricePoint.objects.filter(pk__in=[p.price_point_id for p in prices]))
    return snapshot


def snapshot_options(scenario: Scenario, evaluation: Evaluation) -> list[dict[str, Any]]:
    """Per rent option, in order: its price and price point, and the winner, breakeven month and
    NPV saving of buying against it (JSON-ready; breakeven None = never)."""
    catalog_prices = {price.path: price for price in evaluation.prices}
    rows = []
    for index, (option, rent, figures) in enumerate(zip(
            scenario.rent_options.all(), evaluation.inputs.rent, option_figures(evaluation.result),
            strict=True)):
        point_id, price = (None, option.price_usd_per_instance_hour)
        if price is None:
            used = catalog_prices[f"rent.{index}.price_usd_per_instance_hour"]
            point_id, price = used.price_point_id, used.amount
        rows.append({
            "name": rent.name,
            "offering_id": option.offering_id,
            "price_point_id": point_id,
            "price_usd_per_instance_hour": str(price),
            "winner": figures["winner"],
            "breakeven_month": figures["breakeven_month"],
            "npv_saving_usd": figures["npv_saving_usd"],
        })
    return rows


def verdict_figures(evaluation: Evaluation) -> dict[str, Any]:
    """The verdict over every option as a snapshot keeps it: the cheapest, its margin over the
    next cheapest and each option's NPV, to the cent, in the evaluation's currency."""
    verdict = evaluation.result.verdict
    return {"currency": evaluation.currency, "cheapest": verdict.cheapest.label,
            "cheapest_kind": verdict.cheapest.kind,
            "margin": None if verdict.margin_usd is None else round(verdict.margin_usd, 2),
            "options": [{"label": option.label, "npv": round(option.npv_usd, 2)}
                        for option in verdict.ranked]}


def scenarios_reprice(*, job_id: int) -> list[PriceAlert]:
    """Re-evaluate the saved scenarios whose catalog prices the refresh ``job_id`` changed."""
    job = PriceRefreshJob.objects.get(pk=job_id)
    scenarios = Scenario.objects.filter(
        Q(rent_options__offering__prices__in=job.written_prices.all())
        | Q(rent_options__cheapest_region=True, rent_options__offering__in=_other_regions(job)),
        rent_options__price_usd_per_instance_hour__isnull=True,
    ).distinct().order_by("pk")
    alerts: list[PriceAlert] = []
    for scenario in scenarios:
        alerts += scenario_reprice(scenario=scenario, refresh_job=job)
    return alerts


def _other_regions(job: PriceRefreshJob) -> QuerySet[CloudOffering]:
    """Every region's offering of an instance type and pricing model the job wrote a price of:
    a rent option in the cheapest region may now be priced from any of them."""
    written = CloudOffering.objects.filter(prices__in=job.written_prices.all())
    return CloudOffering.objects.filter(Exists(written.filter(
        provider=OuterRef("provider"), instance_type=OuterRef("instance_type"),
        pricing_model=OuterRef("pricing_model"))))
# A re-pricing evaluates each affected scenario once; minutes cover thousands.
REPRICE_SOFT_TIME_LIMIT_S = 600
REPRICE_TIME_LIMIT_S = 660


def reprice_job_request(*, refresh_job_id: int) -> RepriceJob:
    """Record the re-pricing a refresh calls for and queue it once the transaction commits."""
    job = RepriceJob.objects.create(refresh_job_id=refresh_job_id, attempts=1, queued_at=timezone.now())
    transaction.on_commit(partial(_send, job.pk))
    return job


def reprice_job_run(*, reprice_id: int) -> None:
    """Re-price the scenarios of one refresh (again after a lost worker: nothing is alerted twice)."""
    claimed = RepriceJob.objects.filter(pk=reprice_id,
                                        status__in=(RepriceStatus.PENDING, RepriceStatus.RUNNING))
    if not claimed.update(status=RepriceStatus.RUNNING, started_at=timezone.now(), **jobs.claim_fields()):
        return
    job = RepriceJob.objects.get(pk=reprice_id)
    alerts = scenarios_reprice(job_id=job.refresh_job_id)
    RepriceJob.objects.filter(pk=reprice_id, status=RepriceStatus.RUNNING).update(
        status=RepriceStatus.DONE, alerts=F("alerts") + len(alerts), finished_at=timezone.now())


def reprice_jobs_reap(*, now: datetime | None = None) -> jobs.Reaped:
    """Send again, or fail, the re-pricings whose worker died or whose message was lost."""
    return jobs.reap(REPRICE_JOBS, now=now)


def _send(reprice_id: int) -> None:
    from tco.tasks import scenarios_reprice_task  # the tasks module imports this one

    jobs.send(scenarios_reprice_task, kwargs={"reprice_id": reprice_id}, queue=Queue.REFRESH)


@transaction.atomic
def scenario_reprice(*, scenario: Scenario, refresh_job: PriceRefreshJob | None = None) -> list[PriceAlert]:
    """Evaluate one saved scenario again and alert on what its new prices moved; see the module."""
    try:
        evaluation = scenario_evaluate(scenario=scenario)
    except ScenarioInputError as exc:
        logger.warning("scenario %s cannot be re-priced: %s", scenario.pk, exc)
        return []
    if evaluation.pinned_at is not None:
        return scenario_alert_today(scenario=scenario, evaluation=evaluation, refresh_job=refresh_job)
    baseline = scenario.snapshots.order_by("-created_at", "-id").first()
    options = snapshot_options(scenario, evaluation)
    if not _comparable(baseline, scenario, options):
        scenario_snapshot_save(scenario=scenario, evaluation=evaluation,
                               reason=SnapshotReason.REPRICED, refresh_job=refresh_job)
        return []
    repriced = [(old, new) for old, new in zip(baseline.options, options, strict=True)
                if old["price_point_id"] != new["price_point_id"]]
    alerts = _alerts(scenario, refresh_job, baseline, evaluation, repriced)
    if alerts:
        scenario_snapshot_save(scenario=scenario, evaluation=evaluation,
                               reason=SnapshotReason.REPRICED, refresh_job=refresh_job)
    return alerts


@transaction.atomic
def scenario_alert_today(*, scenario: Scenario, evaluation: Evaluation,
                         refresh_job: PriceRefreshJob | None = None) -> list[PriceAlert]:
    """Alert when an approved scenario's answer at today's prices has moved past the thresholds
    from its approval (or from the last alert); the pinned answer itself never moves.

    ``evaluation`` is the approved scenario's own (pinned, with ``today`` beside it).
    """
    if evaluation.today is None:
        return []
    baseline = (scenario.snapshots.filter(reason__in=[SnapshotReason.APPROVED, SnapshotReason.REPRICED])
                .order_by("-created_at", "-id").first())
    options = snapshot_options(scenario, evaluation.today)
    if baseline is None or _option_keys(baseline.options) != _option_keys(options):
        return []
    pairs = list(zip(baseline.options, options, strict=True))
    alerts = _alerts(scenario, refresh_job, baseline, evaluation.today, pairs)
    if alerts:
        scenario_snapshot_save(scenario=scenario, evaluation=evaluation.today,
                               reason=SnapshotReason.REPRICED, refresh_job=refresh_job)
    return alerts


def _comparable(baseline: ScenarioSnapshot | None, scenario: Scenario,
                options: list[dict[str, Any]]) -> bool:
    """Whether the baseline's figures were got from the scenario as it is now."""
    if baseline is None or baseline.created_at < scenario.updated_at:
        return False
    return _option_keys(baseline.options) == _option_keys(options)


def _option_keys(rows: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return [(row["name"], row["offering_id"]) for row in rows]


def moved(old: dict[str, Any], new: dict[str, Any], *, threshold_months: int) -> AlertKind | None:
    """What moved between two snapshot rows of one rent option enough to alert, if anything."""
    if old["winner"] != new["winner"]:
        return AlertKind.WINNER_CHANGED
    before, after = old["breakeven_month"], new["breakeven_month"]
    if (before is None) != (after is None):
        return AlertKind.BREAKEVEN_MOVED
    if before is not None and abs(after - before) >= threshold_months:
        return AlertKind.BREAKEVEN_MOVED
    return None


def verdict_moved(old: dict[str, Any] | None, new: dict[str, Any], *,
                  margin_share: Decimal) -> AlertKind | None:
    """What moved in the verdict over every option enough to alert, if anything: another option
    is the cheapest, or the winner's margin moved by more than ``margin_share`` of itself."""
    if old is None or old["currency"] != new["currency"]:
        return None  # recorded before verdicts were, or in another currency: not comparable
    if old["cheapest"] != new["cheapest"]:
        return AlertKind.WINNER_CHANGED
    before, after = old["margin"], new["margin"]
    if before is not None and after is not None and abs(after - before) > float(margin_share) * abs(before):
        return AlertKind.MARGIN_MOVED
    return None


Rows = list[tuple[dict[str, Any], dict[str, Any]]]


def _alerts(scenario: Scenario, refresh_job: PriceRefreshJob | None, baseline: ScenarioSnapshot,
            evaluation: Evaluation, compared: Rows) -> list[PriceAlert]:
    """One alert per rent option whose figures moved past the thresholds, each carrying the
    verdict before and after; when none did but the verdict over every option moved (another
    winner, or the winner's margin past the team's share), one alert for the verdict, naming the
    first repriced option's price."""
    verdicts = (baseline.verdict or {}, verdict_figures(evaluation))
    threshold = settings.REPRICE_BREAKEVEN_THRESHOLD_MONTHS
    alerts = [_alert(scenario, refresh_job, old, new, kind, verdicts) for old, new in compared
              if (kind := moved(old, new, threshold_months=threshold)) is not None]
    kind = verdict_moved(baseline.verdict, verdicts[1], margin_share=scenario.team.alert_margin_share)
    if alerts or kind is None or not compared:
        return alerts
    old_row, new_row = compared[0]
    return [_alert(scenario, refresh_job, old_row, new_row, kind, verdicts, about_verdict=True)]


def _alert(scenario: Scenario, refresh_job: PriceRefreshJob | None, old: dict[str, Any],
           new: dict[str, Any], kind: AlertKind, verdicts: tuple[dict[str, Any], dict[str, Any]],
           *, about_verdict: bool = False) -> PriceAlert:
    old_point = PricePoint.objects.filter(pk=old["price_point_id"]).first()
    new_point = PricePoint.objects.filter(pk=new["price_point_id"]).select_related("offering").first()
    currency = reporting_currency(scenario)
    with money_in(currency):  # the figures are in it
        message = (verdict_alert_message(scenario.name, *verdicts, old, new, new_point) if about_verdict
                   else alert_message(scenario.name, old, new, new_point) + _cheapest_now(verdicts[1]))
    old_verdict, new_verdict = verdicts
    return PriceAlert.objects.create(
        scenario=scenario, refresh_job=refresh_job, kind=kind, rent_option=new["name"],
        old_price_point=old_point, new_price_point=new_point,
        old_price_usd_per_instance_hour=Decimal(old["price_usd_per_instance_hour"]),
        new_price_usd_per_instance_hour=Decimal(new["price_usd_per_instance_hour"]),
        old_winner=old["winner"], new_winner=new["winner"],
        old_breakeven_month=old["breakeven_month"], new_breakeven_month=new["breakeven_month"],
        old_npv_saving_usd=_usd(old["npv_saving_usd"]), new_npv_saving_usd=_usd(new["npv_saving_usd"]),
        old_cheapest=old_verdict.get("cheapest", ""), new_cheapest=new_verdict.get("cheapest", ""),
        old_margin=_optional_usd(old_verdict.get("margin")),
        new_margin=_optional_usd(new_verdict.get("margin")),
        currency=currency, message=message)


def verdict_alert_message(scenario_name: str, old_verdict: dict[str, Any], new_verdict: dict[str, Any],
                          old: dict[str, Any], new: dict[str, Any], new_point: PricePoint | None) -> str:
    """The verdict's alert in one sentence: the cheapest option and its margin, old -> new, and
    the price that moved ('... margin over the next cheapest EUR 209,821.16 -> EUR 92,321.31')."""
    def margin(value: float | None) -> str:
        return "none (the only option)" if value is None else money(value)

    if old_verdict["cheapest"] == new_verdict["cheapest"]:
        winner = f"the cheapest is still {new_verdict['cheapest']}"
    else:
        winner = f"the cheapest option {old_verdict['cheapest']} -> {new_verdict['cheapest']}"
    return (f"{scenario_name}: {winner}, its margin over the next cheapest (NPV) "
            f"{margin(old_verdict['margin'])} -> {margin(new_verdict['margin'])}; "
            f"{_price_moved(old, new, new_point)}.")


def alert_message(scenario_name: str, old: dict[str, Any], new: dict[str, Any],
                  new_point: PricePoint | None) -> str:
    """The alert in one sentence: scenario, option, old -> new figures and the price that moved,
    money in the vocabulary's format ('$55.04 -> $30.00 per instance-hour')."""
    saving = RESULTS["rent.npv_saving_usd"]
    return (f"{scenario_name}: against {new['name']}, winner {old['winner']} -> {new['winner']}, "
            f"breakeven {_month(old['breakeven_month'])} -> {_month(new['breakeven_month'])}, "
            f"NPV saving of buying {saving.show(old['npv_saving_usd'])} -> "
            f"{saving.show(new['npv_saving_usd'])}; {_price_moved(old, new, new_point)}.")


def _cheapest_now(verdict: dict[str, Any]) -> str:
    """The verdict over every option after the move, for an alert about one rent option."""
    margin = verdict["margin"]
    beyond = "" if margin is None else f", by {money(margin)} over the next cheapest (NPV)"
    return f" The cheapest of every option is now {verdict['cheapest']}{beyond}."


def _price_moved(old: dict[str, Any], new: dict[str, Any], new_point: PricePoint | None) -> str:
    old_price, new_price = (_price(row["price_usd_per_instance_hour"]) for row in (old, new))
    if old_price == new_price:
        price = f"the price of {new['name']} stayed {new_price} per instance-hour; other prices moved"
    else:
        price = f"the price of {new['name']} moved {old_price} -> {new_price} per instance-hour"
    if new_point is not None:
        price += f" (price point {new_point.pk}, {new_point.source} as of {new_point.as_of})"
    return price


def _price(amount: str) -> str:
    return show(Decimal(amount), Kind.USD_PRICE)


def _month(month: int | None) -> str:
    return "never" if month is None else f"month {month}"


def _usd(value: float) -> Decimal:
    return Decimal(repr(value)).quantize(NPV_QUANTUM)


def _optional_usd(value: float | None) -> Decimal | None:
    return None if value is None else _usd(value)


REPRICE_JOBS = jobs.JobKind(
    model=RepriceJob, running=RepriceStatus.RUNNING, done=RepriceStatus.DONE,
    hard_limit_s=REPRICE_TIME_LIMIT_S, queue=Queue.REFRESH,
    requeue_as={RepriceStatus.RUNNING: RepriceStatus.PENDING, RepriceStatus.PENDING: RepriceStatus.PENDING},
    send=_send, failed={"status": RepriceStatus.FAILED})
