"""Sites as the DCIM models them (NetBox's dcim): rooms, rack positions, power panels and feeds.

A feed's available power follows NetBox: voltage x amperage x maximum utilisation (x sqrt(3)
for three-phase); the ``redundant`` feed of a rack is its B side and does not add to it
(``costmodel.sites``). Rows imported from NetBox keep its id, so a re-import updates them.
"""
from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Q

from catalog.models import CoolingTechnology
from core.jobs import RecoverableJob
from core.revisions import RevisedModel
from costmodel.sites import FeedType
from costmodel.sites import Medium
from costmodel.sites import Phase
from costmodel.sites import feed_available_kw


def _netbox_id() -> models.PositiveIntegerField:
    return models.PositiveIntegerField("NetBox id", null=True, blank=True, unique=True,
                                       help_text="The row's id in NetBox; empty for rows typed here.")


class Site(RevisedModel):
    """A data center hall or campus where bought systems run, with its own prices and limits.

    Money is plain USD figures as the catalog's facility profiles hold them.
    """

    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=100, unique=True)
    netbox_id = _netbox_id()
    country = models.CharField(
        max_length=2, blank=True,
        validators=[RegexValidator(r"^[A-Z]{2}$", "an ISO 3166-1 alpha-2 code in capitals, e.g. DE")],
        help_text="ISO 3166-1 alpha-2 code of the country the site is in (DE, US): a rent option "
                  "in another jurisdiction is warned about (price, data residency, egress).")
    electricity_usd_per_kwh = models.DecimalField("electricity (USD/kWh)", max_digits=8, decimal_places=4,
                                                  null=True, blank=True,
                                                  help_text="The site's own electricity price.")
    pue = models.DecimalField("PUE", max_digits=4, decimal_places=2, null=True, blank=True,
                              help_text="Power usage effectiveness (at least 1).")
    colocation_usd_per_kw_month = models.DecimalField(
        "colocation (USD per kW-month)", max_digits=10, decimal_places=2, null=True, blank=True,
        help_text="Per contracted IT kW; empty for owned space.")
    it_capacity_kw = models.DecimalField("IT capacity (kW)", max_digits=10, decimal_places=2,
                                         null=True, blank=True,
                                         help_text="IT power the site may draw in all, whatever its feeds.")
    revision = models.PositiveIntegerField(
        default=1, editable=False,
        help_text="Bumped by every change of the site, its cooling, rooms, racks, power panels and "
                  "feeds (tco/services/evaluation_reads.py): its scenarios' cached figures are "
                  "computed again.")

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=Q(pue__isnull=True) | Q(pue__gte=1),
                                   name="site_pue_at_least_one"),
            models.CheckConstraint(condition=Q(electricity_usd_per_kwh__isnull=True)
                                   | Q(electricity_usd_per_kwh__gte=0), name="site_electricity_not_negative"),
            models.CheckConstraint(condition=Q(it_capacity_kw__isnull=True) | Q(it_capacity_kw__gt=0),
                                   name="site_it_capacity_positive"),
        ]

    def __str__(self) -> str:
        return self.name


class SiteCooling(models.Model):
    """How much IT heat a site can carry away with one cooling technology [kW]."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="cooling")
    technology = models.ForeignKey(CoolingTechnology, on_delete=models.PROTECT, related_name="+")
    capacity_kw = models.DecimalField("capacity (kW)", max_digits=10, decimal_places=2)

    class Meta:
        verbose_name = "cooling capacity"
        verbose_name_plural = "cooling capacity"
        constraints = [
            models.UniqueConstraint(fields=["site", "technology"], name="site_cooling_once_per_technology"),
            models.CheckConstraint(condition=Q(capacity_kw__gt=0), name="site_cooling_capacity_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.technology}: {self.capacity_kw} kW"


class Room(models.Model):
    """A room or hall of a site (NetBox location) and what it cools with."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="rooms")
    name = models.CharField(max_length=100)
    netbox_id = _netbox_id()
    medium = models.CharField(max_length=8, choices=[(m.value, m.value.title()) for m in Medium],
                              default=Medium.AIR, help_text="Air rooms take air-cooled systems, liquid "
                                                            "rooms liquid-cooled ones.")

    class Meta:
        ordering = ["site", "name"]
        constraints = [models.UniqueConstraint(fields=["site", "name"], name="room_name_once_per_site")]

    def __str__(self) -> str:
        return f"{self.site} / {self.name}"


class RackPosition(models.Model):
    """A rack position (NetBox rack): its site, room and usable height."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="racks")
    room = models.ForeignKey(Room, on_delete=models.SET_NULL, null=True, blank=True, related_name="racks")
    name = models.CharField(max_length=100)
    netbox_id = _netbox_id()
    units = models.PositiveSmallIntegerField("height (U)", default=42, help_text="Usable height.")

    class Meta:
        ordering = ["site", "name"]
        verbose_name = "rack position"
        constraints = [
            models.UniqueConstraint(fields=["site", "name"], name="rack_name_once_per_site"),
            models.CheckConstraint(condition=Q(units__gt=0), name="rack_units_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.site} / {self.name}"

    def clean(self) -> None:
        if self.room_id and self.room.site_id != self.site_id:
            raise ValidationError({"room": f"room {self.room.name} is at site {self.room.site}, "
                                           f"not {self.site}"})


class PowerPanel(models.Model):
    """A power panel (NetBox power panel) of a site."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="power_panels")
    room = models.ForeignKey(Room, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    name = models.CharField(max_length=100)
    netbox_id = _netbox_id()

    class Meta:
        ordering = ["site", "name"]
        constraints = [models.UniqueConstraint(fields=["site", "name"], name="panel_name_once_per_site")]

    def __str__(self) -> str:
        return f"{self.site} / {self.name}"


class PowerFeed(models.Model):
    """A power feed from a panel to a rack, as NetBox's: supply, phase, voltage, amperage, utilisation."""

    panel = models.ForeignKey(PowerPanel, on_delete=models.CASCADE, related_name="feeds")
    rack = models.ForeignKey(RackPosition, on_delete=models.SET_NULL, null=True, blank=True,
                             related_name="feeds")
    name = models.CharField(max_length=100)
    netbox_id = _netbox_id()
    type = models.CharField(max_length=10, choices=[(t.value, t.value.title()) for t in FeedType],
                            default=FeedType.PRIMARY,
                            help_text="Primary is the A side, redundant the B side.")
    supply = models.CharField(max_length=2, choices=[("ac", "AC"), ("dc", "DC")], default="ac")
    phase = models.CharField(max_length=12, choices=[(p.value, p.value.capitalize()) for p in Phase],
                             default=Phase.SINGLE)
    voltage = models.DecimalField("voltage (V)", max_digits=7, decimal_places=1)
    amperage = models.DecimalField("amperage (A)", max_digits=7, decimal_places=1)
    max_utilisation = models.DecimalField("maximum utilisation", max_digits=4, decimal_places=3,
                                          help_text="Share of the breaker's rating usable continuously "
                                                    "(0.8 for 80 %).")

    class Meta:
        ordering = ["panel", "name"]
        constraints = [
            models.UniqueConstraint(fields=["panel", "name"], name="feed_name_once_per_panel"),
            models.CheckConstraint(condition=Q(voltage__gt=0), name="feed_voltage_positive"),
            models.CheckConstraint(condition=Q(amperage__gt=0), name="feed_amperage_positive"),
            models.CheckConstraint(condition=Q(max_utilisation__gt=0) & Q(max_utilisation__lte=1),
                                   name="feed_utilisation_share"),
        ]

    def __str__(self) -> str:
        return f"{self.panel} / {self.name}"

    @property
    def available_kw(self) -> float:
        return feed_available_kw(float(self.voltage), float(self.amperage), self.phase,
                                 float(self.max_utilisation))

    def clean(self) -> None:
        errors = {}
        if self.voltage is not None and self.voltage <= 0:
            errors["voltage"] = "must be above 0 V"
        if self.amperage is not None and self.amperage <= 0:
            errors["amperage"] = "must be above 0 A"
        if self.max_utilisation is not None and not 0 < self.max_utilisation <= 1:
            errors["max_utilisation"] = "must be a share above 0 and at most 1 (0.8 for 80 %)"
        if self.rack_id and self.panel_id and self.rack.site_id != self.panel.site_id:
            errors["rack"] = (f"rack {self.rack.name} is at site {self.rack.site}; the feed's panel "
                              f"{self.panel.name} is at {self.panel.site}")
        if errors:
            raise ValidationError(errors)


class NetBoxImportStatus(models.TextChoices):
    PENDING = "pending", "Waiting for a worker"
    RUNNING = "running", "Importing"
    DONE = "done", "Imported"
    FAILED = "failed", "Failed: nothing written"


class NetBoxImport(RecoverableJob):
    """An import of sites, rooms, racks, panels and feeds from NetBox, run on a worker.

    All or nothing: a payload missing a field or holding a bad value writes nothing, and
    ``error`` names the object, the field and the reason. ``changes`` says what a finished
    import created, updated (field by field) and left unchanged.
    """

    sites = models.JSONField(default=list, blank=True, help_text="NetBox site slugs; empty for all.")
    status = models.CharField(max_length=8, choices=NetBoxImportStatus.choices,
                              default=NetBoxImportStatus.PENDING)
    steps_total = models.PositiveSmallIntegerField(default=5)
    steps_done = models.PositiveSmallIntegerField(default=0, help_text="Object kinds read so far.")
    changes = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "NetBox import"
        constraints = [models.CheckConstraint(condition=Q(status__in=NetBoxImportStatus.values),
                                              name="netbox_import_status_known")]

    def __str__(self) -> str:
        return f"NetBox import {self.pk} ({self.get_status_display()})"

    @property
    def progress_percent(self) -> int:
        if self.status == NetBoxImportStatus.DONE:
            return 100
        return min(99, 100 * self.steps_done // max(self.steps_total, 1))
