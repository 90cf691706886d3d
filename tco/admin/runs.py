"""Run admin: start a sweep, Monte Carlo or sensitivity run from a scenario, watch it, see its charts."""
from __future__ import annotations

import math
from typing import Any

from django import forms
from django.contrib import admin
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.http import HttpRequest
from django.http import HttpResponse
from django.http import HttpResponseRedirect
from django.http import JsonResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path
from django.urls import reverse
from django.utils.html import format_html
from django.views.decorators.http import require_POST

import costmodel as engine
from costmodel.vocabulary import RESULTS
from costmodel.vocabulary import Kind
from costmodel.vocabulary import Term
from costmodel.vocabulary import input_label
from costmodel.vocabulary import input_term
from costmodel.vocabulary import money_currency
from costmodel.vocabulary import money_in
from costmodel.vocabulary import usd_short
from tco.admin.labels import spec_table
from tco.charts.breakeven_heatmap import breakeven_heatmap_figure
from tco.charts.canvas import inline_svg
from tco.charts.saving_histogram import margin_histogram_figure
from tco.charts.saving_histogram import saving_histogram_figure
from tco.charts.tornado import tornado_figure
from tco.models import RunKind
from tco.models import RunStatus
from tco.models import Scenario
from tco.models import SweepRun
from tco.runs.errors import RunSpecError
from tco.runs.limits import MAX_CHUNK_POINTS
from tco.runs.limits import MAX_RUN_POINTS
from tco.runs.specs import DEFAULT_HISTOGRAM_BINS
from tco.runs.specs import DEFAULT_STEP_SHARE
from tco.runs.specs import axis_from_text
from tco.runs.specs import distribution_from_text
from tco.runs.summaries import stored_tornado
from tco.selectors import scenarios_for
from tco.selectors import sweep_runs_for
from tco.services.engine_inputs import ScenarioInputError
from tco.services.engine_inputs import reporting_currency
from tco.services.evaluation import scenario_check
from tco.services.runs import MAX_SEED
from tco.services.runs import run_currency
from tco.services.runs import sweep_run_cancel
from tco.services.runs import sweep_run_start
from teams.admin_mixins import ListedRowsFilter
from teams.admin_mixins import TeamScopedAdminMixin
from teams.models import Role
from teams.selectors import has_role

# The run page asks for progress this often while the run is active.
POLL_EVERY_MS = 1000


class SweepForm(forms.Form):
    """A sweep written one axis per line."""

    axes = forms.CharField(widget=forms.Textarea(attrs={"rows": 4, "cols": 80}), help_text=(
        "One axis per line, NAME=SPEC: a list <code>utilisation=0.4,0.55,0.7</code>, a range with a "
        "step <code>utilisation=0.3:0.9:0.05</code>, or a count of points between bounds "
        "<code>electricity_usd_per_kwh=0.05:0.3@26</code>."))
    heatmap_axes = forms.CharField(required=False, help_text=(
        "Two axes for the breakeven heat map, separated by a comma; empty = the first two."))
    chunk_size = forms.IntegerField(required=False, min_value=1, max_value=MAX_CHUNK_POINTS,
                                    help_text="Points per chunk; empty = sized to the memory budget.")

    def spec(self) -> dict[str, Any]:
        data = self.cleaned_data
        spec: dict[str, Any] = {"axes": [axis_from_text(line) for line in _lines(data["axes"])]}
        if data["heatmap_axes"]:
            spec["heatmap_axes"] = [name.strip() for name in data["heatmap_axes"].split(",")]
        return spec


class MonteCarloForm(forms.Form):
    """A Monte Carlo run written one distribution per line."""

    samples = forms.IntegerField(initial=10_000, min_value=1, max_value=MAX_RUN_POINTS)
    seed = forms.IntegerField(required=False, min_value=0, max_value=MAX_SEED,
                              help_text="Empty = a random seed (stored on the run).")
    distributions = forms.CharField(widget=forms.Textarea(attrs={"rows": 4, "cols": 80}), help_text=(
        "One per line: <code>utilisation=triangular(0.4,0.6,0.9)</code>, <code>uniform(low,high)</code>, "
        "<code>normal(mean,sd,low,high)</code>, <code>lognormal(median,sigma)</code> or "
        "<code>lognormal(median,sigma,low,high)</code>."))
    histogram_bins = forms.IntegerField(initial=DEFAULT_HISTOGRAM_BINS, min_value=1)
    chunk_size = forms.IntegerField(required=False, min_value=1, max_value=MAX_CHUNK_POINTS,
                                    help_text="A multiple of 8,192; empty = sized to the memory budget.")

    def spec(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {"samples": data["samples"], "histogram_bins": data["histogram_bins"],
                "distributions": [distribution_from_text(line) for line in _lines(data["distributions"])]}


class SensitivityForm(forms.Form):
    """A one-at-a-time sensitivity run."""

    step_share = forms.FloatField(initial=DEFAULT_STEP_SHARE, help_text="0.1 moves each input by +/-10 %.")
    paths = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3, "cols": 80}),
                            help_text="Inputs to move, one per line; empty = every cost assumption.")

    def spec(self) -> dict[str, Any]:
        paths = _lines(self.cleaned_data["paths"])
        return {"step_share": self.cleaned_data["step_share"], "paths": paths or None}


START_FORMS: dict[str, type[forms.Form]] = {
    RunKind.SWEEP: SweepForm,
    RunKind.MONTE_CARLO: MonteCarloForm,
    RunKind.SENSITIVITY: SensitivityForm,
}


@admin.register(SweepRun)
class SweepRunAdmin(TeamScopedAdminMixin, admin.ModelAdmin):
    list_display = ["id", "kind", "scenario", "status", "progress_bar", "points_total", "created_at",
                    "finished_at"]
    list_filter = ["kind", "status", ("scenario", ListedRowsFilter)]
    search_fields = ["scenario__name"]
    list_select_related = ["scenario"]
    change_form_template = "admin/tco/sweeprun/change_form.html"
    team_path = "scenario__team"
    readonly_fields = ["spec_shown"]
    fieldsets = [
        # Status and progress are shown once, in the live progress section above the fields.
        (None, {"fields": [("scenario", "kind"), ("points_total", "chunk_size", "seed"),
                           ("created_at", "started_at", "finished_at", "deadline_at"),
                           ("failure_type", "error"), "spec_shown"]}),
        ("Inputs the run started with", {"classes": ["collapse"], "fields": ["engine_inputs"]}),
    ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # runs start from a scenario's page

    @admin.display(description="Axes, distributions or step, as parsed")
    def spec_shown(self, run: SweepRun) -> str:
        return spec_table(run.spec)

    def has_change_permission(self, request: HttpRequest, obj: SweepRun | None = None) -> bool:
        return False  # a run's rows are written by its tasks only

    @admin.display(description="progress")
    def progress_bar(self, run: SweepRun) -> str:
        return format_html('<progress value="{}" max="100"></progress> {}%', run.progress, run.progress)

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("start/<int:scenario_id>/<str:kind>/", view(self.start_view), name="tco_sweeprun_start"),
            path("<int:pk>/progress/", view(self.progress_view), name="tco_sweeprun_progress"),
            path("<int:pk>/cancel/", view(require_POST(self.cancel_view)), name="tco_sweeprun_cancel"),
            *super().get_urls(),
        ]

    def start_view(self, request: HttpRequest, scenario_id: int, kind: str) -> HttpResponse:
        if kind not in START_FORMS:
            raise Http404(f"no run of kind {kind!r}")
        scenario = get_object_or_404(scenarios_for(request.user), pk=scenario_id)
        if not has_role(request.user, scenario.team_id, Role.ANALYST):
            raise PermissionDenied
        form = START_FORMS[kind](request.POST or None)
        if request.method == "POST" and form.is_valid():
            run = _start(request, form, scenario, kind)
            if run is not None:
                self.message_user(request, f"Started {run}.", messages.SUCCESS)
                return HttpResponseRedirect(reverse("admin:tco_sweeprun_change", args=[run.pk]))
        title = f"{RunKind(kind).label} of {scenario}"
        # "Start sweep", but "Start Monte Carlo": a name keeps its capitals.
        start_label = RunKind(kind).label if kind == RunKind.MONTE_CARLO else RunKind(kind).label.lower()
        context = {**self.admin_site.each_context(request), "opts": self.model._meta, "form": form,
                   "scenario": scenario, "kind": RunKind(kind), "title": title,
                   "start_label": start_label}
        with money_in(reporting_currency(scenario)):
            context.update(_input_rows(scenario))
        return TemplateResponse(request, "admin/tco/sweeprun/start_form.html", context)

    def progress_view(self, request: HttpRequest, pk: int) -> JsonResponse:
        runs = sweep_runs_for(request.user).only("status", "progress", "chunks_done", "chunks_total", "error")
        run = get_object_or_404(runs, pk=pk)
        return JsonResponse({"status": run.status, "status_label": run.get_status_display(),
                             "active": run.is_active, "progress": run.progress,
                             "chunks_done": run.chunks_done, "chunks_total": run.chunks_total,
                             "error": run.error})

    def cancel_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        run = get_object_or_404(sweep_runs_for(request.user), pk=pk)
        if not has_role(request.user, run.scenario.team_id, Role.ANALYST):
            raise PermissionDenied
        if sweep_run_cancel(run=run):
            self.message_user(request, "Cancelled; chunks already running finish, no more are queued.")
        else:
            self.message_user(request, f"The run had already ended ({run.status}).", messages.WARNING)
        return HttpResponseRedirect(reverse("admin:tco_sweeprun_change", args=[pk]))

    def change_view(self, request, object_id, form_url="", extra_context=None):
        run = self.get_object(request, object_id)
        # The run's figures are in its scenario's reporting currency (its inputs were converted).
        with money_in(run_currency(run) if run is not None else "USD"):
            extra_context = {**(extra_context or {}), "poll_every_ms": POLL_EVERY_MS,
                             **(_charts(run) if run is not None else {})}
            response = super().change_view(request, object_id, form_url, extra_context)
            return response.render() if isinstance(response, TemplateResponse) else response


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _start(request: HttpRequest, form: forms.Form, scenario: Scenario, kind: str) -> SweepRun | None:
    """Start the run, or put the refusal on the form (field errors where a field is named)."""
    try:
        return sweep_run_start(scenario=scenario, kind=kind, spec=form.spec(),
                               seed=form.cleaned_data.get("seed"),
                               chunk_size=form.cleaned_data.get("chunk_size"), created_by=request.user)
    except RunSpecError as exc:
        name = exc.field.split("[")[0].split(".")[0]
        form.add_error(name if name in form.fields else None, str(exc))
        return None


def _input_rows(scenario: Scenario) -> dict[str, Any]:
    """Every numeric input a run can vary: its label (naming the rent option or cooling tier it
    belongs to), the path to type and its value with its unit; or why the scenario cannot run."""
    try:
        inputs = scenario_check(scenario=scenario, pinned=True).inputs
    except ScenarioInputError as exc:
        return {"inputs_error": str(exc)}
    names = {"rent_names": [option.name for option in inputs.rent],
             "cooling_names": [tier.name for tier in inputs.cooling]}
    return {"inputs": [(input_label(path, **names), path,
                        input_term(path).show_with_unit(float(engine.get_input(inputs, path))))
                       for path in engine.numeric_input_paths(inputs)]}


def _charts(run: SweepRun) -> dict[str, Any]:
    """The finished run's chart as inline SVG: heat maps, histograms or the tornado."""
    if run.status != RunStatus.DONE or not run.summary:
        return {}
    summary = run.summary
    names = _option_names(run)
    rent_names = names["rent_names"]
    if run.kind == RunKind.SWEEP:
        charts = [inline_svg(breakeven_heatmap_figure(summary["heatmap"], rent_names=rent_names))]
    elif run.kind == RunKind.MONTE_CARLO:
        # The winner's margin first (runs summarised before it was measured have none).
        margin = summary.get("margin_usd")
        charts = ([inline_svg(margin_histogram_figure(margin))] if margin and "histogram" in margin else [])
        charts.append(inline_svg(saving_histogram_figure(summary["options"])))
    elif summary["rows"]:
        charts = [inline_svg(tornado_figure(stored_tornado(summary), **names))]
    else:
        charts = []
    if run.kind == RunKind.SENSITIVITY:
        return {"charts": charts, **_swing_rows(stored_tornado(summary), names)}
    return {"charts": charts, "summary_rows": _summary_rows(run), **_ranking_table(run)}


def _option_names(run: SweepRun) -> dict[str, list[str]]:
    """The names of the run's rent options, per-token APIs and cooling tiers, to label the inputs
    that belong to one ("Instance price, p5 on demand"), never "api option 1"."""
    inputs = run.engine_inputs
    return {f"{key}_names": [option["name"] for option in inputs.get(key) or []]
            for key in ("rent", "api", "cooling")}


# The widest bar of the sensitivity page's table [px].
SWING_BAR_PX = 240


def _swing_rows(tornado: engine.Tornado, names: dict[str, list[str]]) -> dict[str, Any]:
    """The sensitivity page's table: each input that moves the figure, widest swing first, with a
    bar to scale, then one line for the inputs that move nothing. The swing is the one the
    scenario's tornado and recommendation give (``SensitivityRow.effect_usd``: a whole-count
    step's jump held apart, and said)."""
    rows = sorted(tornado.rows, key=lambda row: row.effect_usd, reverse=True)
    moving = [row for row in rows if row.effect_usd > 0 or row.swing_usd > 0]
    still = [row for row in rows if row not in moving]
    widest = max((row.effect_usd for row in moving), default=0.0) or 1.0
    shown = [{"label": input_label(row.path, **names), "swing": usd_short(row.effect_usd),
              "bar_px": round(SWING_BAR_PX * row.effect_usd / widest),
              "step": "" if row.effect_usd == row.swing_usd else
              f"{usd_short(row.swing_usd)} with a whole-count step"} for row in moving]
    folded = ""
    if still:
        labels = ", ".join(input_label(row.path, **names) for row in still)
        folded = f"{len(still)} input{'s' if len(still) > 1 else ''} move nothing: {labels}."
    measure = tornado.measure[0].upper() + tornado.measure[1:]
    return {"swing_measure": f"{measure}: {usd_short(tornado.base_saving_usd)} at the scenario's inputs; "
                             f"each input moved by +/-{tornado.step_share:.0%}",
            "swing_rows": shown, "swing_folded": folded, "swing_bar_px": SWING_BAR_PX}


def _ranking_table(run: SweepRun) -> dict[str, Any]:
    """A sweep's or Monte Carlo run's options as a table, in the verdict's words: per option the
    probability (share of points) that it is the cheapest, 0 % included, and its NPV's spread;
    then the spread of the winner's margin over the next cheapest. Nothing for a run summarised
    before its options were ranked."""
    summary = run.summary
    if run.kind == RunKind.SENSITIVITY or "ranking" not in summary:
        return {}
    monte_carlo = run.kind == RunKind.MONTE_CARLO
    stats = ("p10", "p50", "p90", "mean") if monte_carlo else ("min", "mean", "max")
    currency = money_currency()
    cheapest = ("Probability of being the cheapest" if monte_carlo
                else "Share of points where it is the cheapest")
    headings = ["Option", cheapest, *(f"NPV of costs, {STATISTICS[stat]} ({currency})" for stat in stats)]
    money_cells = [[_shown(MONEY, row["npv_usd"][stat]) for stat in stats] for row in summary["ranking"]]
    rows = [[row["label"], _shown(SHARE, row["cheapest_share"]), *cells]
            for row, cells in zip(summary["ranking"], money_cells, strict=True)]
    margin = [_shown(MONEY, summary["margin_usd"][stat]) for stat in stats]
    rows.append(["Winner's margin over the next cheapest (NPV)", "", *margin])
    return {"ranking_headings": headings, "ranking_rows": rows}


def _summary_rows(run: SweepRun) -> list[tuple[str, str]]:
    """A sweep's or Monte Carlo run's figures per rent option as (label, text) rows in the
    vocabulary's formats."""
    rows = []
    for option, figures in run.summary["options"].items():
        for name, value in figures.items():
            if name == "histogram":
                continue
            term = RUN_FIGURES.get(name) or RESULTS.get(f"rent.{name}") or RESULTS["rent.npv_saving_usd"]
            if isinstance(value, dict):
                text = " · ".join(f"{STATISTICS.get(key, key)} {_shown(SHARES.get(key, term), item)}"
                                  for key, item in value.items())
            else:
                text = _shown(term, value)
            rows.append((f"{option}: {term.label}", text))
    return rows


def _shown(term: Term, value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return "n/a"
    return term.show(value)


# Figures a run's summary adds to the result's, and the names of its statistics. Against one
# rent option, buying "wins" the pair; which option is the cheapest of all is the ranking's.
RUN_FIGURES = {
    "buy_wins_share": Term("Share of points where buying costs less than it", "", Kind.SHARE),
    "buy_wins_probability": Term("Probability that buying costs less than it", "", Kind.SHARE),
}
MONEY = Term("NPV of costs", "", Kind.USD)
SHARE = Term("Share", "", Kind.SHARE)
STATISTICS = {"min": "min", "max": "max", "mean": "mean", "p10": "P10", "p50": "P50", "p90": "P90",
              "never_share": "never"}
# Statistics that are a share of the points whatever the figure (never breaking even: 67.8%).
SHARES = {"never_share": Term("Share of points that never break even", "", Kind.SHARE)}
