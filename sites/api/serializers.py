"""Sites as budgeting and DCIM tools read them: feeds with their available power, usable power per rack."""
from __future__ import annotations

from decimal import Decimal

from rest_framework import serializers

from catalog.models import SystemSku
from costmodel.sites import Feed
from costmodel.sites import rack_power_kw
from sites.models import NetBoxImport
from sites.models import PowerFeed
from sites.models import RackPosition
from sites.models import Site
from sites.models import SiteCooling


class KilowattField(serializers.FloatField):
    """Power in kW to the watt (3 decimals): 17.736, not 17.736200269505304."""

    def to_representation(self, value) -> float:  # type: ignore[override]  # a number, not text
        return round(float(value), 3)


class PowerFeedSerializer(serializers.ModelSerializer):
    panel = serializers.CharField(source="panel.name", read_only=True)
    available_kw = KilowattField(read_only=True, help_text="Voltage x amperage x maximum "
                                          "utilisation (x sqrt(3) three-phase) [kW].")

    class Meta:
        model = PowerFeed
        fields = ["id", "name", "netbox_id", "panel", "type", "supply", "phase", "voltage", "amperage",
                  "max_utilisation", "available_kw"]


class RackSerializer(serializers.ModelSerializer):
    room = serializers.CharField(source="room.name", read_only=True, default="")
    feeds = PowerFeedSerializer(many=True, read_only=True)
    usable_kw = serializers.SerializerMethodField(help_text="What the rack's feeds carry with each A/B "
                                                            "pair counted once [kW].")

    class Meta:
        model = RackPosition
        fields = ["id", "name", "netbox_id", "room", "units", "usable_kw", "feeds"]

    def get_usable_kw(self, rack: RackPosition) -> float:
        return rack_power_kw([Feed(f.name, f.available_kw, f.type) for f in rack.feeds.all()])


class SiteCoolingSerializer(serializers.ModelSerializer):
    technology = serializers.CharField(source="technology.name", read_only=True)
    medium = serializers.CharField(source="technology.medium", read_only=True)

    class Meta:
        model = SiteCooling
        fields = ["technology", "medium", "capacity_kw"]


class SiteSerializer(serializers.ModelSerializer):
    racks = RackSerializer(many=True, read_only=True)
    cooling = SiteCoolingSerializer(many=True, read_only=True)
    usable_kw = serializers.SerializerMethodField(help_text="All racks' usable power [kW].")

    class Meta:
        model = Site
        fields = ["id", "name", "slug", "country", "netbox_id", "electricity_usd_per_kwh", "pue",
                  "colocation_usd_per_kw_month", "it_capacity_kw", "usable_kw", "cooling", "racks"]

    def get_usable_kw(self, site: Site) -> float:
        return sum(RackSerializer().get_usable_kw(rack) for rack in site.racks.all())


class FitRequestSerializer(serializers.Serializer):
    system = serializers.SlugRelatedField(slug_field="slug", queryset=SystemSku.objects.all())
    systems = serializers.IntegerField(min_value=1, max_value=100_000)
    power_cap_share = serializers.DecimalField(max_digits=4, decimal_places=3, min_value=Decimal("0.01"),
                                               max_value=Decimal("1"), default=Decimal("1"))


class PlacementSerializer(serializers.Serializer):
    rack = serializers.CharField()
    room = serializers.CharField()
    systems = serializers.IntegerField()
    kw = KilowattField()
    available_kw = KilowattField()


class ShortfallSerializer(serializers.Serializer):
    where = serializers.CharField()
    reason = serializers.CharField()
    shortfall_kw = KilowattField()


class FitSerializer(serializers.Serializer):
    fits = serializers.BooleanField()
    placed = serializers.IntegerField()
    unplaced = serializers.IntegerField()
    racks_used = serializers.IntegerField()
    kw_per_rack = KilowattField()
    placements = PlacementSerializer(many=True)
    shortfalls = ShortfallSerializer(many=True)


# A NetBox site's slug has at most 100 characters (NetBox's Site model); the slugs go into the
# query string of each request, so a list is kept to what one import reasonably names.
NETBOX_SLUG_MAX_CHARS = 100
MAX_IMPORT_SITES = 200


class NetBoxImportSerializer(serializers.ModelSerializer):
    progress_percent = serializers.IntegerField(read_only=True)

    class Meta:
        model = NetBoxImport
        fields = ["id", "sites", "status", "progress_percent", "steps_done", "steps_total", "changes",
                  "error", "created_at", "started_at", "finished_at"]
        read_only_fields = [f for f in fields if f != "sites"]

    def validate_sites(self, value):
        if not isinstance(value, list) or not all(isinstance(slug, str) and slug for slug in value):
            raise serializers.ValidationError("must be a list of NetBox site slugs (empty for every site)")
        if len(value) > MAX_IMPORT_SITES:
            raise serializers.ValidationError(f"names {len(value):,} sites; at most {MAX_IMPORT_SITES} at a "
                                              "time (an empty list imports every site)")
        long = next((slug for slug in value if len(slug) > NETBOX_SLUG_MAX_CHARS), None)
        if long is not None:
            raise serializers.ValidationError(f"'{long[:40]}...' has {len(long):,} characters; a NetBox slug "
                                              f"has at most {NETBOX_SLUG_MAX_CHARS}")
        return value
