"""The team home, the admin's index: the user's teams' scenarios with their answer, the work in
flight, the prices past their staleness limit, and what to do next.

The scenarios' figures come from the scenario list's own cached summary
(``tco.admin.result.scenario_result``), so the home and the list always say the same.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count
from django.db.models import F
from django.db.models import Q
from django.urls import reverse

from catalog.choices import Provider
from catalog.models import CloudOffering
from catalog.models import PriceRefreshJob
from catalog.models import QuoteImport
from catalog.models import RefreshStatus
from catalog.refresh.freshness import is_stale_age
from catalog.refresh.freshness import price_point_age
from catalog.refresh.freshness import staleness_limit_days
from reports.choices import ExportStatus
from reports.models import ReportExport
from tco.admin.result import SUMMARY_HEADINGS
from tco.admin.result import scenario_result
from tco.choices import PlanStatus
from tco.choices import ScenarioStatus
from tco.models.runs import ACTIVE_STATUSES
from tco.selectors import plans_for
from tco.selectors import scenarios_for
from tco.selectors import sweep_runs_for
from teams.selectors import for_teams
from teams.selectors import team_ids_of

# Apps people do not work in but staff operate: shown apart, below the work, to staff only.
OPERATIONS_APPS = ("auth", "axes", "knox", "django_celery_beat")
HOME_SCENARIOS = 12  # the most recently changed; the list has the rest


@dataclass(frozen=True)
class InFlight:
    """A job still running: what it is, how far it got (percent, None = not measurable), link."""

    kind: str
    name: str
    status: str
    percent: int | None
    url: str


def home_context(user: AbstractBaseUser) -> dict[str, Any]:
    """Everything the home shows to ``user``."""
    scenarios = list(scenarios_for(user).select_related("team").annotate(
        alerts_open=Count("price_alerts", filter=Q(price_alerts__created_at__gt=F("updated_at"))))
        .order_by("-updated_at")[:HOME_SCENARIOS])
    return {
        "scenario_rows": [_scenario_row(scenario) for scenario in scenarios],
        "headings": SUMMARY_HEADINGS,
        "scenarios_total": scenarios_for(user).count(),
        "in_flight": in_flight(user),
        "stale_prices": stale_prices_by_provider(),
        "stale_after_days": staleness_limit_days(),
    }


def _scenario_row(scenario) -> dict[str, Any]:
    summary = scenario_result(scenario)
    return {
        "name": scenario.name,
        "url": reverse("admin:tco_scenario_change", args=[scenario.pk]),
        "team": scenario.team.name,
        "verdict": summary.get("winner", ""),
        "margin": summary.get("npv_saving", ""),
        "breakeven": summary.get("breakeven", ""),
        "error": summary.get("evaluation_error", ""),
        "approved": scenario.status == ScenarioStatus.APPROVED,
        "status": scenario.get_status_display(),
        "price_age_days": summary.get("price_age_days"),
        "price_stale": is_stale_age(summary.get("price_age_days") or 0),
        "alerts_open": scenario.alerts_open,
        "alerts_url": reverse("admin:tco_pricealert_changelist") + f"?scenario__id__exact={scenario.pk}",
    }


def in_flight(user: AbstractBaseUser) -> list[InFlight]:
    """The user's teams' runs, plans, exports and quote imports still under way; for staff, the
    price refreshes running."""
    rows = [InFlight(run.get_kind_display(), str(run.scenario), run.get_status_display(), run.progress,
                     reverse("admin:tco_sweeprun_change", args=[run.pk]))
            for run in sweep_runs_for(user).filter(status__in=ACTIVE_STATUSES).select_related("scenario")]
    for plan in plans_for(user).exclude(status__in=(PlanStatus.DONE, PlanStatus.FAILED)):
        percent = round(100 * plan.chunks_done / plan.chunks_total) if plan.chunks_total else None
        rows.append(InFlight("Plan", plan.name, plan.get_status_display(), percent,
                             reverse("admin:tco_procurementplan_change", args=[plan.pk])))
    exports = for_teams(ReportExport.objects.filter(status__in=(ExportStatus.PENDING, ExportStatus.RUNNING)),
                        user, team_path="scenario__team").select_related("scenario")
    rows += [InFlight(f"{export.get_format_display()} export", str(export.scenario),
                      export.get_status_display(), None,
                      reverse("admin:reports_reportexport_change", args=[export.pk])) for export in exports]
    imports = QuoteImport.objects.filter(Q(team__isnull=True) | Q(team__in=list(team_ids_of(user))))
    rows += [InFlight("Quote import", job.file_name, job.get_status_display(), job.progress_percent,
                      reverse("admin:catalog_quoteimport_change", args=[job.pk]))
             for job in imports.exclude(status__in=("done", "failed")).defer("content")]
    if user.is_staff:
        rows += [InFlight("Price refresh", Provider(job.provider).label, job.get_status_display(), None,
                          reverse("admin:catalog_pricerefreshjob_change", args=[job.pk]))
                 for job in PriceRefreshJob.objects.filter(status=RefreshStatus.RUNNING)]
    return rows


def stale_prices_by_provider() -> list[dict[str, Any]]:
    """Per provider, the public offerings whose latest price is past the staleness limit."""
    counts: dict[str, list[int]] = {}
    offerings = CloudOffering.objects.filter(team__isnull=True).prefetch_related("prices__last_check")
    for offering in offerings:
        public = [p for p in offering.prices.all() if p.team_id is None]
        if not public:
            continue
        latest = max(public, key=lambda point: (point.as_of, point.pk))
        stale, total = counts.setdefault(offering.provider, [0, 0])
        counts[offering.provider] = [stale + price_point_age(latest).is_stale, total + 1]
    url = reverse("admin:catalog_cloudoffering_changelist")
    return [{"provider": Provider(provider).label, "stale": stale, "total": total,
             "url": f"{url}?provider__exact={provider}"}
            for provider, (stale, total) in sorted(counts.items()) if stale]


def split_app_list(app_list: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the apps people work in, the operations apps), each in the admin's order."""
    work = [app for app in app_list if app["app_label"] not in OPERATIONS_APPS]
    operations = [app for app in app_list if app["app_label"] in OPERATIONS_APPS]
    return work, operations
