"""A dated exchange rate with its source: the ECB's feed (public) or a team's own (confidential)."""
from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F
from django.db.models import Q

from core.currency import Currency


class ExchangeRate(models.Model):
    """One ``base`` is worth ``rate`` ``quote`` on ``on`` (1 EUR = 1.1172 USD on 2026-10-30)."""

    base = models.CharField(max_length=3, choices=Currency.choices,
                            help_text="The currency one unit of which the rate prices (ISO 4217).")
    quote = models.CharField(max_length=3, choices=Currency.choices,
                             help_text="The currency the rate is given in (ISO 4217).")
    rate = models.DecimalField(max_digits=20, decimal_places=10,
                               help_text="Units of the quote currency per unit of the base.")
    on = models.DateField(help_text="The day the rate applies to.")
    source = models.ForeignKey("catalog.Source", on_delete=models.PROTECT, related_name="rates")
    team = models.ForeignKey(
        "teams.Team", on_delete=models.CASCADE, null=True, blank=True, related_name="rates",
        help_text="The team whose own rate this is (its treasury's, a contract's); empty = public.")
    retrieved_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-on", "base", "quote"]
        indexes = [models.Index(fields=["base", "quote", "-on"], name="catalog_rate_pair_on")]
        constraints = [
            models.CheckConstraint(condition=Q(rate__gt=0), name="catalog_rate_positive"),
            models.CheckConstraint(condition=~Q(base=F("quote")), name="catalog_rate_two_currencies"),
            models.CheckConstraint(condition=Q(base__in=Currency.values), name="catalog_rate_base_known"),
            models.CheckConstraint(condition=Q(quote__in=Currency.values), name="catalog_rate_quote_known"),
            models.UniqueConstraint(fields=["base", "quote", "on", "source"], name="catalog_rate_one_per_day",
                                    violation_error_message="The source already has this pair's rate "
                                                            "for that day."),
        ]

    def __str__(self) -> str:
        return f"1 {self.base} = {self.rate} {self.quote} on {self.on} ({self.source})"

    def clean(self) -> None:
        errors = {}
        if self.rate is not None and self.rate <= 0:
            errors["rate"] = f"{self.rate} is not above zero: a rate is what one {self.base} is worth"
        if self.base and self.base == self.quote:
            errors["quote"] = "must differ from the base currency"
        if errors:
            raise ValidationError(errors)
