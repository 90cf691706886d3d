"""Costs left at zero that are usually not zero: a result says so instead of looking cheaper.

Each check reads the engine inputs (what was evaluated), so it holds for a scenario saved,
unsaved or approved, whatever filled the figure in.
"""
from __future__ import annotations

import costmodel as engine
from tco.services.engine_inputs import EvaluationWarning

ZERO_COST = "zero_cost"


def zero_cost_warnings(inputs: engine.Scenario) -> tuple[EvaluationWarning, ...]:
    """One ``zero_cost`` warning per cost line left at zero that owning usually has."""
    buy, finance, facility = inputs.buy, inputs.finance, inputs.facility
    checks = (
        (buy.system_price_usd, "The system price is 0: the systems themselves are not costed."),
        (facility.electricity_usd_per_kwh, "The electricity price is 0: power is not costed."),
        (finance.discount_rate_per_year, "The discount rate is 0: the NPV equals the undiscounted "
                                         "total, as if money had no cost of capital."),
        (buy.support_share_per_year, "Support is 0: no vendor support contract is costed."),
        (buy.staff_fte_per_system * buy.staff_usd_per_fte_year,
         "Staff is 0: nobody is paid to run the systems."),
        (buy.spares_share, "Spares are 0: no spare parts are bought."),
        (buy.network_share_of_compute + buy.network_usd_per_system,
         "Network is 0: no cluster fabric (switches, NICs, cables) is bought."),
        (buy.storage_usd, "Storage is 0: no storage is bought with the systems."),
        (buy.racks_install_usd_per_rack, "Racks and installation are 0 per rack."),
        (buy.residual_value_share + len(buy.residual_curve) + _given(buy.residual_decline_per_year),
         "Residual value is 0: the systems are worth nothing at the end of the horizon."),
        (facility.electricity_escalation_per_year,
         "Electricity escalation is 0: the electricity price never rises."),
    )
    return tuple(EvaluationWarning(ZERO_COST, f"{message} Usually not zero: give a figure, or 0 "
                                              "on purpose and say why.")
                 for value, message in checks if float(value) == 0)


def _given(value: float) -> float:
    """1 for a figure given, 0 for one left empty (NaN)."""
    return 0.0 if value != value else 1.0
