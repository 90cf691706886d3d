"""Catalog API viewsets: declarations of queryset, serializer and filters."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import ProtectedError
from rest_framework import serializers, status, viewsets
from rest_framework.exceptions import APIException

from catalog.api.permissions import IsStaffOrReadOnly
from catalog.api.serializers import (
    AcceleratorSerializer,
    CloudOfferingSerializer,
    CoolingTechnologySerializer,
    FacilityProfileSerializer,
    PowerDensityReferenceSerializer,
    PricePointSerializer,
    SourceSerializer,
    SystemSkuSerializer,
)
from catalog.filtersets import (
    AcceleratorFilterSet,
    CloudOfferingFilterSet,
    CoolingTechnologyFilterSet,
    FacilityProfileFilterSet,
    PowerDensityReferenceFilterSet,
    PricePointFilterSet,
    SourceFilterSet,
    SystemSkuFilterSet,
)
from catalog.models import (
    Accelerator,
    CloudOffering,
    CoolingTechnology,
    FacilityProfile,
    PowerDensityReference,
    PricePoint,
    Source,
    SystemSku,
)
from catalog.services import price_point_record


class StillReferenced(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "Other rows still refer to this one; remove or repoint them first."
    default_code = "protected"


class CatalogViewSet(viewsets.ModelViewSet):
    """Anyone reads; staff write. Deleting a row others still refer to answers 409."""

    permission_classes = [IsStaffOrReadOnly]

    def perform_destroy(self, instance) -> None:
        try:
            instance.delete()
        except ProtectedError as exc:
            raise StillReferenced() from exc


class SourceViewSet(CatalogViewSet):
    queryset = Source.objects.all()
    serializer_class = SourceSerializer
    filterset_class = SourceFilterSet


class AcceleratorViewSet(CatalogViewSet):
    queryset = Accelerator.objects.prefetch_related("throughputs__source", "power_caps__source")
    serializer_class = AcceleratorSerializer
    filterset_class = AcceleratorFilterSet


class SystemSkuViewSet(CatalogViewSet):
    queryset = SystemSku.objects.select_related("accelerator")
    serializer_class = SystemSkuSerializer
    filterset_class = SystemSkuFilterSet


class CloudOfferingViewSet(CatalogViewSet):
    queryset = CloudOffering.objects.select_related("accelerator")
    serializer_class = CloudOfferingSerializer
    filterset_class = CloudOfferingFilterSet


class PricePointViewSet(CatalogViewSet):
    """Price history: read and append only; a recorded price is never changed or deleted."""

    queryset = PricePoint.objects.select_related("offering", "system", "source")
    serializer_class = PricePointSerializer
    filterset_class = PricePointFilterSet
    http_method_names = ["get", "post", "head", "options"]

    def perform_create(self, serializer: PricePointSerializer) -> None:
        try:
            serializer.instance, _ = price_point_record(**serializer.validated_data)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from exc


class CoolingTechnologyViewSet(CatalogViewSet):
    queryset = CoolingTechnology.objects.all()
    serializer_class = CoolingTechnologySerializer
    filterset_class = CoolingTechnologyFilterSet


class FacilityProfileViewSet(CatalogViewSet):
    queryset = FacilityProfile.objects.select_related("max_cooling")
    serializer_class = FacilityProfileSerializer
    filterset_class = FacilityProfileFilterSet


class PowerDensityReferenceViewSet(CatalogViewSet):
    queryset = PowerDensityReference.objects.select_related("source")
    serializer_class = PowerDensityReferenceSerializer
    filterset_class = PowerDensityReferenceFilterSet
