"""Runs over scenarios: start (202), poll, cancel, summary, and the full result as Parquet or CSV."""
from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import QuerySet
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample
from drf_spectacular.utils import OpenApiResponse
from drf_spectacular.utils import extend_schema
from rest_framework import renderers
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.reverse import reverse

from tco.api.scenario_jobs import NOT_DONE
from tco.api.scenario_jobs import JobConflict
from tco.api.scenario_jobs import ScenarioJobViewSet
from tco.demo import EXAMPLE_SCENARIO_DESCRIPTION
from tco.models import FailureType
from tco.models import RunKind
from tco.models import RunStatus
from tco.models import Scenario
from tco.models import SweepRun
from tco.runs.errors import RunSpecError
from tco.runs.limits import MAX_CHUNK_POINTS
from tco.runs.quota import QUOTA_FIELD
from tco.runs.quota import team_usage
from tco.runs.results import csv_stream
from tco.runs.results import parquet_stream
from tco.selectors import scenarios_for
from tco.selectors import sweep_runs_for
from tco.services.runs import MAX_SEED
from tco.services.runs import run_currency
from tco.services.runs import run_part_names
from tco.services.runs import sweep_run_cancel
from tco.services.runs import sweep_run_start
from teams.selectors import User
from teams.selectors import teams_of

PARQUET_MEDIA_TYPE = "application/vnd.apache.parquet"
# Refusals about these go under their own key; every other one is about the spec.
START_FIELDS = ("scenario", "kind", "seed", "chunk_size", QUOTA_FIELD)

START_EXAMPLES = [
    OpenApiExample("Sweep: utilisation x electricity price", request_only=True,
                   description=EXAMPLE_SCENARIO_DESCRIPTION, value={
        "scenario": 1, "kind": "sweep", "spec": {"axes": [
            {"path": "workload.utilisation", "start": 0.3, "stop": 1.0, "step": 0.05},
            {"path": "facility.electricity_usd_per_kwh", "low": 0.05, "high": 0.30, "count": 26}]}}),
    OpenApiExample("Monte Carlo on utilisation and the cloud price", request_only=True,
                   description=EXAMPLE_SCENARIO_DESCRIPTION, value={
        "scenario": 1, "kind": "monte_carlo", "seed": 42, "spec": {"samples": 100_000, "distributions": [
            {"path": "workload.utilisation", "kind": "triangular", "low": 0.4, "mode": 0.65, "high": 0.9},
            {"path": "rent.0.price_usd_per_instance_hour", "kind": "normal", "mean": 55, "sd": 8,
             "low": 30, "high": 80}]}}),
    OpenApiExample("Sensitivity, +/-10 %", request_only=True,
                   description=EXAMPLE_SCENARIO_DESCRIPTION,
                   value={"scenario": 1, "kind": "sensitivity", "spec": {"step_share": 0.1}}),
]


class RunStartSerializer(serializers.Serializer):
    """What starting a run takes: a scenario of the user's teams, the kind of run and its spec."""

    scenario = serializers.PrimaryKeyRelatedField(queryset=Scenario.objects.none())
    kind = serializers.ChoiceField(choices=RunKind.choices)
    spec = serializers.JSONField(help_text="Sweep axes, Monte Carlo distributions or the sensitivity "
                                           "step; see tco/runs/specs.py for the forms.")
    seed = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=MAX_SEED,
                                    help_text="Monte Carlo only; empty = a random seed, stored on the run.")
    chunk_size = serializers.IntegerField(required=False, allow_null=True, min_value=1,
                                          max_value=MAX_CHUNK_POINTS,
                                          help_text="Points per chunk, at least the points / 1,024; empty = "
                                                    "chosen from the points, memory budget and workers.")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        request = self.context.get("request")  # none when the API schema is generated
        if request is not None:
            self.fields["scenario"].queryset = scenarios_for(request.user)


class SweepRunSerializer(serializers.ModelSerializer):
    """A run as clients poll it; the summary and the result files are at their own URLs."""

    url = serializers.SerializerMethodField()
    # Empty until the run fails; said in the schema, so clients (and schemathesis) accept "".
    failure_type = serializers.ChoiceField(choices=FailureType.choices, allow_blank=True, read_only=True)
    summary_url = serializers.SerializerMethodField()
    result_parquet_url = serializers.SerializerMethodField()
    result_csv_url = serializers.SerializerMethodField()

    class Meta:
        model = SweepRun
        fields = ["id", "url", "scenario", "kind", "status", "progress", "spec", "seed", "points_total",
                  "chunk_size", "chunks_total", "chunks_done", "created_at", "started_at", "finished_at",
                  "deadline_at", "failure_type", "error", "summary_url", "result_parquet_url",
                  "result_csv_url"]
        read_only_fields = fields

    def get_url(self, run: SweepRun) -> str:
        return self._url("sweep-run-detail", run)

    def get_summary_url(self, run: SweepRun) -> str | None:
        return self._url("sweep-run-summary", run) if run.status == RunStatus.DONE else None

    def get_result_parquet_url(self, run: SweepRun) -> str | None:
        return self._url("sweep-run-result-parquet", run) if run.status == RunStatus.DONE else None

    def get_result_csv_url(self, run: SweepRun) -> str | None:
        return self._url("sweep-run-result-csv", run) if run.status == RunStatus.DONE else None

    def _url(self, name: str, run: SweepRun) -> str:
        return reverse(name, args=[run.pk], request=self.context.get("request"))



class SweepRunSummarySerializer(SweepRunSerializer):
    """A run in a list: its status and sizes; the spec (an axis may list its values) is on the run."""

    class Meta(SweepRunSerializer.Meta):
        fields = [name for name in SweepRunSerializer.Meta.fields if name != "spec"]
        read_only_fields = fields

class RunStorageSerializer(serializers.Serializer):
    """A team's stored run results against its quota."""

    team = serializers.SlugField()
    runs = serializers.IntegerField(help_text="Runs of the team's scenarios, whatever their status.")
    used_bytes = serializers.IntegerField()
    quota_bytes = serializers.IntegerField(help_text="RUN_RESULTS_QUOTA_BYTES.")
    used_share = serializers.FloatField(help_text="Used / quota, 0-1.")
    used = serializers.CharField(help_text="Used, as a person reads it (1.06 GB).")
    quota = serializers.CharField()


class SweepRunFilterSet(django_filters.FilterSet):
    """Runs by scenario, kind and status."""

    scenario_id = django_filters.NumberFilter(field_name="scenario_id")

    class Meta:
        model = SweepRun
        fields = ["scenario_id", "kind", "status"]


class _FileRenderer(renderers.BaseRenderer):
    """Lets clients ask for a file type; the view answers with the file itself, or with its
    error (409 before the run is done) as JSON, labelled so."""

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> Any:
        response = (renderer_context or {}).get("response")
        if response is not None and response.exception:
            response["Content-Type"] = "application/json"
            return renderers.JSONRenderer().render(data)
        return data


class ParquetRenderer(_FileRenderer):
    """Accepts Parquet downloads."""

    media_type = PARQUET_MEDIA_TYPE
    format = "parquet"


class CSVRenderer(_FileRenderer):
    """Accepts CSV downloads."""

    media_type = "text/csv"
    format = "csv"


class SweepRunViewSet(ScenarioJobViewSet):
    """Sweeps, Monte Carlo and sensitivity runs over the scenarios of the user's teams.

    POST answers 202 with the run; poll it until its status is done, failed or cancelled.
    """

    serializer_class = SweepRunSerializer
    list_serializer_class = SweepRunSummarySerializer
    detail_only_fields = ("spec",)
    filterset_class = SweepRunFilterSet
    job_name = "run"
    done_status = RunStatus.DONE
    ordering_fields = ["created_at", "status"]

    def jobs_for(self, user: User) -> QuerySet[SweepRun]:
        return sweep_runs_for(user).defer("engine_inputs", "summary")

    def refusal(self, exc: RunSpecError) -> dict[str, Any]:
        """DRF's error shape: start fields under their own key, spec problems under ``spec``."""
        if exc.field in START_FIELDS:
            return {exc.field: [exc.message]}
        return {"spec": {exc.field: [exc.message]}}

    @extend_schema(request=RunStartSerializer, responses={202: SweepRunSerializer}, examples=START_EXAMPLES)
    def create(self, request):
        """Check the spec and queue the run; a spec that cannot run is refused (400) with the field."""
        start = self.start_data(RunStartSerializer)
        return self.start(sweep_run_start, **start, created_by=request.user)

    @extend_schema(responses={200: OpenApiTypes.OBJECT, 409: NOT_DONE})
    @action(detail=True, methods=["get"])
    def summary(self, request, pk=None):
        """Sweep: ranges, winner shares, breakeven heat map. Monte Carlo: P10/P50/P90, P(buy wins),
        histogram. Both: ``ranking``, every option (buying, each rent option, each per-token API)
        with the probability (share of points) that it is the cheapest and its NPV's spread, and
        ``margin_usd``, the winner's margin over the next cheapest. Sensitivity: tornado rows,
        the swing of the winner's margin. Amounts are in ``currency`` whatever the ``_usd`` of
        the field names."""
        run = self.done_job()
        return Response(run.summary)

    @extend_schema(responses={(200, PARQUET_MEDIA_TYPE): OpenApiTypes.BINARY})
    @action(detail=True, methods=["get"], url_path=r"result\.parquet", url_name="result-parquet",
            renderer_classes=[ParquetRenderer])
    def result_parquet(self, request, pk=None):
        """The full result, one row per point."""
        run = self.done_job()
        parquet = parquet_stream(run_part_names(run), run_currency(run))
        response = StreamingHttpResponse(parquet, content_type=PARQUET_MEDIA_TYPE)
        response["Content-Disposition"] = f'attachment; filename="run-{run.pk}.parquet"'
        return response

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.STR})
    @action(detail=True, methods=["get"], url_path=r"result\.csv", url_name="result-csv",
            renderer_classes=[CSVRenderer])
    def result_csv(self, request, pk=None):
        """The full result as CSV, streamed a batch of rows at a time."""
        run = self.done_job()
        rows = csv_stream(run_part_names(run), run_currency(run))
        response = StreamingHttpResponse(rows, content_type="text/csv")
        response["Content-Disposition"] = f'attachment; filename="run-{run.pk}.csv"'
        return response

    @extend_schema(responses={200: RunStorageSerializer(many=True)})
    @action(detail=False, methods=["get"], pagination_class=None)  # one row per team of the user
    def storage(self, request):
        """Each of the user's teams: the run results it stores against its quota."""
        return Response([usage.to_json() for usage in team_usage(teams_of(request.user))])

    @extend_schema(request=None, responses={202: SweepRunSerializer, 409: OpenApiResponse(
        description="The run had already ended.")})
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        """Stop the run: no more chunks are queued; queued ones return at once."""
        run = self.get_object()
        if not sweep_run_cancel(run=run):
            raise JobConflict(f"the run has already ended ({run.status})")
        return self.accepted(run)


