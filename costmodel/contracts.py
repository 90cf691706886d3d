"""Contract price books: a team's discount on a provider's list prices and its savings plans.

- A discount is a share off the list price, for all of a provider's services or only for
  instance types starting with a family (``p5`` matches ``p5.48xlarge``) and/or one pricing
  model; listed instance types are excluded. The most specific discount that matches applies
  (family and pricing model, then family, then pricing model, then all).
- A savings plan (or committed-use discount) commits an amount per hour for its term, spent at
  the plan's rates (list x (1 - plan discount)); usage beyond it is billed at the (discounted)
  on-demand rate, and a commitment not used up is paid all the same: that is its unused cost.
- A private price for one SKU is a team quote in the catalog: it is the contracted price, and no
  book discount applies on top of it.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Discount:
    share: float
    instance_family: str = ""
    pricing_model: str = ""
    excluded: tuple[str, ...] = ()

    def matches(self, instance_type: str, pricing_model: str) -> bool:
        return (instance_type not in self.excluded
                and instance_type.startswith(self.instance_family)
                and self.pricing_model in ("", pricing_model))

    @property
    def specificity(self) -> int:
        return 2 * bool(self.instance_family) + bool(self.pricing_model)

    def describe(self) -> str:
        scope = " ".join(filter(None, [self.instance_family and f"{self.instance_family}*",
                                       self.pricing_model.replace("_", "-")])) or "all services"
        excluded = f", except {', '.join(self.excluded)}" if self.excluded else ""
        return f"{self.share:.2%} off {scope}{excluded}"


def best_discount(discounts: Sequence[Discount], instance_type: str,
                  pricing_model: str) -> Discount | None:
    """The most specific discount matching the offering (None when none does)."""
    matching = [d for d in discounts if d.matches(instance_type, pricing_model)]
    return max(matching, key=lambda d: d.specificity, default=None)


@dataclass(frozen=True)
class SavingsPlan:
    """``commitment_per_hour`` spent at list x (1 - ``plan_discount``) for ``term_months``."""

    commitment_per_hour: float
    plan_discount: float
    term_months: int
    instance_family: str = ""


@dataclass(frozen=True)
class PlanCost:
    """A month of the plan's term: what is paid per hour, and the part of the commitment that
    bought nothing."""

    per_hour: float
    unused_per_hour: float


def savings_plan_hour(plan: SavingsPlan, list_spend_per_hour: float, on_demand_rate: float = 1.0) -> PlanCost:
    """An hour under the plan when the workload would spend ``list_spend_per_hour`` at list
    prices; usage beyond the commitment pays ``on_demand_rate`` x list (1 = list, 0.9 with a
    10 % discount).

    >>> savings_plan_hour(SavingsPlan(100.0, 0.2, 12), 100.0)   # uses 80 of the 100 committed
    PlanCost(per_hour=100.0, unused_per_hour=20.0)
    >>> savings_plan_hour(SavingsPlan(100.0, 0.2, 12), 150.0)   # 125 at list is covered
    PlanCost(per_hour=125.0, unused_per_hour=0.0)
    """
    at_plan_rates = list_spend_per_hour * (1.0 - plan.plan_discount)
    covered_list = plan.commitment_per_hour / (1.0 - plan.plan_discount)
    beyond = max(list_spend_per_hour - covered_list, 0.0) * on_demand_rate
    return PlanCost(plan.commitment_per_hour + beyond, max(plan.commitment_per_hour - at_plan_rates, 0.0))
