"""Physical footprint of the bought fleet: systems, power, racks and cooling."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from numpy.typing import NDArray

from costmodel.counting import ceil_count
from costmodel.counting import exceeds
from costmodel.counting import whole
from costmodel.elementwise import Figure
from costmodel.elementwise import as_float
from costmodel.elementwise import minimum
from costmodel.inputs import BuyOption
from costmodel.inputs import CoolingTier
from costmodel.inputs import Facility
from costmodel.inputs import Numeric
from costmodel.inputs import Workload
from costmodel.power import average_power_kw
from costmodel.power import capped_power_kw
from costmodel.power import cooling_tier_index
from costmodel.power import densest_rack_kw
from costmodel.power import energy_mwh
from costmodel.power import facility_power_kw
from costmodel.power import racks_needed
from costmodel.power import systems_per_rack
from costmodel.power import tier_value
from costmodel.timeline import MONTHS_PER_YEAR


@dataclass(frozen=True)
class Footprint:
    """Systems, power, racks and cooling of the bought fleet (each field batch-shaped).

    ``warnings`` maps a flag name to a boolean array:
    ``system_does_not_fit_rack`` (one system exceeds the rack's kW or units; it is
    then costed as one system per rack), ``exceeds_rack_power_limit`` (the densest
    rack draws more than the facility's rack power limit) and
    ``exceeds_cooling_table`` (denser than the last cooling tier; costed at the
    last tier).
    """

    accelerators_bought: Numeric
    systems: Numeric
    system_power_max_kw: Numeric
    system_power_idle_kw: Numeric
    systems_per_rack: Numeric
    racks: Numeric
    kw_per_rack: Numeric
    it_kw_max: Numeric
    it_kw_average: Numeric
    facility_kw_max: Numeric
    facility_kw_average: Numeric
    mwh_per_year: Numeric
    cooling_tier_index: int | np.intp | NDArray[np.intp]
    cooling_tier_name: Any
    needs_new_cooling: np.bool_ | NDArray[np.bool_]
    cooling_capex_usd_per_kw: Numeric
    cooling_opex_usd_per_kw_month: Numeric
    warnings: dict[str, bool | np.bool_ | NDArray[np.bool_]]


def accelerators_to_buy(
    accelerators: ArrayLike, power_cap_throughput_loss: ArrayLike
) -> Figure:
    """Accelerators to buy so that a power-capped fleet still does the workload's work [-].

    A cap that loses a share of throughput makes each accelerator deliver
    (1 - loss) of its work, so the fleet grows by 1 / (1 - loss). Both options then
    deliver the same useful accelerator-hours; the cap shows up as more systems
    (and less power per system), not as fewer useful hours.

    Examples
    --------
    Seed 003: an H100 capped at 500 W loses ~20 % of its throughput:

    >>> float(accelerators_to_buy(64.0, 0.2))
    80.0
    """
    return as_float(accelerators) / (1.0 - as_float(power_cap_throughput_loss))


def systems_needed(
    accelerators: ArrayLike, accelerators_per_system: ArrayLike
) -> NDArray[np.float64]:
    """Whole systems holding at least the given accelerators [-].

    Examples
    --------
    >>> float(systems_needed(256.0, 8.0)), float(systems_needed(257.0, 8.0))
    (32.0, 33.0)
    """
    return ceil_count(as_float(accelerators) / whole(accelerators_per_system))


def fleet_footprint(
    workload: Workload, buy: BuyOption, facility: Facility, cooling: tuple[CoolingTier, ...]
) -> Footprint:
    """Size the bought fleet and place it in racks and a cooling tier.

    Parameters
    ----------
    workload, buy, facility : input dataclasses
        Accelerators needed and utilisation; system SKU and power cap; rack
        limits, PUE and existing cooling.
    cooling : tuple of CoolingTier
        Cooling technologies ordered by increasing ``max_kw_per_rack``.

    Returns
    -------
    Footprint
        Counts [-], power [kW], density [kW/rack], energy [MWh/year], cooling tier.
    """
    accelerators = accelerators_to_buy(workload.accelerators, buy.power_cap_throughput_loss)
    systems = systems_needed(accelerators, buy.accelerators_per_system)
    power_max_kw = capped_power_kw(buy.system_power_max_kw, buy.power_cap_share)
    # A cap below the idle draw caps the idle draw too.
    power_idle_kw = minimum(as_float(buy.system_power_idle_kw), power_max_kw)
    fit = systems_per_rack(
        facility.rack_power_limit_kw, power_max_kw, facility.rack_units_per_rack, buy.system_rack_units
    )
    racks = racks_needed(systems, fit)
    kw_per_rack = densest_rack_kw(systems, fit, power_max_kw)
    it_kw_max = systems * power_max_kw
    it_kw_average = systems * average_power_kw(power_idle_kw, power_max_kw, workload.utilisation)
    facility_kw_average = facility_power_kw(it_kw_average, facility.pue)

    tier_max = [tier.max_kw_per_rack for tier in cooling]
    raw_index = cooling_tier_index(kw_per_rack, tier_max)
    last = len(cooling) - 1
    index: int | np.intp | NDArray[np.intp]
    if isinstance(raw_index, np.integer):  # one scenario's tier (what is_number says of it)
        index = last if raw_index > last else raw_index  # min(), in a form mypy can type
    else:
        index = np.minimum(raw_index, last)
    names = np.asarray([tier.name for tier in cooling])
    return Footprint(
        accelerators_bought=systems * whole(buy.accelerators_per_system),
        systems=systems,
        system_power_max_kw=power_max_kw,
        system_power_idle_kw=power_idle_kw,
        systems_per_rack=fit,
        racks=racks,
        kw_per_rack=kw_per_rack,
        it_kw_max=it_kw_max,
        it_kw_average=it_kw_average,
        facility_kw_max=facility_power_kw(it_kw_max, facility.pue),
        facility_kw_average=facility_kw_average,
        mwh_per_year=energy_mwh(facility_kw_average, MONTHS_PER_YEAR * as_float(workload.hours_per_month)),
        cooling_tier_index=index,
        cooling_tier_name=names[index],
        needs_new_cooling=exceeds(kw_per_rack, facility.existing_cooling_max_kw_per_rack),
        cooling_capex_usd_per_kw=tier_value(index, [tier.capex_usd_per_kw for tier in cooling]),
        cooling_opex_usd_per_kw_month=tier_value(index, [tier.opex_usd_per_kw_month for tier in cooling]),
        warnings={
            "system_does_not_fit_rack": fit == 0,
            "exceeds_rack_power_limit": exceeds(kw_per_rack, facility.rack_power_limit_kw),
            "exceeds_cooling_table": raw_index >= len(cooling),
        },
    )
