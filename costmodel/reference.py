"""Month-by-month reference implementation of the buy-vs-rent model for ONE scenario.

Plain Python floats and loops, no NumPy: written to be read against
design/tco-model.md, not to be fast. The vectorised engine and its compiled
kernel must agree with it (costmodel/tests/test_reference_agreement.py and
test_kernel_agreement.py), and ``python -m benchmarks`` states their speed as a
multiple of its own. It shares only the input dataclasses with the engine. IRR
is left to numpy_financial in the tests.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from costmodel.inputs import Scenario
from costmodel.inputs import billing_basis

# Same definitions as the engine: counts and limits forgive floating-point noise
# of this relative size, and so does the breakeven comparison.
TOLERANCE = 1e-9


def ceil_count(ratio: float) -> int:
    return math.ceil(ratio - TOLERANCE)


def floor_count(ratio: float) -> int:
    return math.floor(ratio + TOLERANCE)


def exceeds(value: float, limit: float) -> bool:
    return value > limit + TOLERANCE * abs(limit)


def reference_evaluate(scenario: Scenario, *, with_breakeven_utilisation: bool = True) -> dict[str, Any]:
    """Every figure of one scalar scenario, computed month by month."""
    # Read as the helpers below read sections (Any): a scalar scenario's fields are numbers, which
    # the inputs' type (float or array, for batches) does not say.
    workload: Any = scenario.workload
    buy: Any = scenario.buy
    facility: Any = scenario.facility
    finance: Any = scenario.finance
    carbon: Any = scenario.carbon
    cooling: tuple[Any, ...] = scenario.cooling
    rent_options: tuple[Any, ...] = scenario.rent
    horizon = round(finance.horizon_months)
    months = range(horizon + 1)

    # Fleet: a power cap's throughput loss is made up with more accelerators.
    per_system = round(buy.accelerators_per_system)
    systems = ceil_count(workload.accelerators / (1.0 - buy.power_cap_throughput_loss) / per_system)
    power_max_kw = buy.system_power_max_kw * buy.power_cap_share
    power_idle_kw = min(buy.system_power_idle_kw, power_max_kw)
    fit_by_power = floor_count(facility.rack_power_limit_kw / power_max_kw)
    fit_by_units = floor_count(facility.rack_units_per_rack / buy.system_rack_units)
    fit = min(fit_by_power, fit_by_units)
    racks = ceil_count(systems / max(fit, 1))
    kw_per_rack = min(systems, max(fit, 1)) * power_max_kw
    it_kw_max = systems * power_max_kw
    it_kw_average = systems * (power_idle_kw + (power_max_kw - power_idle_kw) * workload.utilisation)
    facility_kw_average = it_kw_average * facility.pue

    tier_index = len(cooling) - 1
    for index, tier in enumerate(cooling):
        if not exceeds(kw_per_rack, tier.max_kw_per_rack):
            tier_index = index
            break
    tier = cooling[tier_index]
    needs_new_cooling = exceeds(kw_per_rack, facility.existing_cooling_max_kw_per_rack)

    system_capex = systems * buy.system_price_usd
    capex = {
        "systems": system_capex,
        "network": systems * buy.network_usd_per_system + buy.network_share_of_compute * system_capex,
        "storage": buy.storage_usd,
        "racks_install": racks * buy.racks_install_usd_per_rack,
        "spares": buy.spares_share * system_capex,
        "cooling_plant": tier.capex_usd_per_kw * it_kw_max if needs_new_cooling else 0.0,
        "facility_buildout": facility.owned_buildout_usd_per_kw * it_kw_max,
    }
    hardware_capex = capex["systems"] + capex["network"] + capex["storage"] + capex["spares"]
    capex["import_duty_vat"] = buy.import_duty_vat_share * hardware_capex
    total_capex = sum(capex.values())
    monthly = {
        "colocation": facility.colocation_usd_per_kw_month * it_kw_max,
        "owned_facility": facility.owned_opex_usd_per_kw_month * it_kw_max,
        "cooling_plant_opex": tier.opex_usd_per_kw_month * it_kw_max if needs_new_cooling else 0.0,
        "support": buy.support_share_per_year * hardware_capex / 12,
        "staff": buy.staff_fte_per_system * systems * buy.staff_usd_per_fte_year / 12,
        "licences": buy.licence_usd_per_accelerator_year * systems * per_system / 12,
    }

    buy_lines: dict[str, list[float]] = {}
    for name, amount in capex.items():
        buy_lines[f"capex_{name}"] = [amount * (1.0 - buy.financed_share) if m == 0 else 0.0 for m in months]
    buy_lines["energy"] = [
        0.0
        if m == 0
        else facility_kw_average
        * workload.hours_per_month
        * facility.electricity_usd_per_kwh
        * (1.0 + facility.electricity_escalation_per_year) ** ((m - 1) // 12)
        for m in months
    ]
    for name, amount in monthly.items():
        buy_lines[name] = [0.0 if m == 0 else amount for m in months]
    buy_lines["loan_payments"] = _loan_schedule(
        buy.financed_share * total_capex, buy.loan_rate_per_year / 12, round(buy.loan_term_months), horizon
    )
    resale = _resale_share(buy, horizon) * system_capex
    buy_lines["residual_value"] = [-resale if m == horizon else 0.0 for m in months]
    embodied_tonnes = systems * buy.embodied_kg_co2e_per_system / 1000
    buy_kwh_per_month = facility_kw_average * workload.hours_per_month
    buy_tonnes_per_month = buy_kwh_per_month * facility.grid_kg_co2e_per_kwh / 1000
    buy_lines["carbon"] = [
        (embodied_tonnes if m == 0 else buy_tonnes_per_month) * carbon.price_usd_per_tonne for m in months
    ]
    life = round(buy.depreciation_months)
    depreciation = [total_capex / life if 1 <= m <= life else 0.0 for m in months]
    buy_flow = [sum(line[m] for line in buy_lines.values()) for m in months]

    monthly_discount = (1.0 + finance.discount_rate_per_year) ** (1.0 / 12) - 1.0
    buy_goodput = workload.utilisation * _efficiency(scenario, 0.0)
    useful_hours = workload.accelerators * workload.hours_per_month * buy_goodput * horizon
    buy_total = sum(buy_flow)
    buy_gross = sum(abs(flow) for flow in buy_flow)

    rent = []
    for option in rent_options:
        lines = _rent_lines(option, workload, horizon)
        rent_tonnes_per_month = _rent_tonnes_per_month(option, scenario)
        lines["carbon"] = [0.0 if m == 0 else rent_tonnes_per_month * carbon.price_usd_per_tonne
                           for m in months]
        flow = [sum(line[m] for line in lines.values()) for m in months]
        total = sum(flow)
        spot_rate = option.spot_interruptions_per_hour if option.pricing_model == "spot" else 0.0
        rent_goodput = workload.utilisation * _efficiency(scenario, spot_rate)
        rent_useful_hours = workload.accelerators * workload.hours_per_month * rent_goodput * horizon
        cumulative_saving = 0.0
        breakeven = math.nan
        for m in months:
            cumulative_saving += flow[m] - buy_flow[m]
            if m >= 1 and cumulative_saving >= -TOLERANCE * (buy_gross + total):
                breakeven = float(m)
                break
        rent.append(
            {
                "name": option.name,
                "lines": lines,
                "flow": flow,
                "total_usd": total,
                "npv_usd": _npv(flow, monthly_discount),
                "saving_usd": total - buy_total,
                "npv_saving_usd": _npv(flow, monthly_discount) - _npv(buy_flow, monthly_discount),
                "breakeven_month": breakeven,
                "cost_per_useful_accelerator_hour_usd": total / rent_useful_hours
                if rent_useful_hours > 0
                else math.nan,
                "goodput_share": rent_goodput,
                "tonnes_per_year": rent_tonnes_per_month * 12,
            }
        )

    if with_breakeven_utilisation:
        at_idle = reference_evaluate(
            replace(scenario, workload=replace(workload, utilisation=0.0)), with_breakeven_utilisation=False
        )
        at_full = reference_evaluate(
            replace(scenario, workload=replace(workload, utilisation=1.0)), with_breakeven_utilisation=False
        )
        for position, figures in enumerate(rent):
            saving_at_idle = at_idle["rent"][position]["saving_usd"]
            saving_at_full = at_full["rent"][position]["saving_usd"]
            figures["breakeven_utilisation"] = _crossing(saving_at_idle, saving_at_full)

    return {
        "horizon_months": horizon,
        "footprint": {
            "systems": systems,
            "systems_per_rack": fit,
            "racks": racks,
            "kw_per_rack": kw_per_rack,
            "it_kw_max": it_kw_max,
            "it_kw_average": it_kw_average,
            "facility_kw_average": facility_kw_average,
            "mwh_per_year": facility_kw_average * workload.hours_per_month * 12 / 1000,
            "cooling_tier_index": tier_index,
            "needs_new_cooling": needs_new_cooling,
        },
        "buy": {
            "lines": buy_lines,
            "flow": buy_flow,
            "capex_usd": capex,
            "depreciation": depreciation,
            "total_usd": buy_total,
            "npv_usd": _npv(buy_flow, monthly_discount),
            "cost_per_useful_accelerator_hour_usd": buy_total / useful_hours
            if useful_hours > 0
            else math.nan,
            "goodput_share": buy_goodput,
            "tonnes_per_year": buy_tonnes_per_month * 12,
            "embodied_tonnes": embodied_tonnes,
        },
        "rent": rent,
    }


def _loan_schedule(principal: float, rate_per_month: float, term: int, horizon: int) -> list[float]:
    """Level payments month by month; what is still owed at the horizon is paid off then."""
    schedule = [0.0] * (horizon + 1)
    if principal == 0.0:
        return schedule
    if rate_per_month == 0.0:
        payment = principal / term
    else:
        # expm1/log1p: 1 - (1 + r) ** -n loses every digit for tiny r.
        payment = principal * rate_per_month / -math.expm1(-term * math.log1p(rate_per_month))
    balance = principal
    for m in range(1, horizon + 1):
        if m <= term:
            balance = balance * (1.0 + rate_per_month) - payment
            schedule[m] = payment
    if term > horizon:
        schedule[horizon] += balance
    return schedule


def _rent_lines(option: Any, workload: Any, horizon: int) -> dict[str, list[float]]:
    # The option rents equivalence_factor of its accelerators per workload accelerator.
    rented = workload.accelerators * option.equivalence_factor
    instances = ceil_count(rented / round(option.accelerators_per_instance))
    growth = 1.0 + option.price_change_per_year
    reserved = option.pricing_model == "reserved"
    held = billing_basis(option) == "held"
    term = round(option.commitment_months)
    compute = [0.0] * (horizon + 1)
    upfront = [0.0] * (horizon + 1)
    for m in range(1, horizon + 1):
        if reserved:
            term_start = ((m - 1) // term) * term
            hours = workload.hours_per_month
            compute[m] = instances * option.price_usd_per_instance_hour * hours * growth ** (term_start // 12)
        elif held:
            hours = workload.hours_per_month
            compute[m] = instances * option.price_usd_per_instance_hour * hours * growth ** ((m - 1) // 12)
        else:
            hours = workload.hours_per_month * workload.utilisation
            if option.pricing_model == "spot":
                hours *= 1.0 + option.spot_interruption_overhead
            compute[m] = instances * option.price_usd_per_instance_hour * hours * growth ** ((m - 1) // 12)
    if reserved:
        for m in range(0, horizon, term):
            upfront[m] = instances * option.upfront_usd_per_instance * growth ** (m // 12)
    egress = option.egress_tb_per_month * 1000 * option.egress_usd_per_gb
    storage = option.storage_tb * 1000 * option.storage_usd_per_gb_month
    return {
        "compute": compute,
        "upfront": upfront,
        "egress": [0.0 if m == 0 else egress for m in range(horizon + 1)],
        "storage": [0.0 if m == 0 else storage for m in range(horizon + 1)],
    }


def _resale_share(buy: Any, age: int) -> float:
    """Resale share at an age: a yearly decline when given, else the single share; less the drop."""
    if math.isnan(buy.residual_decline_per_year):
        share = buy.residual_value_share
    else:
        share = (1.0 - buy.residual_decline_per_year) ** (age / 12)
    launched = not math.isnan(buy.next_generation_launch_month) and age >= buy.next_generation_launch_month
    resale: float = share * (1.0 - buy.next_generation_value_drop) if launched else share
    return resale


def _efficiency(scenario: Scenario, interruptions_per_hour: float) -> float:
    """Young/Daly first-order share of running time that is useful work."""
    goodput: Any = scenario.goodput  # a scalar scenario's: numbers
    job = goodput.accelerators_per_job
    if math.isnan(job):
        job = scenario.workload.accelerators
    rate = goodput.failures_per_accelerator_hour * job + interruptions_per_hour
    if rate == 0.0:
        return 1.0 if math.isnan(goodput.checkpoint_interval_h) or goodput.checkpoint_cost_h == 0.0 else (
            goodput.checkpoint_interval_h / (goodput.checkpoint_interval_h + goodput.checkpoint_cost_h))
    mtbf = 1.0 / rate
    tau = goodput.checkpoint_interval_h
    if math.isnan(tau):
        tau = math.sqrt(2.0 * goodput.checkpoint_cost_h * mtbf)
    segment = tau + goodput.checkpoint_cost_h
    working = tau / segment if segment > 0 else 1.0
    efficiency: float = working * min(1.0, max(0.0, 1.0 - (segment / 2 + goodput.restart_h) / mtbf))
    return efficiency


def _rent_tonnes_per_month(option: Any, scenario: Scenario) -> float:
    """Emissions of rented accelerators drawing what a bought one does, times the cloud PUE."""
    workload: Any = scenario.workload  # a scalar scenario's sections: numbers
    buy: Any = scenario.buy
    carbon: Any = scenario.carbon
    rented = ceil_count(
        workload.accelerators * option.equivalence_factor / round(option.accelerators_per_instance)
    ) * round(option.accelerators_per_instance)
    per_system = buy.accelerators_per_system
    max_kw, idle_kw = buy.system_power_max_kw / per_system, buy.system_power_idle_kw / per_system
    if billing_basis(option) == "held":
        kwh = rented * (idle_kw + (max_kw - idle_kw) * workload.utilisation) * workload.hours_per_month
    else:
        hours = workload.hours_per_month * workload.utilisation
        if option.pricing_model == "spot":
            hours *= 1.0 + option.spot_interruption_overhead
        kwh = rented * max_kw * hours
    intensity = option.grid_kg_co2e_per_kwh
    if math.isnan(intensity):
        intensity = carbon.default_grid_kg_co2e_per_kwh
    tonnes: float = kwh * carbon.cloud_pue * intensity / 1000
    return tonnes


def _npv(flow: list[float], rate_per_month: float) -> float:
    npv: float = sum(value / (1.0 + rate_per_month) ** month for month, value in enumerate(flow))
    return npv


def _crossing(saving_at_idle: float, saving_at_full: float) -> float:
    """Utilisation in [0, 1] where a saving linear in utilisation is zero; NaN if none."""
    if saving_at_full == saving_at_idle:
        return math.nan
    crossing = -saving_at_idle / (saving_at_full - saving_at_idle)
    return crossing if 0.0 <= crossing <= 1.0 else math.nan
