"""A dated exchange rate with its source: the ECB's feed (public) or a team's own (confidential)."""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F
from django.db.models import Q
from django.utils import timezone

from core.currency import Currency

# The ECB's first euro reference rates; a rate before it is a typing error, as one after today.
FIRST_RATE_DAY = dt.date(1999, 1, 4)
# A team's rate may differ from the ECB's of its day (a bank's, a contract's), but not by more than
# this factor either way: 1e9 or 1e-7 for EUR/USD is a typing error that multiplies every figure.
RATE_BAND = 2


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
        """The one rule for a rate typed in (the admin's form, the API): above zero, between two
        currencies, on a day a rate can be known, and within ``RATE_BAND`` of the ECB's rate of
        that day (when the ECB has one), with both figures in the refusal."""
        errors = {}
        if self.rate is not None and self.rate <= 0:
            errors["rate"] = (f"{self.rate.normalize():f} is not above zero: a rate is what one unit "
                              "of the base currency is worth in the quote currency, a positive number")
        if self.base and self.base == self.quote:
            errors["quote"] = f"{self.quote} is the base currency too; a rate is between two currencies"
        if self.on is not None and not FIRST_RATE_DAY <= self.on <= timezone.localdate():
            errors["on"] = (f"{self.on} is outside the days a rate can be known: from {FIRST_RATE_DAY} "
                            f"(the ECB's first euro reference rate) to today, {timezone.localdate()}")
        if not errors and None not in (self.base, self.quote, self.rate, self.on):
            reference = ecb_reference(self.base, self.quote, self.on)
            if reference is not None and not 1 / RATE_BAND <= self.rate / reference[0] <= RATE_BAND:
                errors["rate"] = (
                    f"1 {self.base} = {self.rate.normalize():f} {self.quote} is more than {RATE_BAND} "
                    f"times off the ECB's {float(reference[0]):.6g} {self.quote} of {reference[1]}; "
                    "check the direction (base and quote) and the figure")
        if errors:
            raise ValidationError(errors)


def ecb_reference(base: str, quote: str, on: dt.date) -> tuple[Decimal, dt.date] | None:
    """The ECB's rate of 1 ``base`` in ``quote`` on or before ``on`` (within
    EXCHANGE_RATE_MAX_AGE_DAYS; the inverse of the pair's if only that is known), and its day."""
    oldest = on - dt.timedelta(days=settings.EXCHANGE_RATE_MAX_AGE_DAYS)
    ecb = ExchangeRate.objects.filter(team__isnull=True, on__lte=on, on__gte=oldest).order_by("-on")
    direct = ecb.filter(base=base, quote=quote).first()
    if direct is not None:
        return direct.rate, direct.on
    inverse = ecb.filter(base=quote, quote=base).first()
    return (1 / inverse.rate, inverse.on) if inverse is not None else None
