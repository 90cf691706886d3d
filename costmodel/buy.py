"""Cash-flow lines of buying: capex at month 0, operating costs, financing, residual value.

Costs are positive (money paid out); the residual value at the horizon is a
negative cost. With financing, each capex line keeps only its down payment
(1 - financed_share) at month 0 and ``loan_payments`` carries the rest.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from costmodel.counting import whole
from costmodel.elementwise import as_float
from costmodel.elementwise import where
from costmodel.finance import loan_balance_usd
from costmodel.finance import loan_payment_usd_per_month
from costmodel.footprint import Footprint
from costmodel.inputs import Numeric
from costmodel.inputs import Scenario
from costmodel.power import energy_cost_usd
from costmodel.power import facility_power_kw
from costmodel.residual import resale_share
from costmodel.timeline import MONTHS_PER_YEAR
from costmodel.timeline import Line
from costmodel.timeline import flat_line
from costmodel.timeline import once
from costmodel.timeline import price_factor_sum
from costmodel.timeline import recurring


def capex_usd(inputs: Scenario, footprint: Footprint) -> dict[str, Numeric]:
    """Up-front cost of each capex line before financing [USD].

    Lines: ``systems``; ``network`` (per system plus a share of compute capex);
    ``storage``; ``racks_install`` (per rack); ``spares`` (share of compute capex);
    ``cooling_plant`` (tier capex per kW of IT max power, only where the rack
    density exceeds the facility's existing cooling); ``facility_buildout``
    (owned space, per kW of IT max power); ``import_duty_vat`` (the non-recoverable share
    of the hardware capex, ``hardware_capex_usd``).

    Examples
    --------
    32 systems at $300,000 with 10 % networking: systems $9.6M, network $0.96M.
    """
    buy, facility = inputs.buy, inputs.facility
    systems = footprint.systems * buy.system_price_usd
    capex = {
        "systems": systems,
        "network": footprint.systems * buy.network_usd_per_system + systems * buy.network_share_of_compute,
        "storage": as_float(buy.storage_usd),
        "racks_install": footprint.racks * buy.racks_install_usd_per_rack,
        "spares": systems * buy.spares_share,
        "cooling_plant": where(
            footprint.needs_new_cooling, footprint.cooling_capex_usd_per_kw * footprint.it_kw_max, 0.0
        ),
        "facility_buildout": footprint.it_kw_max * facility.owned_buildout_usd_per_kw,
    }
    # Import duty and VAT that cannot be recovered are paid on the hardware as it is bought.
    capex["import_duty_vat"] = hardware_capex_usd(capex) * buy.import_duty_vat_share
    return capex


def hardware_capex_usd(capex: dict[str, Numeric]) -> Numeric:
    """Capex covered by the support contract: systems, network, storage and spares [USD]."""
    return capex["systems"] + capex["network"] + capex["storage"] + capex["spares"]


def opex_usd_per_month(
    inputs: Scenario, footprint: Footprint, capex: dict[str, Numeric]
) -> dict[str, Numeric]:
    """Operating costs that stay flat over the horizon [USD/month].

    Lines: ``colocation`` and ``owned_facility`` (per kW of IT max power);
    ``cooling_plant_opex`` (new cooling plant only; the energy it uses is in the
    PUE); ``support`` (share of hardware capex per year); ``staff`` (FTE per
    system x loaded cost); ``licences`` (per bought accelerator per year).
    """
    buy, facility = inputs.buy, inputs.facility
    return {
        "colocation": footprint.it_kw_max * facility.colocation_usd_per_kw_month,
        "owned_facility": footprint.it_kw_max * facility.owned_opex_usd_per_kw_month,
        "cooling_plant_opex": where(
            footprint.needs_new_cooling, footprint.cooling_opex_usd_per_kw_month * footprint.it_kw_max, 0.0
        ),
        "support": hardware_capex_usd(capex) * buy.support_share_per_year / MONTHS_PER_YEAR,
        "staff": footprint.systems * buy.staff_fte_per_system * buy.staff_usd_per_fte_year / MONTHS_PER_YEAR,
        "licences": footprint.accelerators_bought * buy.licence_usd_per_accelerator_year / MONTHS_PER_YEAR,
    }


def energy_usd_per_month(inputs: Scenario, footprint: Footprint) -> Numeric:
    """Electricity bill in the first year [USD/month]; later years escalate.

    Examples
    --------
    One DGX H100 at 10.2 kW, PUE 1, $0.10/kWh, 730 h: 10.2 x 730 x 0.10 = $744.60.
    """
    return energy_cost_usd(
        footprint.facility_kw_average,
        inputs.workload.hours_per_month,
        inputs.facility.electricity_usd_per_kwh,
    )


def energy_utilisation_slope_usd(
    inputs: Scenario, footprint: Footprint, horizon_months: NDArray[np.float64]
) -> Numeric:
    """Change of the total buy cost per unit of utilisation [USD].

    Only the energy line depends on utilisation: each unit adds
    (max - idle) x systems x PUE of draw for every hour of the horizon.
    """
    swing_kw = facility_power_kw(
        footprint.systems * (footprint.system_power_max_kw - footprint.system_power_idle_kw),
        inputs.facility.pue,
    )
    first_year = energy_cost_usd(
        swing_kw, inputs.workload.hours_per_month, inputs.facility.electricity_usd_per_kwh
    )
    return first_year * price_factor_sum(inputs.facility.electricity_escalation_per_year, horizon_months)


def depreciation_usd_per_month(
    inputs: Scenario, capex: dict[str, Numeric]
) -> Numeric:
    """Straight-line depreciation of all capex over its life [USD/month] (accounting, not cash)."""
    return sum(capex.values()) / np.rint(inputs.buy.depreciation_months)


def buy_lines(
    inputs: Scenario,
    footprint: Footprint,
    capex: dict[str, Numeric],
    horizon_months: NDArray[np.float64],
) -> list[Line]:
    """The buy cash-flow lines, each able to add itself into a monthly array.

    Month 0: each capex line's down payment (``capex_<line>``). Months 1..H:
    ``energy`` (escalating yearly), the flat opex lines, ``loan_payments`` (level
    payments over the loan term; a balance still owed at the horizon is paid
    off then) and ``residual_value`` (minus the resale share at age H x system
    capex at month H; see ``residual``).
    """
    buy = inputs.buy
    down_payment_share = 1.0 - as_float(buy.financed_share)
    principal = sum(capex.values()) * buy.financed_share
    term = whole(buy.loan_term_months)
    payment = loan_payment_usd_per_month(principal, buy.loan_rate_per_year, term)
    still_owed = where(
        term > horizon_months,
        loan_balance_usd(principal, buy.loan_rate_per_year, payment, horizon_months),
        0.0,
    )

    energy = energy_usd_per_month(inputs, footprint)
    escalation = inputs.facility.electricity_escalation_per_year
    residual = capex["systems"] * resale_share(buy, horizon_months)
    opex = opex_usd_per_month(inputs, footprint, capex)
    return [
        *(Line(f"capex_{name}", (once(amount * down_payment_share, 0.0),)) for name, amount in capex.items()),
        Line("energy", (recurring(energy, growth_per_year=escalation),)),
        *(flat_line(name, amount) for name, amount in opex.items()),
        Line("loan_payments", (recurring(payment, last_month=term), once(still_owed, horizon_months))),
        Line("residual_value", (once(-residual, horizon_months),)),
    ]


def depreciation_line(inputs: Scenario, capex: dict[str, Numeric]) -> Line:
    """The accounting depreciation line (months 1..depreciation_months); not a cash flow."""
    per_month = depreciation_usd_per_month(inputs, capex)
    life = np.rint(inputs.buy.depreciation_months)
    return Line("depreciation", (recurring(per_month, last_month=life),))
