"""Admin for every catalog model, with provenance shown and a quote-file upload on price points."""

from __future__ import annotations

from django.contrib import admin
from django.contrib import messages
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.db.models import Q
from django.http import HttpRequest
from django.http import HttpResponse
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.html import format_html_join
from django.utils.text import capfirst

from catalog.completeness import offering_missing
from catalog.completeness import offerings_with_completeness
from catalog.completeness import system_missing
from catalog.completeness import systems_with_completeness
from catalog.coverage import catalog_coverage
from catalog.exchange_rates.services import newest_rate_line
from catalog.forms import QuoteImportForm
from catalog.forms import may_import_quotes
from catalog.importers import QuoteFileRejected
from catalog.models import Accelerator
from catalog.models import AcceleratorPowerCap
from catalog.models import AcceleratorThroughput
from catalog.models import CloudOffering
from catalog.models import CoolingTechnology
from catalog.models import EgressRate
from catalog.models import ExchangeRate
from catalog.models import FacilityProfile
from catalog.models import PowerDensityReference
from catalog.models import PricePoint
from catalog.models import QuoteImport
from catalog.models import RentalCurvePrice
from catalog.models import RentalTerm
from catalog.models import Source
from catalog.models import SystemPowerFigure
from catalog.models import SystemSku
from catalog.models import ThroughputMeasurement
from catalog.models import TokenApiPrice
from catalog.quote_imports import quote_import_request
from catalog.refresh.admin import PriceAgeMixin
from catalog.refresh.admin import PriceHistoryChartMixin
from catalog.refresh.admin import price_shown
from catalog.rental_curves import curve_history
from catalog.selectors import visible_rows
from core.file_import_admin import FileImportAdminMixin
from costmodel.vocabulary import MISSING
from teams.admin_mixins import HiddenRowsNotFoundMixin
from teams.admin_mixins import ListedRowsFilter
from teams.admin_mixins import NamedPickersMixin
from teams.admin_mixins import StaffWritesAdminMixin
from teams.selectors import team_ids_of

# Source URLs typed without a scheme are https (Django 6's default; silences its deprecation).
HTTPS_URLS = {models.URLField: {"assume_scheme": "https"}}


class ProvenanceMixin:
    """Shows ``field_sources`` as a table: each figure by its label, and its sources by title."""

    @admin.display(description="sources of each figure")
    def provenance(self, obj) -> str:
        if not obj.field_sources:
            return MISSING
        titles = dict(Source.objects.filter(key__in={k for keys in obj.field_sources.values() for k in keys})
                      .values_list("key", "title"))
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td></tr>",
            ((_figure_label(obj, name), "; ".join(f"{titles.get(key, key)} ({key})" for key in keys))
             for name, keys in sorted(obj.field_sources.items())),
        )
        return format_html("<table class='provenance'><thead><tr><th>Figure</th><th>Sources</th></tr>"
                           "</thead><tbody>{}</tbody></table>", rows)

    def formfield_for_dbfield(self, db_field, request: HttpRequest, **kwargs):
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if db_field.name == "field_sources" and field is not None:
            field.label = "Sources of each figure, to edit (JSON: figure -> source keys)"
        return field


def _figure_label(obj, name: str) -> str:
    try:
        return capfirst(obj._meta.get_field(name).verbose_name)
    except FieldDoesNotExist:
        return name.replace("_", " ").capitalize()


class PublicSourcesMixin:
    """Public catalog figures cite public sources: a staff member who is also in a team cannot
    put the team's confidential source on a row everyone reads."""

    def formfield_for_foreignkey(self, db_field, request: HttpRequest, **kwargs):
        if db_field.related_model is Source:
            kwargs["queryset"] = Source.objects.filter(team__isnull=True)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class SourcedRowAdmin(PublicSourcesMixin, StaffWritesAdminMixin, admin.ModelAdmin):
    """Rows each citing one public source, written by staff."""


class ProvenancedAdmin(NamedPickersMixin, StaffWritesAdminMixin, ProvenanceMixin, admin.ModelAdmin):
    """Catalog entries whose figures each name their sources, written by staff; pickers and the
    autocomplete show them by name."""

    def autocomplete_label(self, obj) -> str:
        return obj.name

    readonly_fields = ("provenance",)


class ThroughputInline(PublicSourcesMixin, StaffWritesAdminMixin, admin.TabularInline):
    """Every source's throughput figure for the accelerator."""

    model = AcceleratorThroughput
    extra = 0
    fields = ("precision", "tflops", "is_sparse", "is_preferred", "source", "note")
    autocomplete_fields = ("source",)


class PowerCapInline(PublicSourcesMixin, StaffWritesAdminMixin, admin.TabularInline):
    """Throughput lost at lower power limits."""

    model = AcceleratorPowerCap
    extra = 0
    autocomplete_fields = ("source",)


class PowerFigureInline(PublicSourcesMixin, StaffWritesAdminMixin, admin.TabularInline):
    """Other sources' maximum power beside the figure the system is costed at, and the gap."""

    model = SystemPowerFigure
    extra = 0
    fields = ("power_max_kw", "difference", "source", "note")
    readonly_fields = ("difference",)
    autocomplete_fields = ("source",)

    @admin.display(description="against the costed figure")
    def difference(self, obj: SystemPowerFigure) -> str:
        if obj.pk is None or obj.difference_kw is None:
            return MISSING
        used = obj.system.power_max_kw
        share = obj.difference_kw / used
        return (f"{obj.difference_kw:+,.3f} kW ({share:+.0%}) against the {used:,.3f} kW costed "
                f"({', '.join(obj.system.field_sources.get('power_max_kw', []))})")


class VisibleRowsAdminMixin:
    """Public rows and the user's teams' own: their quotes, and the sources and offerings those
    introduced. Another team's row does not exist here."""

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).filter(visible_rows(team_ids_of(request.user)))


# How a price reads wherever prices are listed.
PRICE_COLUMNS = ("as_of", "price", "price_high", "currency", "age", "source")


class PriceHistoryInline(VisibleRowsAdminMixin, StaffWritesAdminMixin, PriceAgeMixin, admin.TabularInline):
    """A target's prices, newest first; history is read-only (a new price is a new row)."""

    model = PricePoint
    extra = 0
    can_delete = False
    fields = (*PRICE_COLUMNS, "source_url", "retrieved_at", "note")
    readonly_fields = fields
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Source)
class SourceAdmin(HiddenRowsNotFoundMixin, VisibleRowsAdminMixin, StaffWritesAdminMixin, admin.ModelAdmin):
    formfield_overrides = HTTPS_URLS
    list_display = ("key", "title", "kind", "published_on", "retrieved_on")
    list_filter = ("kind",)
    search_fields = ("key", "title", "url", "document")
    date_hierarchy = "published_on"


@admin.register(TokenApiPrice)
class TokenApiPriceAdmin(SourcedRowAdmin):
    list_display = ("provider", "model_name", "serves_model", "usd_per_million_input",
                    "usd_per_million_cached_input", "usd_per_million_output",
                    "usd_per_million_training", "as_of", "is_example", "source")
    list_filter = ("provider", "is_example", "serves_model")
    search_fields = ("provider", "model_name")


@admin.register(EgressRate)
class EgressRateAdmin(SourcedRowAdmin):
    """The rate a rent option with no egress price of its own is costed at."""

    list_display = ("provider", "usd_per_gb", "tier", "as_of", "source")
    list_filter = ("provider",)


@admin.register(Accelerator)
class AcceleratorAdmin(ProvenancedAdmin):
    list_display = ("slug", "name", "vendor", "kind", "architecture",
                    "memory_gb", "tdp_w", "form_factor", "year")
    list_filter = ("vendor", "kind", "form_factor", "architecture")
    search_fields = ("slug", "name", "family", "architecture")
    inlines = (ThroughputInline, PowerCapInline)
    readonly_fields = ("provenance", "rental_curve")

    @admin.display(description="Rental curve (per accelerator-hour, in its currency, newest first)")
    def rental_curve(self, obj: Accelerator) -> str:
        """Each imported curve's prices by term, a row per date: the curve and its history."""
        history = curve_history(obj) if obj.pk else []
        if not history:
            return "No curve imported (manage.py import_rental_curve)."
        head = format_html_join("", "<th class='num'>{}</th>", ((label,) for _, label in RentalTerm.choices))
        rows = format_html_join(
            "", "<tr><td>{}</td>{}</tr>",
            ((day, format_html_join("", "<td class='num'>{}</td>",
                                    ((price_shown(*prices[term]) if term in prices else MISSING,)
                                     for term in RentalTerm.values)))
             for day, prices in history),
        )
        return format_html("<table id='rental-curve'><thead><tr><th>As of</th>{}</tr></thead>"
                           "<tbody>{}</tbody></table>", head, rows)


@admin.register(RentalCurvePrice)
class RentalCurvePriceAdmin(SourcedRowAdmin):
    list_display = ("accelerator", "as_of", "term", "price_per_accelerator_hour", "currency", "source")
    list_filter = ("term", "accelerator")
    date_hierarchy = "as_of"
    search_fields = ("accelerator__slug", "accelerator__name")
    autocomplete_fields = ("accelerator", "source")
    list_select_related = ("accelerator", "source")


@admin.register(AcceleratorThroughput)
class AcceleratorThroughputAdmin(SourcedRowAdmin):
    list_display = ("accelerator", "precision", "tflops", "is_sparse", "is_preferred", "source")
    list_filter = (
        "precision", "is_sparse", "is_preferred", ("source", ListedRowsFilter), "accelerator__vendor"
    )
    search_fields = ("accelerator__slug", "accelerator__name", "note")
    autocomplete_fields = ("accelerator", "source")
    list_select_related = ("accelerator", "source")


@admin.register(AcceleratorPowerCap)
class AcceleratorPowerCapAdmin(SourcedRowAdmin):
    list_display = ("accelerator", "power_limit_w",
                    "throughput_loss_pct_low", "throughput_loss_pct_high", "source")
    list_filter = (("source", ListedRowsFilter),)
    search_fields = ("accelerator__slug", "note")
    autocomplete_fields = ("accelerator", "source")


@admin.register(SystemSku)
class SystemSkuAdmin(ProvenancedAdmin):
    list_display = ("slug", "name", "kind", "accelerator", "accelerators_per_system",
                    "power_max_kw", "power_idle_kw", "rack_units",
                    "purchase_price_low_usd", "purchase_price_high_usd")
    list_filter = ("kind", "vendor", "accelerator__vendor")
    search_fields = ("slug", "name", "vendor", "cpu", "accelerator__slug", "accelerator__name")
    autocomplete_fields = ("accelerator",)
    list_select_related = ("accelerator",)
    readonly_fields = ("provenance", "costing")
    inlines = (PowerFigureInline, PriceHistoryInline)

    def get_search_results(self, request, queryset, search_term):
        queryset, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        return systems_with_completeness(queryset), may_have_duplicates

    def autocomplete_label(self, obj: SystemSku) -> str:
        """The picker's words: complete systems by name, the others with what they lack (the
        search annotates completeness; a selected row shown on a form is named only)."""
        if getattr(obj, "is_complete", True):
            return obj.label
        return f"{obj.label} — incomplete: missing {', '.join(system_missing(obj))}"

    @admin.display(description="can be costed in a scenario")
    def costing(self, obj: SystemSku) -> str:
        missing = system_missing(obj)
        return f"No: missing {', '.join(missing)}" if missing else "Yes"


@admin.register(CloudOffering)
class CloudOfferingAdmin(
    NamedPickersMixin,
    HiddenRowsNotFoundMixin,
    VisibleRowsAdminMixin,
    StaffWritesAdminMixin,
    PriceHistoryChartMixin,
    admin.ModelAdmin,
):
    list_display = ("provider", "instance_type", "region", "pricing_model",
                    "accelerator", "accelerators_per_instance")
    list_filter = ("provider", "pricing_model", "region", "accelerator__vendor")
    search_fields = ("instance_type", "region", "accelerator__slug", "notes")
    autocomplete_fields = ("accelerator",)
    list_select_related = ("accelerator",)
    readonly_fields = ("price_history_chart",)
    change_list_template = "admin/catalog/cloudoffering/change_list.html"

    def get_urls(self):
        view = self.admin_site.admin_view
        return [path("coverage/", view(self.coverage_view), name="catalog_cloudoffering_coverage"),
                *super().get_urls()]

    def coverage_view(self, request: HttpRequest) -> HttpResponse:
        """Per accelerator: which providers, regions and pricing models have a price, and how old."""
        on = timezone.localdate()
        context = {**self.admin_site.each_context(request), "opts": self.model._meta,
                   "title": "Catalog coverage by accelerator", "on": on,
                   "coverage": catalog_coverage(team_ids=team_ids_of(request.user), on=on)}
        return TemplateResponse(request, "admin/catalog/cloudoffering/coverage.html", context)

    def get_search_results(self, request, queryset, search_term):
        queryset, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        return offerings_with_completeness(queryset), may_have_duplicates

    def autocomplete_label(self, obj: CloudOffering) -> str:
        """Complete offerings by name; the others say what they lack (as for systems)."""
        if getattr(obj, "is_complete", True):
            return str(obj)
        return f"{obj} — incomplete: missing {', '.join(offering_missing(obj))}"
    inlines = (PriceHistoryInline,)


@admin.register(PricePoint)
class PricePointAdmin(
    HiddenRowsNotFoundMixin, VisibleRowsAdminMixin, StaffWritesAdminMixin, PriceAgeMixin, admin.ModelAdmin
):
    formfield_overrides = HTTPS_URLS
    list_display = ("__str__", *PRICE_COLUMNS, "team", "retrieved_at")
    list_filter = (
        "currency",
        "source__kind",
        "offering__provider",
        "offering__pricing_model",
        ("source", ListedRowsFilter),
        ("team", ListedRowsFilter),
    )
    search_fields = ("offering__instance_type", "system__slug", "source__key", "note")
    date_hierarchy = "as_of"
    autocomplete_fields = ("offering", "system", "source")
    list_select_related = ("offering", "system", "source")
    change_list_template = "admin/catalog/pricepoint/change_list.html"

    def changelist_view(self, request: HttpRequest, extra_context=None):
        extra_context = {**(extra_context or {}), "can_import_quotes": may_import_quotes(request.user)}
        return super().changelist_view(request, extra_context)

    def has_change_permission(self, request: HttpRequest, obj: PricePoint | None = None) -> bool:
        # Price history is never overwritten: record a new price instead of editing one.
        return False

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("import/", view(self.import_quotes_view), name="catalog_pricepoint_import"),
            *super().get_urls(),
        ]

    def import_quotes_view(self, request: HttpRequest) -> HttpResponse:
        """Upload a vendor quote file; a worker imports it (all or nothing) while its page shows progress."""
        if not may_import_quotes(request.user):
            return HttpResponseRedirect(reverse("admin:catalog_pricepoint_changelist"))
        form = QuoteImportForm(request.POST or None, request.FILES or None, user=request.user)
        if request.method == "POST" and form.is_valid():
            upload = form.cleaned_data["file"]
            try:
                job = quote_import_request(file_name=upload.name, content=upload.read(),
                                           team=form.cleaned_data["team"], uploaded_by=request.user)
            except QuoteFileRejected as exc:
                for error in exc.errors:
                    form.add_error("file", str(error))
            else:
                self.message_user(request, f"{upload.name} is being imported; this page shows its progress.",
                                  messages.SUCCESS)
                return HttpResponseRedirect(reverse("admin:catalog_quoteimport_change", args=[job.pk]))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Import a quote file",
            "form": form,
        }
        return TemplateResponse(request, "admin/catalog/pricepoint/import_quotes.html", context)


@admin.register(QuoteImport)
class QuoteImportAdmin(FileImportAdminMixin, HiddenRowsNotFoundMixin, admin.ModelAdmin):
    """Quote files being imported or imported: progress, counts, and each bad row of a refused one."""

    list_display = ("file_name", "team", "status", "progress", "prices_created", "prices_unchanged",
                    "offerings_created", "uploaded_by", "created_at", "finished_at")
    list_filter = ("status",)
    list_select_related = ("team", "uploaded_by")
    fields = ("file_name", "team", "uploaded_by", "status", "progress", "error", "bad_rows",
              "prices_created", "prices_unchanged", "offerings_created", "attempts", "created_at",
              "started_at", "finished_at")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest):
        # Public imports, the user's teams' quotes and their own uploads; another team's import
        # does not exist here.
        visible = visible_rows(team_ids_of(request.user)) | Q(uploaded_by=request.user)
        return super().get_queryset(request).filter(visible).defer("content")

    def has_module_permission(self, request: HttpRequest) -> bool:
        return request.user.is_active

    def has_view_permission(self, request: HttpRequest, obj: QuoteImport | None = None) -> bool:
        # Whoever may upload is sent to the import's page: the queryset above decides what they see.
        return request.user.is_active

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # through "Import a quote file" on price points

    def has_change_permission(self, request: HttpRequest, obj: QuoteImport | None = None) -> bool:
        return False


@admin.register(CoolingTechnology)
class CoolingTechnologyAdmin(ProvenancedAdmin):
    list_display = ("slug", "name", "min_kw_per_rack", "max_kw_per_rack",
                    "capex_rating", "opex_rating", "relative_capex_per_kw",
                    "capex_usd_per_kw", "opex_usd_per_kw_month")
    list_filter = ("capex_rating", "opex_rating", "complexity")
    search_fields = ("slug", "name", "notes")


@admin.register(FacilityProfile)
class FacilityProfileAdmin(ProvenancedAdmin):
    list_display = ("slug", "name", "kind",
                    "electricity_usd_per_kwh", "pue", "colocation_usd_per_kw_month",
                    "rack_power_limit_kw", "rack_units_per_rack", "max_cooling")
    list_filter = ("kind", "max_cooling")
    search_fields = ("slug", "name", "notes")


@admin.register(PowerDensityReference)
class PowerDensityReferenceAdmin(SourcedRowAdmin):
    list_display = PowerDensityReference.TABLE_COLUMNS
    list_filter = (("source", ListedRowsFilter),)
    search_fields = ("configuration", "cooling_note", "note")


@admin.register(ThroughputMeasurement)
class ThroughputMeasurementAdmin(SourcedRowAdmin):
    """Published throughputs the estimate is calibrated on, and the seeds' claims judged (loaded
    from catalog/data/throughput_measurements.yaml; an edit here changes the calibration)."""

    list_display = ("key", "accelerator", "accelerators", "model_key", "precision", "load",
                    "input_tokens", "output_tokens", "tokens_per_s", "serving_software",
                    "measured_on", "physically_possible", "calibrated")
    list_filter = ("kind", "calibrated", "physically_possible", "precision",
                   ("source", ListedRowsFilter), "accelerator__vendor")
    search_fields = ("key", "model_key", "accelerator__slug", "serving_software", "where",
                     "judgement")
    autocomplete_fields = ("accelerator", "source")
    list_select_related = ("accelerator", "source")
    readonly_fields = ("judgement", "physically_possible")

    @admin.display(description="requests in flight", ordering="concurrency")
    def load(self, obj: ThroughputMeasurement) -> str:
        return "all queued" if obj.concurrency is None else f"{obj.concurrency:,.0f}"


@admin.register(ExchangeRate)
class ExchangeRateAdmin(HiddenRowsNotFoundMixin, VisibleRowsAdminMixin, StaffWritesAdminMixin,
                        admin.ModelAdmin):
    """Dated exchange rates: the ECB's (public) and a team's own, each with its source. A rate
    is history: a correction is a new row with its own source."""

    list_display = ("on", "base", "quote", "rate", "source", "team")
    list_filter = ("base", "quote", ("source", ListedRowsFilter), ("team", ListedRowsFilter))
    date_hierarchy = "on"
    autocomplete_fields = ("source",)
    list_select_related = ("source", "team")

    def has_change_permission(self, request: HttpRequest, obj: ExchangeRate | None = None) -> bool:
        return False

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        subtitle = newest_rate_line(self.get_queryset(request))
        return super().changelist_view(request, {**(extra_context or {}), "subtitle": subtitle})
