"""What a cloud provider charges for data its instances send to the internet: the default egress
price of a rent option (tco/services/engine_inputs.py) when the scenario gives none."""
from __future__ import annotations

from django.db import models
from django.db.models import Q

from catalog.choices import Provider
from catalog.models.sources import Source
from catalog.validators import validate_not_negative


class EgressRate(models.Model):
    """A provider's published internet egress price per GB, of the tier a rent option's volume
    usually falls in (its first paid tier), on a date, from a source."""

    provider = models.CharField(max_length=16, choices=Provider.choices)
    usd_per_gb = models.DecimalField(max_digits=9, decimal_places=6, verbose_name="USD per GB",
                                     validators=[validate_not_negative])
    tier = models.CharField(
        max_length=160,
        help_text="The monthly volume and regions the rate applies to, as the source words it "
                  "(\"first 10 TB a month, US East\"); beyond it the provider's rate falls.")
    as_of = models.DateField(help_text="Date the rate applies from.")
    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="egress_rates")
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["provider", "-as_of"]
        verbose_name = "egress rate"
        constraints = [
            models.UniqueConstraint(fields=["provider", "as_of"], name="catalog_egress_rate_unique"),
            models.CheckConstraint(condition=Q(usd_per_gb__gte=0), name="catalog_egress_rate_nonnegative"),
        ]

    def __str__(self) -> str:
        rate = f"${self.usd_per_gb.normalize():f}/GB"
        return f"{self.get_provider_display()} internet egress {rate} ({self.tier}), {self.as_of}"
