"""Emissions of each option and, with a carbon price, their cost line.

Operational emissions = energy [kWh] x grid intensity [kg CO2e/kWh]; a bought
fleet adds its systems' embodied emissions at month 0. A rented accelerator
draws what a bought one does (its system's draw divided by its accelerators)
times the cloud's PUE: its idle-to-max average over every hour of a reserved
term, its full draw over the hours billed on demand or spot. 1 t = 1,000 kg.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from numpy.typing import NDArray

from costmodel.elementwise import Figure
from costmodel.elementwise import as_float
from costmodel.elementwise import isnan
from costmodel.elementwise import where
from costmodel.elementwise import zeros_like
from costmodel.footprint import Footprint
from costmodel.inputs import BillingBasis
from costmodel.inputs import Numeric
from costmodel.inputs import RentOption
from costmodel.inputs import Scenario
from costmodel.inputs import billing_basis
from costmodel.metrics import per_million_tokens
from costmodel.power import average_power_kw
from costmodel.rent import accelerators_rented
from costmodel.rent import billed_hours_per_month
from costmodel.rent import instances_needed
from costmodel.result import Emissions
from costmodel.timeline import MONTHS_PER_YEAR
from costmodel.timeline import Line
from costmodel.timeline import once
from costmodel.timeline import recurring

KG_PER_TONNE = 1000.0


def tonnes_co2e(kwh: ArrayLike, grid_kg_co2e_per_kwh: Numeric) -> Numeric:
    """Emissions of drawing energy from a grid [t CO2e].

    Examples
    --------
    A DGX H100 at 10.2 kW all year (89.352 MWh) on a 0.373 kg/kWh grid:

    >>> round(float(tonnes_co2e(10.2 * 8760, 0.373)), 3)
    33.328
    """
    return as_float(kwh) * grid_kg_co2e_per_kwh / KG_PER_TONNE


def buy_kwh_per_month(inputs: Scenario, footprint: Footprint) -> Numeric:
    """Facility energy of the bought fleet [kWh/month]."""
    return footprint.facility_kw_average * as_float(inputs.workload.hours_per_month)


def buy_swing_kwh_per_month(inputs: Scenario, footprint: Footprint) -> Numeric:
    """Facility energy one unit of utilisation adds to the bought fleet [kWh/month]."""
    swing_kw = footprint.systems * (footprint.system_power_max_kw - footprint.system_power_idle_kw)
    return swing_kw * as_float(inputs.facility.pue) * inputs.workload.hours_per_month


def embodied_tonnes(inputs: Scenario, footprint: Footprint) -> Numeric:
    """Embodied emissions of the bought systems [t CO2e]."""
    return footprint.systems * inputs.buy.embodied_kg_co2e_per_system / KG_PER_TONNE


def rent_kwh_per_month(
    option: RentOption, inputs: Scenario, utilisations: Sequence[Numeric]
) -> list[Numeric]:
    """Facility energy of the rented accelerators at each of some utilisations [kWh/month]."""
    buy, workload = inputs.buy, inputs.workload
    per_system = as_float(buy.accelerators_per_system)
    per_instance = option.accelerators_per_instance
    rented = instances_needed(accelerators_rented(option, workload), per_instance) * np.rint(per_instance)
    max_kw = as_float(buy.system_power_max_kw) / per_system
    if billing_basis(option) == BillingBasis.HELD:  # held capacity idles between jobs
        idle_kw = as_float(buy.system_power_idle_kw) / per_system
        it_kwh = [rented * average_power_kw(idle_kw, max_kw, utilisation) * workload.hours_per_month
                  for utilisation in utilisations]
    else:
        it_kwh = [rented * max_kw * billed_hours_per_month(option, workload, utilisation)
                  for utilisation in utilisations]
    return [kwh * inputs.carbon.cloud_pue for kwh in it_kwh]


def rent_grid_kg_co2e_per_kwh(option: RentOption, inputs: Scenario) -> Figure:
    """The option's own grid intensity, or the stated default where it is NaN [kg CO2e/kWh]."""
    own = as_float(option.grid_kg_co2e_per_kwh)
    return where(isnan(own), inputs.carbon.default_grid_kg_co2e_per_kwh, own)


def carbon_line(
    price_usd_per_tonne: Numeric,
    tonnes_per_month: ArrayLike,
    tonnes_at_start: ArrayLike = 0.0,
) -> Line:
    """The ``carbon`` cost line: price x tonnes, one-off at month 0 plus every operating month."""
    monthly = as_float(tonnes_per_month) * price_usd_per_tonne
    upfront = as_float(tonnes_at_start) * price_usd_per_tonne
    return Line("carbon", (once(upfront, 0.0), recurring(monthly)))


def per_year(tonnes_per_month: ArrayLike) -> Figure:
    """A monthly figure as a yearly one (x 12)."""
    return as_float(tonnes_per_month) * MONTHS_PER_YEAR


@dataclass(frozen=True)
class BuyEmissions:
    """Emissions of the bought fleet, and the carbon cost line they make."""

    tonnes_per_month: Numeric  # operational, at the workload's utilisation
    embodied_tonnes: Numeric  # of making the systems, counted at month 0
    kwh_per_month: Numeric  # facility energy, PUE included
    grid_kg_co2e_per_kwh: Figure
    swing_tonnes_per_month: Numeric  # what going from idle to full utilisation adds

    @classmethod
    def of(cls, inputs: Scenario, footprint: Footprint) -> BuyEmissions:
        intensity = as_float(inputs.facility.grid_kg_co2e_per_kwh)
        kwh = buy_kwh_per_month(inputs, footprint)
        return cls(
            tonnes_per_month=tonnes_co2e(kwh, intensity),
            embodied_tonnes=embodied_tonnes(inputs, footprint),
            kwh_per_month=kwh,
            grid_kg_co2e_per_kwh=intensity,
            swing_tonnes_per_month=tonnes_co2e(buy_swing_kwh_per_month(inputs, footprint), intensity),
        )

    def line(self, inputs: Scenario) -> Line:
        return carbon_line(inputs.carbon.price_usd_per_tonne, self.tonnes_per_month, self.embodied_tonnes)

    def utilisation_slope_usd(self, inputs: Scenario, horizon: NDArray[np.float64]) -> Numeric:
        return self.swing_tonnes_per_month * inputs.carbon.price_usd_per_tonne * horizon

    def result(
        self, horizon: NDArray[np.float64], million_tokens_per_month: Numeric
    ) -> Emissions:
        total = self.tonnes_per_month * horizon + self.embodied_tonnes
        return Emissions(
            kwh_per_month=self.kwh_per_month,
            grid_kg_co2e_per_kwh=self.grid_kg_co2e_per_kwh,
            tonnes_per_year=per_year(self.tonnes_per_month),
            embodied_tonnes=self.embodied_tonnes,
            total_tonnes=total,
            tonnes_per_million_tokens=per_million_tokens(total, million_tokens_per_month * horizon),
        )


@dataclass(frozen=True)
class RentEmissions:
    """Emissions of one rent option's accelerators, and the carbon cost line they make."""

    kwh_per_month: Numeric
    grid_kg_co2e_per_kwh: Figure
    swing_kwh_per_month: Numeric

    @classmethod
    def of(cls, option: RentOption, inputs: Scenario) -> RentEmissions:
        kwh, at_full_use, idle = rent_kwh_per_month(option, inputs, (inputs.workload.utilisation, 1.0, 0.0))
        return cls(kwh, rent_grid_kg_co2e_per_kwh(option, inputs), at_full_use - idle)

    def line(self, inputs: Scenario) -> Line:
        tonnes = tonnes_co2e(self.kwh_per_month, self.grid_kg_co2e_per_kwh)
        return carbon_line(inputs.carbon.price_usd_per_tonne, tonnes)

    def utilisation_slope_usd(self, inputs: Scenario, horizon: NDArray[np.float64]) -> Numeric:
        swing = tonnes_co2e(self.swing_kwh_per_month, self.grid_kg_co2e_per_kwh)
        return swing * inputs.carbon.price_usd_per_tonne * horizon

    def result(
        self, horizon: NDArray[np.float64], million_tokens_per_month: Numeric
    ) -> Emissions:
        tonnes = tonnes_co2e(self.kwh_per_month, self.grid_kg_co2e_per_kwh)
        total = tonnes * horizon
        return Emissions(
            kwh_per_month=self.kwh_per_month,
            grid_kg_co2e_per_kwh=self.grid_kg_co2e_per_kwh,
            tonnes_per_year=per_year(tonnes),
            embodied_tonnes=zeros_like(total),
            total_tonnes=total,
            tonnes_per_million_tokens=per_million_tokens(total, million_tokens_per_month * horizon),
        )
