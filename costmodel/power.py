"""Power, energy, rack density and cooling tier of bought systems."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from numpy.typing import NDArray

from costmodel.counting import ceil_count
from costmodel.counting import exceeds
from costmodel.counting import floor_count
from costmodel.elementwise import Figure
from costmodel.elementwise import as_float
from costmodel.elementwise import is_number
from costmodel.elementwise import maximum
from costmodel.elementwise import minimum
from costmodel.inputs import Numeric

KWH_PER_MWH = 1000.0


def capped_power_kw(power_kw: ArrayLike, power_cap_share: Numeric) -> Numeric:
    """System power after a power cap [kW].

    Parameters
    ----------
    power_kw : numeric
        Uncapped maximum draw [kW].
    power_cap_share : numeric
        Cap as a share of the uncapped maximum; 1 means no cap [-].

    Examples
    --------
    Seed 003: a DGX H100 capped from 5.6 kW of GPU power to 4.5 kW:

    >>> round(float(capped_power_kw(5.6, 4.5 / 5.6)), 6)
    4.5
    """
    return as_float(power_kw) * power_cap_share


def average_power_kw(
    power_idle_kw: ArrayLike, power_max_kw: Numeric, utilisation: ArrayLike
) -> Figure:
    """Average draw of a system that works a share of the hours [kW].

    average = idle + (max - idle) x utilisation.

    Parameters
    ----------
    power_idle_kw : numeric
        Draw when idle [kW].
    power_max_kw : numeric
        Draw at full load [kW].
    utilisation : numeric
        Share of hours doing useful work [-].

    Examples
    --------
    >>> float(average_power_kw(2.0, 10.2, 1.0))
    10.2
    >>> float(average_power_kw(2.0, 10.0, 0.5))
    6.0
    """
    idle = as_float(power_idle_kw)
    return idle + (power_max_kw - idle) * as_float(utilisation)


def facility_power_kw(it_power_kw: ArrayLike, pue: Numeric) -> Numeric:
    """Facility draw including cooling and distribution losses [kW].

    Parameters
    ----------
    it_power_kw : numeric
        IT draw [kW].
    pue : numeric
        Power usage effectiveness, facility power / IT power [-].

    Examples
    --------
    >>> round(float(facility_power_kw(10.2, 1.3)), 6)
    13.26
    """
    return as_float(it_power_kw) * pue


def energy_cost_usd(facility_kw: ArrayLike, hours: Numeric, usd_per_kwh: Numeric) -> Numeric:
    """Cost of drawing a constant power for a number of hours [USD].

    Parameters
    ----------
    facility_kw : numeric
        Facility draw [kW].
    hours : numeric
        Duration [h].
    usd_per_kwh : numeric
        Electricity price [USD/kWh].

    Examples
    --------
    The design doc's DGX H100: 10.2 kW all year (8,760 h) at $0.10/kWh, PUE 1:

    >>> round(float(energy_cost_usd(10.2, 8760, 0.10)), 2)
    8935.2
    >>> round(float(energy_cost_usd(32 * 10.2, 8760, 0.10)), 2)
    285926.4
    """
    return as_float(facility_kw) * hours * usd_per_kwh


def energy_mwh(power_kw: ArrayLike, hours: Numeric) -> Numeric:
    """Energy drawn at a constant power over a number of hours [MWh].

    Examples
    --------
    >>> round(float(energy_mwh(10.2, 8760)), 3)
    89.352
    """
    return as_float(power_kw) * hours / KWH_PER_MWH


def systems_per_rack(
    rack_power_limit_kw: ArrayLike,
    system_power_max_kw: Numeric,
    rack_units_per_rack: ArrayLike,
    system_rack_units: Numeric,
) -> Figure:
    """How many systems one rack holds, limited by its power budget and its units [-].

    0 means a single system does not fit the rack at all.

    Parameters
    ----------
    rack_power_limit_kw : numeric
        Power budget of a rack [kW].
    system_power_max_kw : numeric
        Maximum draw of one system (after any cap) [kW].
    rack_units_per_rack : numeric
        Usable height of a rack [U].
    system_rack_units : numeric
        Height of one system [U].

    Examples
    --------
    DGX H100 (10.2 kW, 8U): a 40 kW rack is power-limited, a 45 kW one unit-limited:

    >>> float(systems_per_rack(40.0, 10.2, 42, 8))
    3.0
    >>> float(systems_per_rack(45.0, 10.2, 42, 8))
    4.0
    >>> float(systems_per_rack(45.0, 10.2, 24, 8))
    3.0
    """
    by_power = floor_count(as_float(rack_power_limit_kw) / system_power_max_kw)
    by_units = floor_count(as_float(rack_units_per_rack) / system_rack_units)
    return minimum(by_power, by_units)


def racks_needed(systems: ArrayLike, systems_per_rack: ArrayLike) -> NDArray[np.float64]:
    """Racks for a number of systems [-]; a system that fits no rack gets a rack of its own.

    Examples
    --------
    >>> float(racks_needed(10, 3))
    4.0
    >>> float(racks_needed(10, 0))
    10.0
    """
    return ceil_count(as_float(systems) / maximum(systems_per_rack, 1.0))


def densest_rack_kw(
    systems: ArrayLike, systems_per_rack: ArrayLike, system_power_max_kw: ArrayLike
) -> Figure:
    """Maximum draw of the fullest rack [kW] (only systems count; see ``racks_needed``).

    Examples
    --------
    >>> round(float(densest_rack_kw(10, 4, 10.2)), 6)
    40.8
    >>> round(float(densest_rack_kw(2, 4, 10.2)), 6)
    20.4
    """
    per_rack = minimum(systems, maximum(systems_per_rack, 1.0))
    return per_rack * as_float(system_power_max_kw)


def cooling_tier_index(
    kw_per_rack: ArrayLike, tier_max_kw_per_rack: Sequence[ArrayLike]
) -> np.intp | NDArray[np.intp]:
    """Index of the first cooling tier whose ``max_kw_per_rack`` handles a density [-].

    A tier handles densities up to and including its maximum. Densities above
    the last tier return ``len(tiers)``; callers flag that and fall back to the
    last tier.

    Parameters
    ----------
    kw_per_rack : numeric
        Rack density [kW/rack].
    tier_max_kw_per_rack : sequence of numeric
        Maximum density of each tier, strictly increasing [kW/rack].

    Examples
    --------
    Seed 003 tiers: air 15, in-row 30, rear door 50, direct-to-chip 150, ...

    >>> cooling_tier_index([15.0, 15.1, 50.0, 120.0], [15, 30, 50, 150, 200, np.inf]).tolist()
    [0, 1, 2, 3]
    """
    density = as_float(kw_per_rack)
    index: np.intp | NDArray[np.intp]
    index = np.intp(0) if is_number(density) else np.zeros(density.shape, dtype=np.intp)
    for tier_max in tier_max_kw_per_rack:
        index = index + exceeds(density, tier_max)
    return index


def tier_value(index: int | np.integer[Any] | NDArray[np.integer[Any]], tier_values: list[Numeric]) -> Figure:
    """Pick each scenario's figure from the tier it was assigned [same unit as the values].

    Examples
    --------
    >>> tier_value([0, 2], [10.0, 20.0, 30.0]).tolist()
    [10.0, 30.0]
    """
    # An index is a whole number or an array of them: isinstance says is_number's "a number".
    if isinstance(index, (int, np.integer)) and all(is_number(value) for value in tier_values):
        return np.float64(tier_values[index])
    choices = [np.asarray(value, dtype=np.float64) for value in tier_values]
    return np.choose(np.asarray(index), choices)
