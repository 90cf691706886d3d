"""Price alerts of the signed-in user's scenarios: what a price refresh moved, read-only."""
from __future__ import annotations

from rest_framework import serializers, viewsets
from rest_framework.permissions import IsAuthenticated

from tco.models import PriceAlert


class PriceAlertSerializer(serializers.ModelSerializer):
    """An alert: the scenario, the old and new figures, and the price that moved them."""

    scenario_name = serializers.CharField(source="scenario.name", read_only=True)

    class Meta:
        model = PriceAlert
        fields = ["id", "scenario", "scenario_name", "refresh_job", "created_at", "kind", "rent_option",
                  "old_price_point", "new_price_point", "old_price_usd_per_instance_hour",
                  "new_price_usd_per_instance_hour", "old_winner", "new_winner",
                  "old_breakeven_month", "new_breakeven_month", "old_npv_saving_usd",
                  "new_npv_saving_usd", "message"]


class PriceAlertViewSet(viewsets.ReadOnlyModelViewSet):
    """Alerts on the user's scenarios, newest first; filter by scenario, kind or refresh job."""

    serializer_class = PriceAlertSerializer
    permission_classes = [IsAuthenticated]
    filterset_fields = ["scenario", "kind", "refresh_job"]
    ordering_fields = ["created_at"]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return PriceAlert.objects.none()
        return PriceAlert.objects.filter(scenario__owner=self.request.user).select_related("scenario")
