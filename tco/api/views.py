"""Scenario CRUD, approval, history and evaluation of a stored scenario, and stateless evaluation
for budgeting tools. Every scenario read goes through tco.selectors.scenarios_for: another
team's scenario is not found (404); writes need the analyst role, approval the approver role."""
from __future__ import annotations

from django.db.models import Count
from drf_spectacular.utils import OpenApiExample
from drf_spectacular.utils import OpenApiParameter
from drf_spectacular.utils import OpenApiResponse
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from tco.api.alerts import PriceAlertSerializer
from tco.api.concurrency import RevisionConflict
from tco.api.concurrency import sent_revision
from tco.api.concurrency import with_etag
from tco.api.evaluation import EvaluationSerializer
from tco.api.pagination import HistoryPagination
from tco.api.serializers import ApprovalSerializer
from tco.api.serializers import HistoryRecordSerializer
from tco.api.serializers import ScenarioSerializer
from tco.api.serializers import ScenarioSummarySerializer
from tco.api.serializers import SideBySideSerializer
from tco.api.side_by_side import SIDE_BY_SIDE_IDS
from tco.api.side_by_side import side_by_side_columns
from tco.api.strategies import STRATEGY_PARAMETERS
from tco.api.strategies import StrategiesQuery
from tco.api.strategies import StrategiesSerializer
from tco.models import Scenario
from tco.models import StaleRevision
from tco.selectors import scenarios_for
from tco.services.evaluation import scenario_evaluate
from tco.services.figures import SHOWN_FIELDS
from tco.services.figures import Showing
from tco.services.figures import scenario_figures
from tco.services.history import field_changes
from tco.services.history import scenario_records
from tco.services.history import state_at
from tco.services.scenarios import scenario_approve
from tco.services.scenarios import scenario_clone
from tco.services.scenarios import scenario_create
from tco.services.scenarios import scenario_delete
from tco.services.scenarios import scenario_update
from tco.services.scenarios import unsaved_evaluate
from tco.services.scenarios import unsaved_team
from tco.services.strategies import scenario_strategies
from tco.services.strategies import strategies_body
from tco.services.strategies import strategies_monte_carlo
from teams.models import Role
from teams.permissions import TeamRolePermission

# The evaluate endpoint's body: kept without the alerts since approval, which are read fresh.
API_BODY = Showing("api-evaluation",
                   lambda scenario, evaluation: EvaluationSerializer(evaluation.to_dict()).data)
SCENARIO_EXAMPLE = OpenApiExample(
    "8x H100 training node vs AWS p5 on-demand",
    value={
        "name": "8x H100 training", "accelerator": "h100-sxm-80gb", "accelerators": 8,
        "utilisation": "0.7", "system": "dgx-h100", "facility": "colo-air",
        "horizon_months": 36, "discount_rate_per_year": "0.08",
        # AWS p5.48xlarge on demand (8x H100) in the catalog a fresh `make run` loads: like for
        # like (tests/test_api_examples.py sends this example and checks it).
        "rent_options": [{"offering": 4}],
    },
    request_only=True,
)
IF_MATCH = OpenApiParameter(
    "If-Match", location=OpenApiParameter.HEADER, required=False,
    description="The ETag (revision) the edit was made on; or send `revision` in the body.")
CONFLICT = OpenApiResponse(description="Stale revision (the body names the current one), or an "
                                       "approved scenario that does not allow this.")


class ScenarioViewSet(viewsets.ModelViewSet):
    """Scenarios of the user's teams; `evaluate` runs the engine on one. The list gives each
    scenario's summary; its inputs and options are on the scenario.

    Edits name the revision they were made on (If-Match or `revision`; 428 without, 409 when
    stale). Editing an approved scenario leaves it as it is and answers 201 with its new version.
    """

    serializer_class = ScenarioSerializer
    permission_classes = [TeamRolePermission]
    team_path = "team"
    action_roles = {"approve": Role.APPROVER}
    filterset_fields = ["accelerator__slug", "system__slug", "facility__slug", "team__slug",
                        "status"]
    search_fields = ["name", "description"]
    ordering_fields = ["name", "created_at", "updated_at", "version"]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return Scenario.objects.none()
        if self.action == "evaluate":
            # A cached answer reads only the fields showing figures reads (SHOWN_FIELDS) and the
            # role check's team id: loading the scenario's eighty fields was a third of its time;
            # a miss loads the scenario whole (tco/services/figures.py).
            return scenarios_for(self.request.user).only(*SHOWN_FIELDS, "team")
        scenarios = scenarios_for(self.request.user).select_related(
            "accelerator", "system", "facility", "owner", "team", "approved_by")
        if self.action == "list":  # summaries: counts, not the options and curves themselves
            return scenarios.annotate(
                rent_option_count=Count("rent_options", distinct=True),
                api_option_count=Count("api_options", distinct=True),
            ).defer("description", "residual_curve", "sizing").order_by(*Scenario._meta.ordering, "pk")
        return scenarios.prefetch_related("rent_options")

    def filter_queryset(self, queryset):
        # The list's filters, search and ordering mean nothing to one scenario's evaluation, and
        # building their forms was a tenth of a cached answer's time.
        return queryset if self.action == "evaluate" else super().filter_queryset(queryset)

    def get_serializer_class(self):
        return ScenarioSummarySerializer if self.action == "list" else ScenarioSerializer

    def finalize_response(self, request, response, *args, **kwargs):
        return super().finalize_response(request, with_etag(response), *args, **kwargs)

    @extend_schema(examples=[SCENARIO_EXAMPLE])
    def create(self, request, *args, **kwargs):
        return super().create(request, *args, **kwargs)

    def perform_create(self, serializer):
        data = dict(serializer.validated_data)
        serializer.instance = scenario_create(data=data, rent_options=data.pop("rent_options"),
                                              api_options=data.pop("api_options", ()),
                                              user=self.request.user)

    @extend_schema(parameters=[IF_MATCH], responses={
        200: ScenarioSerializer, 201: OpenApiResponse(ScenarioSerializer, description=(
            "The scenario was approved: it is unchanged, and this is its new version (Location).")),
        409: CONFLICT, 428: OpenApiResponse(description="No revision sent.")})
    def update(self, request, *args, **kwargs):
        scenario = self.get_object()
        sent = sent_revision(request, required=True)
        if sent != scenario.revision:
            raise RevisionConflict(sent=sent, current=scenario.revision)
        serializer = self.get_serializer(scenario, data=request.data,
                                         partial=kwargs.pop("partial", False))
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        try:
            saved, is_new_version = scenario_update(
                scenario=scenario, data=data, rent_options=data.pop("rent_options", None),
                api_options=data.pop("api_options", None), user=request.user, revision=sent)
        except StaleRevision as exc:
            raise RevisionConflict(sent=sent, current=exc.current) from exc
        data = self.get_serializer(saved).data
        if not is_new_version:
            return Response(data)
        location = self.reverse_action("detail", args=[saved.pk])
        return Response(data, status=status.HTTP_201_CREATED, headers={"Location": location})

    @extend_schema(parameters=[IF_MATCH], responses={
        200: ScenarioSerializer, 201: ScenarioSerializer, 409: CONFLICT, 428: OpenApiResponse(
            description="No revision sent.")})
    def partial_update(self, request, *args, **kwargs):
        return super().partial_update(request, *args, **kwargs)

    @extend_schema(responses={204: None, 409: CONFLICT})
    def destroy(self, request, *args, **kwargs):
        return super().destroy(request, *args, **kwargs)

    def perform_destroy(self, instance):
        scenario_delete(scenario=instance)

    @extend_schema(request=ApprovalSerializer, parameters=[IF_MATCH], responses={
        200: ScenarioSerializer,
        400: OpenApiResponse(description="The scenario cannot be evaluated: there is no answer to "
                                         "sign (the body names the field)."),
        403: OpenApiResponse(description="Not an approver of the team, or you created or edited "
                                         "this version (four eyes; the body says which), or a "
                                         "warning was not acknowledged."),
        409: CONFLICT})
    @action(detail=True, methods=["post"])
    def approve(self, request, pk=None):
        """Approve the scenario (approver role, and not the person who created or edited this
        version): the prices and catalog figures it is evaluated with are pinned, and it is frozen
        from now on; editing it makes a new version. With If-Match, a scenario changed since is
        refused (409)."""
        scenario = self.get_object()
        sent = sent_revision(request, required=False)
        body = ApprovalSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            scenario = scenario_approve(scenario=scenario, approved_by=request.user, revision=sent,
                                        comment=body.validated_data.get("comment", ""),
                                        acknowledged=body.validated_data.get("acknowledged_warnings"))
        except StaleRevision as exc:
            raise RevisionConflict(sent=sent, current=exc.current) from exc
        return Response(self.get_serializer(scenario).data)

    @extend_schema(responses=HistoryRecordSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=HistoryPagination)
    def history(self, request, pk=None):
        """Every recorded save of the scenario and of its previous versions, newest first, a page
        at a time (`page`, `page_size` up to the limit): who, when, the revision, and which
        inputs changed from the save before. Only the page's saves are compared, so a long
        history costs what one page does."""
        records = scenario_records(self.get_object())
        page = self.paginate_queryset(records)
        following = self.paginator.page.end_index()  # 0-based index of the save before the page's last
        earliest = records[following:following + 1].first()
        states = [state_at(record) for record in [*page, *([earliest] if earliest else [])]]
        rows = [{"record": state.record, "changes": field_changes(earlier, state) if earlier else []}
                for state, earlier in zip(states[:len(page)], [*states[1:], None], strict=False)]
        return self.get_paginated_response(HistoryRecordSerializer(rows, many=True).data)

    @extend_schema(request=None, responses=EvaluationSerializer)
    @action(detail=True, methods=["post"])
    def evaluate(self, request, pk=None):
        """Evaluate the stored scenario: summary, monthly lines, footprint and assumptions.

        A draft's price points and the figures they gave are snapshotted; a later price refresh
        compares with them to alert on a moved result. An approved scenario answers with the
        figures pinned at its approval, and under `pinned` the same at today's prices and the
        price alerts raised since it was approved (one is raised when today's prices flip the
        winner or move breakeven by the configured months)."""
        figures = scenario_figures(scenario=self.get_object(), shown_as=API_BODY)
        body, alerts = figures.shown, figures.alerts()
        if alerts is not None:
            body["pinned"]["price_alerts"] = PriceAlertSerializer(alerts, many=True).data
        return Response(body)

    @extend_schema(parameters=STRATEGY_PARAMETERS, responses={200: StrategiesSerializer})
    @action(detail=True, methods=["get"])
    def strategies(self, request, pk=None):
        """Strategies over time on the scenario's accelerator's latest rental curve: buy now, lock
        each term, rent on demand or spot, rent then buy the next generation, ranked by NPV, with
        the value of waiting, the curve used and its sources. With `paths` (up to 20,000) and
        `seed`, also a Monte Carlo over price paths fitted on the curve's on-demand history: the
        probability each strategy is cheapest and its spread of costs."""
        query = StrategiesQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        scenario = self.get_object()
        found = scenario_strategies(scenario, scenario_evaluate(scenario=scenario))
        body = strategies_body(found)
        paths = query.validated_data.get("paths")
        if paths:
            try:
                body["monte_carlo"] = strategies_monte_carlo(scenario, found, paths=paths,
                                                             seed=query.validated_data["seed"])
            except ValueError as exc:
                raise ValidationError({"paths": [str(exc)]}) from exc
        return Response(StrategiesSerializer(body).data)

    @extend_schema(parameters=[SIDE_BY_SIDE_IDS], responses={200: SideBySideSerializer(many=True)})
    @action(detail=False, methods=["get"], url_path="side-by-side")
    def side_by_side(self, request):
        """Several scenarios side by side: each one's key figures against its cheapest rent
        option, and the cumulative costs for one chart; the figures its own evaluation gives."""
        return Response(SideBySideSerializer(side_by_side_columns(request, self.get_queryset()),
                                             many=True).data)

    @extend_schema(request=None, responses={201: ScenarioSerializer})
    @action(detail=True, methods=["post"])
    def clone(self, request, pk=None):
        """Copy the scenario and its rent options into a new draft of the same team."""
        copy = scenario_clone(scenario=self.get_object(), owner=request.user)
        return Response(self.get_serializer(copy).data, status=status.HTTP_201_CREATED)


class EvaluateView(APIView):
    """Evaluate a scenario sent as JSON (the scenario shape) without saving it: the figures
    saving it would give. Its team is picked as saving picks it (named, or the only team you may
    save in) and counts as on create: the team's quotes beside public prices, and its finance
    defaults for the figures the body leaves out; `priced_for` says which team's prices it used."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=ScenarioSerializer, responses=EvaluationSerializer,
                   examples=[SCENARIO_EXAMPLE])
    def post(self, request):
        serializer = ScenarioSerializer(data=request.data,
                                        context={"request": request})
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        data["team"] = unsaved_team(request.user, named=data.get("team"))
        evaluation = unsaved_evaluate(data=data, rent_options=data.pop("rent_options"),
                                      api_options=data.pop("api_options", ()), user=request.user)
        team = data["team"]
        return Response(EvaluationSerializer({**evaluation.to_dict(), "priced_for": {
            "team": team and team.slug,
            "prices": f"{team.name}'s quotes beside public prices" if team else "public prices only",
        }}).data)
