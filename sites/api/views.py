"""Sites (read by anyone signed in, written in the admin), fitting a build, and NetBox import jobs (staff)."""
from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import mixins
from rest_framework import permissions
from rest_framework import status
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from sites.api.serializers import FitRequestSerializer
from sites.api.serializers import FitSerializer
from sites.api.serializers import NetBoxImportSerializer
from sites.api.serializers import SiteSerializer
from sites.fit import fit_system
from sites.models import NetBoxImport
from sites.models import Site
from sites.netbox import netbox_import_request


class SiteViewSet(viewsets.ReadOnlyModelViewSet):
    """Sites with their rooms' racks, feeds and cooling; ``fit`` places a build of a catalog system."""

    queryset = Site.objects.prefetch_related("racks__feeds__panel", "racks__room", "cooling__technology")
    serializer_class = SiteSerializer
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=FitRequestSerializer, responses=FitSerializer)
    @action(detail=True, methods=["post"])
    def fit(self, request: Request, pk: str | None = None) -> Response:
        """Where the systems go, rack by rack; what does not fit names the feed, rack or room and
        the shortfall in kW (the answer is 200 either way: ``fits`` says which)."""
        asked = FitRequestSerializer(data=request.data)
        asked.is_valid(raise_exception=True)
        data = asked.validated_data
        if data["system"].power_max_kw is None:
            raise ValidationError({"system": "the catalog has no maximum power for this system"})
        fit = fit_system(self.get_object(), data["system"], data["systems"], float(data["power_cap_share"]))
        return Response(FitSerializer({
            "fits": fit.fits, "placed": fit.placed, "unplaced": fit.unplaced, "racks_used": fit.racks_used,
            "kw_per_rack": fit.kw_per_rack, "placements": fit.placements, "shortfalls": fit.shortfalls,
        }).data)


class NetBoxImportViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Imports from NetBox: POST starts one (202, then poll it), GET says its progress and what changed."""

    queryset = NetBoxImport.objects.all()
    serializer_class = NetBoxImportSerializer
    permission_classes = [permissions.IsAdminUser]

    def create(self, request: Request, *args, **kwargs) -> Response:
        asked = self.get_serializer(data=request.data)
        asked.is_valid(raise_exception=True)
        if not settings.NETBOX_URL:
            raise ValidationError({"sites": "no NetBox is configured: set NETBOX_URL and NETBOX_TOKEN"})
        job = netbox_import_request(sites=asked.validated_data.get("sites", []))
        return Response(self.get_serializer(job).data, status=status.HTTP_202_ACCEPTED)
