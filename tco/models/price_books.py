"""A team's contract price books with cloud providers: discounts and savings plans, with their
effective dates and source (costmodel/contracts.py says how they apply)."""
from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q

from catalog.choices import PricingModel
from catalog.choices import Provider
from core.currency import Currency
from core.revisions import RevisedModel

SHARE = {"max_digits": 7, "decimal_places": 6,
         "validators": [MinValueValidator(0), MaxValueValidator(1)]}


class ContractPriceBook(RevisedModel):
    """An agreement with a provider (an AWS EDP, an Azure MACC, a Google commitment)."""

    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="price_books")
    provider = models.CharField(max_length=16, choices=Provider.choices)
    name = models.CharField(max_length=200)
    effective_from = models.DateField()
    effective_to = models.DateField(null=True, blank=True, help_text="Empty = open-ended.")
    source = models.CharField(max_length=300, help_text="The signed agreement it comes from.")
    revision = models.PositiveIntegerField(
        default=1, editable=False,
        help_text="Bumped by every change of the book, its discounts and savings plans "
                  "(tco/signals.py): its team's scenarios' cached figures are computed again.")

    class Meta:
        ordering = ["team", "provider", "-effective_from"]
        constraints = [
            models.CheckConstraint(condition=Q(effective_to__isnull=True)
                                   | Q(effective_to__gte=models.F("effective_from")),
                                   name="price_book_dates_in_order"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_provider_display()}, from {self.effective_from})"

    def clean(self) -> None:
        if self.effective_to and self.effective_from and self.effective_to < self.effective_from:
            raise ValidationError({"effective_to": "must not be before effective_from"})


class ContractDiscount(models.Model):
    """A share off list prices: all services, or one instance family and/or pricing model."""

    book = models.ForeignKey(ContractPriceBook, on_delete=models.CASCADE, related_name="discounts")
    share = models.DecimalField(**SHARE, help_text="0.10 = 10 % off list; at most 1.")
    instance_family = models.CharField(max_length=64, blank=True,
                                       help_text="Instance types starting with this; empty = all.")
    pricing_model = models.CharField(max_length=16, choices=PricingModel.choices, blank=True,
                                     help_text="Empty = every pricing model.")
    excluded_instance_types = models.CharField(
        max_length=500, blank=True, help_text="Comma-separated instance types the discount skips.")

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(share__gte=0) & Q(share__lte=1),
                                              name="contract_discount_share_0_1")]

    def __str__(self) -> str:
        scope = " ".join(filter(None, [self.instance_family, self.pricing_model])) or "all services"
        return f"{float(self.share):.2%} off {scope}"

    def excluded(self) -> tuple[str, ...]:
        return tuple(name.strip() for name in self.excluded_instance_types.split(",") if name.strip())


class SavingsPlanCommitment(models.Model):
    """An amount per hour committed for 1 or 3 years, spent at the plan's rates."""

    book = models.ForeignKey(ContractPriceBook, on_delete=models.CASCADE, related_name="savings_plans")
    commitment_per_hour = models.DecimalField(max_digits=14, decimal_places=4,
                                              validators=[MinValueValidator(0)])
    currency = models.CharField(max_length=3, choices=Currency.choices, default=Currency.USD)
    term_months = models.PositiveSmallIntegerField(choices=[(12, "1 year"), (36, "3 years")])
    plan_discount = models.DecimalField(**SHARE, help_text="The plan's rates: list x (1 - this).")
    instance_family = models.CharField(max_length=64, blank=True,
                                       help_text="Instance types it covers; empty = all on-demand.")

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(plan_discount__gte=0) & Q(plan_discount__lt=1),
                                   name="savings_plan_discount_below_1"),
            models.CheckConstraint(condition=Q(commitment_per_hour__gte=0),
                                   name="savings_plan_commitment_nonnegative"),
        ]

    def __str__(self) -> str:
        return (f"{self.commitment_per_hour} {self.currency}/h for {self.term_months} months at "
                f"{float(self.plan_discount):.2%} off")
