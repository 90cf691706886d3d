"""Actual costs in the API: import a team's FOCUS cost file (a job), name what it is compared
with, and read the variance (JSON, or the PDF)."""
from __future__ import annotations

from django.core.exceptions import ValidationError as ModelValidationError
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse
from drf_spectacular.utils import extend_schema
from rest_framework import mixins
from rest_framework import serializers
from rest_framework import status
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response

from core.file_imports import FileRefused
from finops.cost_imports import cost_import_request
from finops.focus_import import MAX_FILE_BYTES
from finops.models import CostImport
from finops.models import CostTarget
from finops.pdf import variance_pdf
from finops.services import variance_alerts_write
from finops.variance import variance
from teams.models import Role
from teams.models import Team
from teams.permissions import TeamRolePermission
from teams.selectors import TeamChoiceError
from teams.selectors import for_teams
from teams.selectors import team_for_new_object
from teams.selectors import teams_of


def chosen_team(request, slug: str | None) -> Team:
    """The team a write is for: the one named (where the user is an analyst), else their only one."""
    named = None
    if slug:
        named = teams_of(request.user).filter(slug=slug).first()
        if named is None:
            raise ValidationError({"team": [f"no team '{slug}' of yours"]})
    try:
        return team_for_new_object(request.user, team=named, role=Role.ANALYST)
    except TeamChoiceError as exc:
        raise ValidationError({"team": [str(exc)]}) from exc


class CostImportSerializer(serializers.ModelSerializer):
    """A FOCUS cost file imported on a worker: progress, what it wrote, or each bad row of a
    refused file."""

    team = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    progress_percent = serializers.IntegerField(read_only=True,
                                                help_text="Rows checked, then written, 0-100.")

    class Meta:
        model = CostImport
        fields = ["id", "team", "file_name", "status", "progress_percent", "rows_total", "rows_checked",
                  "rows_written", "billed_usd", "currency", "errors", "error", "attempts", "created_at",
                  "started_at", "finished_at"]
        read_only_fields = fields


class CostImportSummarySerializer(CostImportSerializer):
    """An import in a list: progress and totals; each bad row of a refused file is on the import."""

    class Meta(CostImportSerializer.Meta):
        fields = [name for name in CostImportSerializer.Meta.fields if name != "errors"]
        read_only_fields = fields


class CostImportUpload(serializers.Serializer):
    team = serializers.CharField(required=False, help_text="The team's slug; needed when you are in several.")
    file = serializers.FileField(help_text="A FOCUS cost and usage file, CSV or Parquet, in any currency.")


class CostImportViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """The user's teams' FOCUS cost imports, newest first: upload a file (it is imported on a
    worker), then follow its progress until it is done or refused."""

    permission_classes = [TeamRolePermission]
    parser_classes = [MultiPartParser]
    team_path = "team"
    filterset_fields = ["status"]

    def get_queryset(self):
        imports = for_teams(CostImport.objects.select_related("team").defer("content"), self.request.user)
        # A list serialises summaries (core/limits.py): a refused file's errors are one a row.
        return imports.defer("errors") if self.action == "list" else imports

    def get_serializer_class(self):
        return CostImportSummarySerializer if self.action == "list" else CostImportSerializer

    @extend_schema(request={"multipart/form-data": CostImportUpload}, responses={
        202: CostImportSerializer,
        400: OpenApiResponse(description="Refused by its name, size or container; nothing saved.")})
    def create(self, request):
        """Upload a FOCUS cost file for a team: checked by name, size and container at once, then
        imported on a worker (all rows or none, then variance alerts). Answers 202 with the
        import: poll it until its status is done, or failed with each bad row and column."""
        upload = CostImportUpload(data=request.data)
        upload.is_valid(raise_exception=True)
        team = chosen_team(request, upload.validated_data.get("team"))
        file = upload.validated_data["file"]
        if file.size > MAX_FILE_BYTES:  # before reading it into memory
            raise ValidationError({"file": [f"is {file.size:,} bytes; a FOCUS file may have at most "
                                            f"{MAX_FILE_BYTES:,}"]})
        try:
            job = cost_import_request(team=team, file_name=file.name, content=file.read(), user=request.user)
        except FileRefused as exc:
            raise ValidationError({"file": [error.reason for error in exc.errors]}) from exc
        return Response(CostImportSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class CostTargetSerializer(serializers.ModelSerializer):
    team = serializers.SlugRelatedField(slug_field="slug", queryset=Team.objects.all(), required=False)

    class Meta:
        model = CostTarget
        fields = ["id", "team", "scenario", "option", "plan", "starts_on", "alert_share", "created_at"]


class CostTargetViewSet(mixins.CreateModelMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin,
                        viewsets.GenericViewSet):
    """What a team's actual costs are compared with: an approved scenario's option, or a plan of
    an approved scenario, from a calendar month on; and the variance against it."""

    serializer_class = CostTargetSerializer
    permission_classes = [TeamRolePermission]
    team_path = "team"

    def get_queryset(self):
        return for_teams(CostTarget.objects.select_related("team", "scenario", "plan__scenario"),
                         self.request.user).order_by("id")

    def perform_create(self, serializer):
        team = chosen_team(self.request, getattr(serializer.validated_data.get("team"), "slug", None))
        target = CostTarget(**{**serializer.validated_data, "team": team})
        if target.scenario_id and target.scenario.team_id != team.pk or (
                target.plan_id and target.plan.scenario.team_id != team.pk):
            raise ValidationError({"scenario": ["not a scenario of the team"]})
        try:
            target.full_clean()
        except ModelValidationError as exc:
            raise ValidationError(exc.message_dict) from exc
        target.save()
        variance_alerts_write(target)
        serializer.instance = target

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["get"])
    def variance(self, request, pk=None):
        """Actual against projected by month, by option, by provider and in total, in the
        projection's currency (``currency``)."""
        return Response(variance(self.get_object()).to_dict())

    @extend_schema(responses={(200, "application/pdf"): OpenApiResponse(description="The PDF")})
    @action(detail=True, methods=["get"], url_path="variance-pdf")
    def variance_pdf(self, request, pk=None):
        """The variance as a PDF page for finance."""
        target = self.get_object()
        response = HttpResponse(variance_pdf(variance(target)), content_type="application/pdf")
        response["Content-Disposition"] = f'attachment; filename="variance-{target.pk}.pdf"'
        return response
