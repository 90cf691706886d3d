"""A team's contract price books applied to its scenario's rent options.

A rent option priced from the public catalog gets the team's best matching discount of a book
in force on the price date, and, on demand, its savings plan; a team quote (a private SKU
price) is already the contracted price; a price typed on the option is taken as given. The
engine costs the contracted price; the list price is kept beside it, so the result shows list
and contracted cost side by side and what an unused commitment costs.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import replace
from datetime import date

from django.db.models import Q

import costmodel as engine
from catalog.choices import PricingModel
from catalog.models import CloudOffering
from catalog.models import PricePoint
from costmodel.contracts import Discount
from costmodel.contracts import SavingsPlan
from costmodel.contracts import best_discount
from costmodel.contracts import savings_plan_hour
from costmodel.inputs import billing_basis
from costmodel.rent import accelerators_rented
from costmodel.rent import instances_needed
from tco.models import ContractPriceBook
from tco.models import Scenario


@dataclass(frozen=True)
class ContractUse:
    """How one rent option's price came from a book: list and contracted price per
    instance-hour, the terms applied, and the commitment paid for nothing [reporting currency]."""

    option: str
    book: str
    book_source: str
    list_price: float
    price: float
    terms: str
    unused_commitment_per_month: float = 0.0
    commitment_months: int = 0

    def to_dict(self) -> dict:
        return {"option": self.option, "book": self.book, "book_source": self.book_source,
                "list_price_per_instance_hour": self.list_price,
                "contracted_price_per_instance_hour": self.price, "terms": self.terms,
                "unused_commitment_per_month": round(self.unused_commitment_per_month, 2),
                "commitment_months": self.commitment_months}


@dataclass(frozen=True)
class ListedPrice:
    """A rent option's catalog price before any book: the offering and its price point."""

    offering: CloudOffering
    point: PricePoint


def books_in_force(scenario: Scenario, on: date) -> list[ContractPriceBook]:
    """The scenario's team's books in force on ``on``, of every provider (each provider's newest
    first)."""
    if scenario.team_id is None:
        return []
    return list(ContractPriceBook.objects.filter(
        Q(effective_to__isnull=True) | Q(effective_to__gte=on), team_id=scenario.team_id,
        effective_from__lte=on).prefetch_related("discounts", "savings_plans"))


def contracted_rent(books: Sequence[ContractPriceBook], inputs: engine.Scenario, index: int,
                    listed: ListedPrice, money) -> tuple[engine.RentOption, ContractUse | None]:
    """The rent option at its contracted price, and how the book gave it (None: list price).

    ``books``: the team's books in force on the price date (`books_in_force`); the newest of the
    offering's provider applies. ``money(amount, currency, field)`` converts a book's commitment
    into the reporting currency. Raises ValueError naming the book when a commitment is longer
    than the horizon.
    """
    option = inputs.rent[index]
    offering = listed.offering
    if listed.point.team_id is not None:
        return option, None  # a private SKU price: the team's quote is the contract price
    books = [book for book in books if book.provider == offering.provider]
    if not books:
        return option, None
    book = books[0]
    discounts = [Discount(float(d.share), d.instance_family, d.pricing_model, d.excluded())
                 for d in book.discounts.all()]
    discount = best_discount(discounts, offering.instance_type, offering.pricing_model)
    list_price = float(option.price_usd_per_instance_hour)
    rate = 1.0 - (discount.share if discount else 0.0)
    terms = [discount.describe()] if discount else []
    price, unused, plan_months = list_price * rate, 0.0, 0
    plans = [plan for plan in book.savings_plans.all()
             if offering.instance_type.startswith(plan.instance_family)]
    if plans and offering.pricing_model == PricingModel.ON_DEMAND:
        row = plans[0]
        horizon = int(round(float(inputs.finance.horizon_months)))
        if row.term_months > horizon:
            raise ValueError(f"the savings plan of '{book.name}' commits for {row.term_months} "
                             f"months, longer than the horizon of {horizon} months")
        plan = SavingsPlan(money(row.commitment_per_hour, row.currency, "price_books"),
                           float(row.plan_discount), row.term_months, row.instance_family)
        instances = float(instances_needed(accelerators_rented(option, inputs.workload),
                                           option.accelerators_per_instance))
        # The hours the provider bills: every hour held, or the used share of them (spread evenly).
        held = billing_basis(option) == engine.BillingBasis.HELD
        used_share = 1.0 if held else float(inputs.workload.utilisation)
        hourly = savings_plan_hour(plan, instances * list_price * used_share, rate)
        hours = float(inputs.workload.hours_per_month)
        used_hours = instances * used_share * hours * horizon
        total = (hourly.per_hour * hours * plan.term_months
                 + instances * used_share * hours * (horizon - plan.term_months) * price)
        price = total / used_hours if used_hours > 0 else math.inf
        unused, plan_months = hourly.unused_per_hour * hours, plan.term_months
        terms.append(f"savings plan of {plan.commitment_per_hour:,.2f}/h for {plan.term_months} "
                     f"months at {plan.plan_discount:.0%} off, "
                     + ("every hour held" if held else "usage spread evenly over the hours"))
    if not terms:
        return option, None
    use = ContractUse(option.name, str(book), book.source, list_price, price, "; ".join(terms),
                      unused, plan_months)
    return replace(option, price_usd_per_instance_hour=price), use
