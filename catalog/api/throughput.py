"""Read-only API of the published throughput measurements: ``/api/v1/throughput-measurements/``."""

from __future__ import annotations

from django_filters import rest_framework as filters
from rest_framework import serializers
from rest_framework import viewsets

from catalog.api.permissions import IsStaffOrReadOnly
from catalog.models import ThroughputMeasurement


class ThroughputMeasurementSerializer(serializers.ModelSerializer):
    """A published serving throughput with its configuration, its source and its judgement."""

    source = serializers.SlugRelatedField(slug_field="key", read_only=True)
    source_title = serializers.CharField(source="source.title", read_only=True)
    source_url = serializers.CharField(source="source.url", read_only=True)
    published_on = serializers.DateField(source="source.published_on", read_only=True)
    accelerator = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    tokens_per_s = serializers.FloatField(help_text="Output tokens per second of the whole "
                                                    "configuration.")

    class Meta:
        model = ThroughputMeasurement
        fields = ["key", "kind", "source", "source_title", "source_url", "published_on", "where",
                  "model_key", "model_note", "accelerator", "accelerators", "tensor_parallel",
                  "precision", "serving_software", "concurrency", "input_tokens", "output_tokens",
                  "tokens_per_s", "physically_possible", "judgement", "calibrated", "note"]


class ThroughputMeasurementFilterSet(filters.FilterSet):
    """Measurements by accelerator slug, model preset, kind and whether they are calibrated on."""

    accelerator = filters.CharFilter(field_name="accelerator__slug", label="Accelerator (slug)")

    class Meta:
        model = ThroughputMeasurement
        fields = ["accelerator", "model_key", "kind", "calibrated", "physically_possible"]


class ThroughputMeasurementViewSet(viewsets.ReadOnlyModelViewSet):
    """Published throughput measurements and the seeds' judged claims (loaded by load_catalog)."""

    queryset = ThroughputMeasurement.objects.select_related("source", "accelerator")
    serializer_class = ThroughputMeasurementSerializer
    permission_classes = [IsStaffOrReadOnly]
    filterset_class = ThroughputMeasurementFilterSet
    lookup_field = "key"
