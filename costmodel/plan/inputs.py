"""Inputs of a procurement plan: a demand curve, the choices that can serve it, and the limits.

Months follow the engine's convention: month 0 holds up-front payments, months
1..H are operating months. Demand is counted in accelerators busy each month (of
the reference accelerator; a choice of another accelerator counts ``equivalence``
reference accelerators per accelerator, as in like-for-like comparisons).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from enum import StrEnum

from costmodel.inputs import HOURS_PER_MONTH
from costmodel.inputs import BuyOption
from costmodel.inputs import CoolingTier
from costmodel.inputs import Facility
from costmodel.inputs import InputError
from costmodel.inputs import RentOption


class CapexTiming(StrEnum):
    """When a system order is paid: when it is placed, or when it arrives."""

    ORDER = "order"
    DELIVERY = "delivery"


@dataclass(frozen=True)
class Demand:
    """Accelerators busy in each operating month 1..H, and how busy they are.

    ``utilisation[m - 1]`` is the share of month m's hours those accelerators do
    useful work (the engine's workload utilisation, one per month).
    """

    accelerators: tuple[float, ...]
    utilisation: tuple[float, ...]
    hours_per_month: float = HOURS_PER_MONTH

    @property
    def horizon_months(self) -> int:
        return len(self.accelerators)

    @classmethod
    def growing(
        cls,
        start: float,
        growth_per_month: float,
        months: int,
        utilisation: float,
        hours_per_month: float = HOURS_PER_MONTH,
    ) -> Demand:
        """Demand starting at ``start`` accelerators and growing by a share each month.

        Examples
        --------
        >>> Demand.growing(8, 0.05, 3, 0.7).accelerators
        (8.0, 8.4, 8.82)
        """
        values = tuple(round(start * (1.0 + growth_per_month) ** month, 9) for month in range(months))
        return cls(values, (utilisation,) * months, hours_per_month)


@dataclass(frozen=True)
class OwnedChoice:
    """A system SKU the plan may buy from ``earliest_order_month`` on, and the fleet of it already owned.

    An order placed in month t (earliest..H-1-L) serves from month t + L + 1; its capex
    is paid in month t (``CapexTiming.ORDER``) or t + L (``DELIVERY``). Existing
    systems cost no capex and carry no residual value (both are sunk); every
    system retires once its age reaches ``service_life_months``.
    """

    name: str
    buy: BuyOption
    lead_time_months: int = 0
    capex_timing: CapexTiming | str = CapexTiming.ORDER
    existing_systems: int = 0
    existing_age_months: int = 0
    service_life_months: float = math.inf
    equivalence: float = 1.0
    can_order: bool = True
    site: str = ""  # the PlanSite it is placed at ("" when the plan has no sites)
    earliest_order_month: int = 0  # a generation not yet on sale cannot be ordered before it is


@dataclass(frozen=True)
class PlanSite:
    """A site the plan may place owned systems at, with its own facility costs and limits.

    ``facility`` replaces the scenario's (electricity, PUE, space, rack limits) for the
    systems placed here. ``it_power_kw`` caps their maximum IT draw, ``racks`` their racks,
    and ``cooling_kw`` the IT heat per cooling medium ("air", "liquid"); a medium it does not
    name cools nothing here. ``math.inf`` means no limit.
    """

    name: str
    facility: Facility
    it_power_kw: float = math.inf
    racks: float = math.inf
    cooling_kw: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class RentChoice:
    """A cloud offer the plan may use: on-demand and spot per month, reserved by term.

    Reserved commitments start in any month, run their whole term with no early
    exit (months after the horizon are paid too), and are paid for every hour.
    ``spot_share_cap`` caps the share of each month's demand a spot offer may
    serve. Data charges (egress, storage) are charged in proportion to the share
    of demand the offer serves. ``forward_usd_per_instance_hour``, where given, is the
    price of month m (of a commitment starting in month m) at index m - 1, for months
    1..H, in place of ``option.price_change_per_year``: a term structure's forward curve.
    """

    option: RentOption
    equivalence: float = 1.0
    spot_share_cap: float = 1.0
    forward_usd_per_instance_hour: tuple[float, ...] = ()

    @property
    def name(self) -> str:
        return self.option.name


@dataclass(frozen=True)
class Limits:
    """Physical and policy limits; ``math.inf`` means no limit.

    ``site_it_power_kw`` caps the owned fleet's maximum IT draw (systems after any
    power cap), ``site_racks`` its racks (systems per rack follow from the
    facility's rack power and units), ``capex_usd_per_period`` the capex paid in
    each period of ``capex_period_months`` months (month 0 belongs to the first).
    The minimum owned share applies from the first month owned systems can serve.
    """

    site_it_power_kw: float = math.inf
    site_racks: float = math.inf
    capex_usd_per_period: float = math.inf
    capex_period_months: int = 12
    min_owned_share: float = 0.0
    min_rented_share: float = 0.0


@dataclass(frozen=True)
class PlanInputs:
    """Everything a plan needs; ``facility`` and ``cooling`` place every owned choice not at a site."""

    demand: Demand
    owned: tuple[OwnedChoice, ...]
    rent: tuple[RentChoice, ...]
    facility: Facility
    cooling: tuple[CoolingTier, ...]
    discount_rate_per_year: float
    limits: Limits = field(default_factory=Limits)
    sites: tuple[PlanSite, ...] = ()
    cooling_media: Mapping[str, str] = field(default_factory=dict)  # cooling tier name -> medium

    def facility_of(self, choice: OwnedChoice) -> Facility:
        """Where a choice's systems run: its site's facility, else the scenario's."""
        for site in self.sites:
            if site.name == choice.site:
                return site.facility
        return self.facility


class PlanInputError(InputError):
    """An input a plan cannot use; ``path`` names the field (``owned.0.lead_time_months``)."""
