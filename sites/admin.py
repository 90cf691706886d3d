"""Admin for sites: rooms, racks, panels and feeds with the power they carry, and NetBox imports."""
from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.contrib import messages
from django.http import HttpRequest
from django.http import HttpResponse
from django.http import HttpResponseRedirect
from django.urls import path
from django.urls import reverse
from django.utils.html import format_html
from django.utils.html import format_html_join

from costmodel.sites import Feed
from costmodel.sites import rack_power_kw
from costmodel.vocabulary import MISSING
from sites.models import NetBoxImport
from sites.models import PowerFeed
from sites.models import PowerPanel
from sites.models import RackPosition
from sites.models import Room
from sites.models import Site
from sites.models import SiteCooling
from sites.netbox import netbox_import_request


def _usable_kw(rack: RackPosition) -> float:
    return rack_power_kw([Feed(f.name, f.available_kw, f.type) for f in rack.feeds.all()])


class SiteCoolingInline(admin.TabularInline):
    model = SiteCooling
    extra = 0


class RoomInline(admin.TabularInline):
    model = Room
    extra = 0
    fields = ("name", "medium", "netbox_id")


@admin.register(Site)
class SiteAdmin(admin.ModelAdmin):
    """A site with its own prices, IT capacity and cooling; its racks' power is summed from the feeds."""

    list_display = ("name", "slug", "country", "usable_power", "racks_count", "electricity_usd_per_kwh",
                    "pue", "colocation_usd_per_kw_month", "netbox_id")
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}
    readonly_fields = ("usable_power", "racks_table")
    fieldsets = (
        (None, {"fields": ("name", "slug", "country", "netbox_id")}),
        ("Prices (USD)", {"fields": ("electricity_usd_per_kwh", "pue", "colocation_usd_per_kw_month")}),
        ("Power", {"fields": ("it_capacity_kw", "usable_power", "racks_table")}),
    )
    inlines = (SiteCoolingInline, RoomInline)
    change_list_template = "admin/sites/site/change_list.html"

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).prefetch_related("racks__feeds")

    @admin.display(description="Usable IT power")
    def usable_power(self, site: Site) -> str:
        return f"{sum(_usable_kw(rack) for rack in site.racks.all()):,.2f} kW"

    @admin.display(description="Racks")
    def racks_count(self, site: Site) -> int:
        return len(site.racks.all())

    @admin.display(description="Racks and their feeds (each A/B pair counted once)")
    def racks_table(self, site: Site) -> str:
        rows = ((rack.name, rack.room.name if rack.room else MISSING, rack.units,
                 ", ".join(f"{f.name} ({f.get_type_display()}, {f.available_kw:,.2f} kW)"
                           for f in rack.feeds.all()) or "no feed", f"{_usable_kw(rack):,.2f} kW")
                for rack in site.racks.select_related("room").prefetch_related("feeds"))
        return format_html(
            "<table><tr><th>Rack</th><th>Room</th><th>Height (U)</th><th>Feeds</th><th>Usable</th></tr>"
            "{}</table>",
            format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", rows))

    def get_urls(self):
        return [path("import-netbox/", self.admin_site.admin_view(self.import_netbox),
                     name="dcim_sites_site_import_netbox"), *super().get_urls()]

    def import_netbox(self, request: HttpRequest) -> HttpResponse:
        """Queue an import of every NetBox site (POST from the list's button) and show its job."""
        if request.method != "POST" or not request.user.is_staff:
            return HttpResponseRedirect(reverse("admin:dcim_sites_site_changelist"))
        if not settings.NETBOX_URL:
            self.message_user(request, "No NetBox is configured: set NETBOX_URL and NETBOX_TOKEN.",
                              messages.ERROR)
            return HttpResponseRedirect(reverse("admin:dcim_sites_site_changelist"))
        job = netbox_import_request()
        self.message_user(request, "The import from NetBox is queued; this page shows its progress.",
                          messages.SUCCESS)
        return HttpResponseRedirect(reverse("admin:dcim_sites_netboximport_change", args=[job.pk]))


class PowerFeedInline(admin.TabularInline):
    model = PowerFeed
    extra = 0
    fields = ("name", "rack", "type", "supply", "phase", "voltage", "amperage", "max_utilisation",
              "available")
    readonly_fields = ("available",)

    @admin.display(description="Available")
    def available(self, feed: PowerFeed) -> str:
        return MISSING if feed.pk is None else f"{feed.available_kw:,.2f} kW"


@admin.register(PowerPanel)
class PowerPanelAdmin(admin.ModelAdmin):
    list_display = ("name", "site", "room", "netbox_id")
    list_filter = ("site",)
    inlines = (PowerFeedInline,)


@admin.register(PowerFeed)
class PowerFeedAdmin(admin.ModelAdmin):
    list_display = ("name", "panel", "rack", "type", "phase", "voltage", "amperage", "utilisation",
                    "available")
    list_filter = ("panel__site", "type", "phase")
    list_select_related = ("panel__site", "rack__site")

    @admin.display(description="Maximum utilisation")
    def utilisation(self, feed: PowerFeed) -> str:
        return f"{float(feed.max_utilisation):.0%}"

    @admin.display(description="Available power")
    def available(self, feed: PowerFeed) -> str:
        return f"{feed.available_kw:,.2f} kW"


@admin.register(RackPosition)
class RackPositionAdmin(admin.ModelAdmin):
    list_display = ("name", "site", "room", "units", "usable", "netbox_id")
    list_filter = ("site",)

    @admin.display(description="Usable power (A/B once)")
    def usable(self, rack: RackPosition) -> str:
        return f"{_usable_kw(rack):,.2f} kW"


@admin.register(NetBoxImport)
class NetBoxImportAdmin(admin.ModelAdmin):
    """Imports from NetBox: progress, and what each created and updated, field by field."""

    list_display = ("__str__", "status", "progress", "created_at", "finished_at")
    fields = ("status", "progress", "error", "what_changed", "attempts", "created_at", "started_at",
              "finished_at")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # through "Import from NetBox" on the sites' list

    def has_change_permission(self, request: HttpRequest, obj: NetBoxImport | None = None) -> bool:
        return False

    @admin.display(description="Progress")
    def progress(self, job: NetBoxImport) -> str:
        return f"{job.progress_percent} % ({job.steps_done} of {job.steps_total} kinds of objects read)"

    KINDS = {"sites": "Sites", "locations": "Rooms (locations)", "racks": "Racks",
             "power-panels": "Power panels", "power-feeds": "Power feeds"}

    @admin.display(description="What changed")
    def what_changed(self, job: NetBoxImport) -> str:
        changes = {part: {self.KINDS.get(kind, kind): rows for kind, rows in found.items()}
                   for part, found in (job.changes or {}).items()}
        rows = [(kind, "created", ", ".join(names)) for kind, names in changes.get("created", {}).items()]
        rows += [(kind, f"updated {name}", "; ".join(f"{field}: {old} → {new}"
                                                     for field, (old, new) in fields.items()))
                 for kind, updated in changes.get("updated", {}).items() for name, fields in updated.items()]
        rows += [(kind, "unchanged", f"{count}") for kind, count in changes.get("unchanged", {}).items()]
        if not rows:
            return MISSING
        return format_html("<table>{}</table>",
                           format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td></tr>", rows))
