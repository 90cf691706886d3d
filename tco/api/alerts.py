"""Price alerts of the scenarios of the user's teams: what a price refresh moved, read-only."""
from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework import viewsets
from rest_framework.permissions import IsAuthenticated

from tco.api.scenario_jobs import ScenarioFilterSet
from tco.models import AlertKind
from tco.models import PriceAlert
from tco.models import Winner
from tco.selectors import price_alerts_for


@extend_schema_field({"type": "string", "enum": Winner.values}, component_name="Winner")
class WinnerField(serializers.ChoiceField):
    """"buy" or "rent": one schema component for the old and the new winner."""

    def __init__(self, **kwargs):
        super().__init__(choices=Winner.choices, **kwargs)


@extend_schema_field({"type": "string", "enum": AlertKind.values}, component_name="AlertKind")
class AlertKindField(serializers.ChoiceField):
    """What moved: the winner or the breakeven month."""

    def __init__(self, **kwargs):
        super().__init__(choices=AlertKind.choices, **kwargs)


class PriceAlertSerializer(serializers.ModelSerializer):
    """An alert: the scenario, the old and new figures, and the price that moved them."""

    scenario_name = serializers.CharField(source="scenario.name", read_only=True)
    kind = AlertKindField(read_only=True)
    old_winner = WinnerField(read_only=True)
    new_winner = WinnerField(read_only=True)

    class Meta:
        model = PriceAlert
        fields = ["id", "scenario", "scenario_name", "refresh_job", "created_at", "kind", "rent_option",
                  "old_price_point", "new_price_point", "old_price_usd_per_instance_hour",
                  "new_price_usd_per_instance_hour", "old_winner", "new_winner",
                  "old_breakeven_month", "new_breakeven_month", "old_npv_saving_usd",
                  "new_npv_saving_usd", "message"]


class PriceAlertFilterSet(ScenarioFilterSet):
    class Meta:
        model = PriceAlert
        fields = ["scenario", "kind", "refresh_job"]


class PriceAlertViewSet(viewsets.ReadOnlyModelViewSet):
    """Alerts on the scenarios of the user's teams, newest first; filter by scenario, kind or
    refresh job."""

    serializer_class = PriceAlertSerializer
    permission_classes = [IsAuthenticated]
    filterset_class = PriceAlertFilterSet
    ordering_fields = ["created_at"]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return PriceAlert.objects.none()
        return price_alerts_for(self.request.user).select_related("scenario")
