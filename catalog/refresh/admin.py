"""Admin of price refreshes: the job list, the age of every price, an offering's price chart."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest
from django.utils import timezone
from django.utils.html import format_html
from django.utils.html import format_html_join
from django.utils.safestring import mark_safe

from catalog.models import CloudOffering
from catalog.models import PricePoint
from catalog.models import PriceRefreshJob
from catalog.refresh.freshness import price_point_age
from catalog.refresh.history_chart import price_history_svg
from catalog.selectors import price_history
from teams.admin_mixins import StaffWritesAdminMixin
from teams.selectors import team_ids_of


class PriceAgeMixin:
    """An ``age`` column: days since the price was last known to hold, flagged when stale."""

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).select_related("last_check")

    @admin.display(description="age")
    def age(self, obj: PricePoint) -> str:
        if obj.pk is None:
            return "—"
        age = price_point_age(obj)
        days = f"{age.age_days} day{'s' if age.age_days != 1 else ''}"
        if age.is_stale:
            return format_html('<strong style="color:#ba2121">{} (stale)</strong>', days)
        return days


class PriceHistoryChartMixin:
    """A read-only ``price_history_chart`` field: the offering's prices over time, per source
    (public prices and the viewer's teams' quotes)."""

    def get_object(self, request: HttpRequest, object_id: str, from_field: str | None = None):
        obj = super().get_object(request, object_id, from_field)
        if obj is not None:
            obj.viewer_team_ids = team_ids_of(request.user)
        return obj

    @admin.display(description="price history")
    def price_history_chart(self, obj: CloudOffering) -> str:
        if obj.pk is None:
            return "—"
        prices = price_history(obj, team_ids=getattr(obj, "viewer_team_ids", ()))
        svg = price_history_svg(prices, today=timezone.localdate(), title=str(obj))
        return mark_safe(svg) if svg else "no prices yet"  # noqa: S308 (our own SVG)


@admin.register(PriceRefreshJob)
class PriceRefreshJobAdmin(StaffWritesAdminMixin, admin.ModelAdmin):
    """Refresh jobs are written by the refresh only; the admin reads them."""

    list_display = (
        "started_at",
        "provider",
        "status",
        "prices_new",
        "prices_changed",
        "prices_unchanged",
        "prices_rejected",
        "offerings_new",
        "error_code",
        "finished_at",
    )
    list_filter = ("provider", "status", "error_code")
    date_hierarchy = "started_at"
    exclude = ("written_prices", "rejections")
    readonly_fields = ("rejected_rows",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: PriceRefreshJob | None = None) -> bool:
        return False

    @admin.display(description="rejected rows")
    def rejected_rows(self, obj: PriceRefreshJob) -> str:
        if not obj.rejections:
            return "—"
        rows = format_html_join(
            "",
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
            ((r["sku"], r["reason"], r["detail"]) for r in obj.rejections),
        )
        return format_html("<table><tr><th>sku</th><th>reason</th><th>detail</th></tr>{}</table>", rows)
