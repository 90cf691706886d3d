"""Admin of price refreshes: the job list, the age of every price, an offering's price chart."""

from __future__ import annotations

from decimal import Decimal

from django import forms
from django.contrib import admin
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.http import HttpResponse
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.html import format_html_join
from django.utils.safestring import mark_safe

from catalog.choices import Provider
from catalog.models import CloudOffering
from catalog.models import PricePoint
from catalog.models import PriceRefreshJob
from catalog.refresh.feeds import FEED_PROVIDERS
from catalog.refresh.freshness import price_point_age
from catalog.refresh.history_chart import price_history_svg
from catalog.refresh.on_demand import PriceListRefused
from catalog.refresh.on_demand import RefreshNotQueued
from catalog.refresh.on_demand import price_list_save
from catalog.refresh.on_demand import refresh_request
from catalog.selectors import price_history
from costmodel.vocabulary import MISSING
from costmodel.vocabulary import money
from teams.admin_mixins import StaffWritesAdminMixin
from teams.selectors import team_ids_of


def price_shown(amount: Decimal | None, currency: str) -> str:
    """A stored price as people read it, in the one money format (``costmodel.vocabulary``):
    cents, and four decimals where the price has them ($2,000,000.00; $21.9576; EUR 3.06)."""
    if amount is None:
        return MISSING
    return money(float(amount), 2 if amount == round(amount, 2) else 4, currency)


class PriceAgeMixin:
    """``price`` and ``price_high`` columns with separators, and an ``age`` column: days since
    the price was last known to hold, flagged when stale."""

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).select_related("last_check")

    @admin.display(description="price", ordering="amount")
    def price(self, obj: PricePoint) -> str:
        return price_shown(obj.amount, obj.currency)

    @admin.display(description="high end", ordering="amount_high")
    def price_high(self, obj: PricePoint) -> str:
        return price_shown(obj.amount_high, obj.currency)

    @admin.display(description="age")
    def age(self, obj: PricePoint) -> str:
        if obj.pk is None:
            return MISSING
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
            return MISSING
        prices = price_history(obj, team_ids=getattr(obj, "viewer_team_ids", ()))
        svg = price_history_svg(prices, today=timezone.localdate(), title=str(obj))
        return mark_safe(svg) if svg else "no prices yet"  # noqa: S308 (our own SVG)


class RefreshNowForm(forms.Form):
    """Which provider to refresh now, and optionally its price list in the provider's own format."""

    provider = forms.ChoiceField(choices=[(p, label) for p, label in Provider.choices if p in FEED_PROVIDERS])
    price_list = forms.FileField(
        required=False, label="Price list (optional)",
        help_text="For a site without internet: the provider's own file, as its API answers it: Azure "
        "or GCP pages (.json), a Lambda or RunPod answer (.json), or a .zip of pages or of an AWS mirror "
        "(the folder holding offers/v1.0/aws/index.json). Empty: the provider's live feed is read.")


@admin.register(PriceRefreshJob)
class PriceRefreshJobAdmin(StaffWritesAdminMixin, admin.ModelAdmin):
    """Refresh jobs are written by the refresh only; the admin reads them, and staff start one."""

    change_list_template = "admin/catalog/pricerefreshjob/change_list.html"
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
    exclude = ("written_prices", "rejections", "warnings")
    readonly_fields = ("warnings_shown", "rejected_rows")

    def get_urls(self):
        view = self.admin_site.admin_view
        return [path("refresh/", view(self.refresh_now_view), name="catalog_pricerefreshjob_refresh"),
                *super().get_urls()]

    def changelist_view(self, request: HttpRequest, extra_context=None):
        extra_context = {**(extra_context or {}), "can_refresh": request.user.is_staff}
        return super().changelist_view(request, extra_context)

    def refresh_now_view(self, request: HttpRequest) -> HttpResponse:
        """Staff start a provider's refresh now, from its feed or an uploaded price list."""
        if not request.user.is_staff:
            raise PermissionDenied
        form = RefreshNowForm(request.POST or None, request.FILES or None,
                              initial={"provider": request.GET.get("provider")})
        if request.method == "POST" and form.is_valid():
            provider = form.cleaned_data["provider"]
            upload = form.cleaned_data["price_list"]
            try:
                location = price_list_save(provider=provider, files=[upload]) if upload else None
                task_id = refresh_request(provider=provider, location=location)
            except PriceListRefused as exc:
                form.add_error("price_list", str(exc))
            except RefreshNotQueued as exc:
                form.add_error(None, str(exc))
            else:
                source = f"from {upload.name}" if upload else "from its live feed"
                self.message_user(request, f"The {Provider(provider).label} refresh {source} is queued; "
                                  "its job is listed here as soon as a worker starts it.", messages.SUCCESS)
                return HttpResponseRedirect(
                    reverse("admin:catalog_pricerefreshjob_changelist") + f"?task_id={task_id}")
        context = {**self.admin_site.each_context(request), "opts": self.model._meta,
                   "title": "Refresh prices now", "form": form}
        return TemplateResponse(request, "admin/catalog/pricerefreshjob/refresh.html", context)

    def lookup_allowed(self, lookup: str, value: str, request=None) -> bool:
        return lookup == "task_id" or super().lookup_allowed(lookup, value, request)

    @admin.display(description="warnings")
    def warnings_shown(self, obj: PriceRefreshJob) -> str:
        if not obj.warnings:
            return MISSING
        return format_html("<ul>{}</ul>", format_html_join("", "<li>{}</li>", ((w,) for w in obj.warnings)))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: PriceRefreshJob | None = None) -> bool:
        return False

    @admin.display(description="rejected rows")
    def rejected_rows(self, obj: PriceRefreshJob) -> str:
        if not obj.rejections:
            return MISSING
        rows = format_html_join(
            "",
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
            ((r["sku"], r["reason"], r["detail"]) for r in obj.rejections),
        )
        return format_html("<table><tr><th>sku</th><th>reason</th><th>detail</th></tr>{}</table>", rows)
