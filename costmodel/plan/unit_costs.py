"""What one system of an owned choice costs, from the engine's own cost functions.

The engine costs a whole fleet; a plan needs the same lines per system, per rack
and per fleet so that buying n systems costs exactly what the engine says for n.
One full rack of systems is costed with the engine (footprint, capex and opex
lines) and each line is divided by what it scales with. Fleets of at least one
full rack then match the engine to the cent; a smaller fleet sits in a rack the
engine would call less dense (possibly a cheaper cooling tier).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from costmodel.buy import capex_usd
from costmodel.buy import hardware_capex_usd
from costmodel.buy import opex_usd_per_month
from costmodel.footprint import fleet_footprint
from costmodel.inputs import Finance
from costmodel.inputs import Scenario
from costmodel.inputs import Workload
from costmodel.plan.inputs import OwnedChoice
from costmodel.plan.inputs import PlanInputs
from costmodel.power import capped_power_kw
from costmodel.power import energy_cost_usd
from costmodel.power import facility_power_kw
from costmodel.power import systems_per_rack
from costmodel.timeline import MONTHS_PER_YEAR

PER_SYSTEM_CAPEX = ("systems", "network", "spares", "cooling_plant", "facility_buildout")
PER_SYSTEM_FACILITY = ("colocation", "owned_facility", "cooling_plant_opex")


@dataclass(frozen=True)
class SystemUnitCosts:
    """Per-system, per-rack and per-fleet figures of one owned choice (first-year prices)."""

    accelerators_per_system: float  # after any power cap's throughput loss, in reference accelerators
    systems_per_rack: float
    it_kw_max: float
    capex_usd: float  # per system: systems, network, spares, cooling plant, facility build-out
    system_price_usd: float
    rack_capex_usd: float  # per rack
    fleet_capex_usd: float  # storage, once for the choice
    facility_usd_per_month: float  # per system: colocation, owned space, cooling plant opex
    support_usd_per_month: float  # per system
    fleet_support_usd_per_month: float  # support on the storage
    staff_usd_per_month: float  # per system
    licences_usd_per_month: float  # per system
    idle_energy_usd_per_month: float  # per system in service, idle all month
    busy_energy_usd_per_month: float  # per reference accelerator served at utilisation 1
    residual_value_share: float
    cooling_tier: str


def system_unit_costs(inputs: PlanInputs, choice: OwnedChoice) -> SystemUnitCosts:
    """Cost one full rack of ``choice`` with the engine and divide each line by what it scales with."""
    buy = choice.buy
    throughput_share = 1.0 - float(buy.power_cap_throughput_loss)  # a plan's inputs are numbers
    engine_inputs = _one_rack_scenario(inputs, choice)
    facility = inputs.facility_of(choice)
    footprint = fleet_footprint(engine_inputs.workload, buy, facility, inputs.cooling)
    systems = float(footprint.systems)
    racks = float(footprint.racks)
    capex = capex_usd(engine_inputs, footprint)
    opex = opex_usd_per_month(engine_inputs, footprint, capex)
    per_system_hardware = hardware_capex_usd({**capex, "storage": np.float64(0.0)}) / systems
    hours = inputs.demand.hours_per_month
    price = facility.electricity_usd_per_kwh
    idle_kw = float(footprint.system_power_idle_kw)
    swing_kw = float(footprint.system_power_max_kw) - idle_kw
    accelerators = float(buy.accelerators_per_system) * throughput_share * choice.equivalence
    return SystemUnitCosts(
        accelerators_per_system=accelerators,
        systems_per_rack=float(max(footprint.systems_per_rack, 1.0)),
        it_kw_max=float(footprint.system_power_max_kw),
        capex_usd=float(sum(capex[name] for name in PER_SYSTEM_CAPEX)) / systems,
        system_price_usd=float(buy.system_price_usd),
        rack_capex_usd=float(capex["racks_install"]) / racks,
        fleet_capex_usd=float(capex["storage"]),
        facility_usd_per_month=float(sum(opex[name] for name in PER_SYSTEM_FACILITY)) / systems,
        support_usd_per_month=float(per_system_hardware * buy.support_share_per_year / MONTHS_PER_YEAR),
        fleet_support_usd_per_month=float(capex["storage"] * buy.support_share_per_year / MONTHS_PER_YEAR),
        staff_usd_per_month=float(opex["staff"]) / systems,
        licences_usd_per_month=float(opex["licences"]) / systems,
        idle_energy_usd_per_month=float(
            energy_cost_usd(facility_power_kw(idle_kw, facility.pue), hours, price)
        ),
        busy_energy_usd_per_month=float(
            energy_cost_usd(facility_power_kw(swing_kw, facility.pue), hours, price)
        )
        / accelerators,
        residual_value_share=float(buy.residual_value_share),
        cooling_tier=str(footprint.cooling_tier_name),
    )


def _one_rack_scenario(inputs: PlanInputs, choice: OwnedChoice) -> Scenario:
    """An engine scenario whose workload fills exactly one rack of the choice's systems."""
    buy, facility = choice.buy, inputs.facility_of(choice)
    fit = systems_per_rack(
        facility.rack_power_limit_kw,
        capped_power_kw(buy.system_power_max_kw, buy.power_cap_share),
        facility.rack_units_per_rack,
        buy.system_rack_units,
    )
    systems = float(max(fit, 1.0))
    accelerators = systems * float(buy.accelerators_per_system) * (1.0 - buy.power_cap_throughput_loss)
    return Scenario(
        workload=Workload(
            accelerators=accelerators, utilisation=1.0, hours_per_month=inputs.demand.hours_per_month
        ),
        buy=buy,
        facility=facility,
        cooling=inputs.cooling,
        rent=(),
        finance=Finance(
            horizon_months=float(inputs.demand.horizon_months),
            discount_rate_per_year=inputs.discount_rate_per_year,
        ),
    )
