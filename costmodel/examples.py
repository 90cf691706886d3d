"""Example scenarios: the cooling tiers of seed 003, a hand-checkable fleet and one with every cost line.

``flat_scenario`` declares the fleet (DGX-H100-like systems against on-demand
instances of the same 8 accelerators) with nothing but a purchase price and a
power bill; ``rich_scenario`` switches every other cost line on. The benchmarks
(``python -m benchmarks``) and the engine tests start from these two.

The cooling tier limits follow seed 003 (air CRAC/CRAH up to 15 kW/rack,
in-row 15-30, rear door 30-50, direct-to-chip 50-150, single-phase immersion
100-200, two-phase 200+). The seed gives no dollar figures for them, so the
capex/opex here are example figures, not catalog data.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from costmodel.inputs import BuyOption
from costmodel.inputs import CoolingTier
from costmodel.inputs import Facility
from costmodel.inputs import Finance
from costmodel.inputs import RentOption
from costmodel.inputs import Scenario
from costmodel.inputs import Workload
from costmodel.strategies import B200_AFTER_H100
from costmodel.strategies import Mix
from costmodel.strategies import StrategyInputs
from costmodel.term_structure import TermPrice
from costmodel.term_structure import TermStructure

SEED_003_TIERS = (
    ("air CRAC/CRAH", 15.0),
    ("in-row air", 30.0),
    ("rear-door heat exchanger", 50.0),
    ("direct-to-chip liquid", 150.0),
    ("single-phase immersion", 200.0),
    ("two-phase immersion", math.inf),
)
COOLING = tuple(
    CoolingTier(name, max_kw, capex_usd_per_kw=200.0 * (index + 1), opex_usd_per_kw_month=2.0 * (index + 1))
    for index, (name, max_kw) in enumerate(SEED_003_TIERS)
)


def flat_scenario(**sections: Any) -> Scenario:
    """32 DGX-H100-like systems with only a purchase price and a flat power bill.

    Buy: 32 x $300,000 = $9.6M at month 0; energy 32 x 10.2 kW x 730 h x $0.10
    = $23,827.20 a month (PUE 1, utilisation 1, idle = max). Rent: 32 instances
    of 8 accelerators on demand at $98.32/h = $2,296,755.20 a month. Nothing
    else costs anything, so every figure can be checked by hand. The on-demand
    instances are billed for the hours used (not on-demand's default, every hour
    held), so the rent bill scales with utilisation and buying has a breakeven
    utilisation. ``sections`` replace whole sections (``buy=...``, ``finance=...``).
    """
    base = Scenario(
        workload=Workload(accelerators=256.0, utilisation=1.0),
        buy=BuyOption(
            accelerators_per_system=8.0,
            system_rack_units=8.0,
            system_price_usd=300_000.0,
            depreciation_months=60.0,
            system_power_max_kw=10.2,
            system_power_idle_kw=10.2,
        ),
        facility=Facility(
            electricity_usd_per_kwh=0.10,
            pue=1.0,
            rack_power_limit_kw=45.0,
            rack_units_per_rack=42.0,
            existing_cooling_max_kw_per_rack=math.inf,
        ),
        cooling=COOLING,
        rent=(
            RentOption(
                "on-demand",
                "on_demand",
                price_usd_per_instance_hour=98.32,
                accelerators_per_instance=8.0,
                billing_basis="used",
            ),
        ),
        finance=Finance(horizon_months=36.0, discount_rate_per_year=0.0),
    )
    return replace(base, **sections)


def rich_scenario() -> Scenario:
    """The flat scenario's systems with every cost line, financing and all three pricing models in play."""
    flat = flat_scenario()
    return replace(
        flat,
        workload=Workload(accelerators=250.0, utilisation=0.7, tokens_per_s_per_accelerator=1200.0),
        buy=replace(
            flat.buy,
            system_power_idle_kw=3.0,
            power_cap_share=0.9,
            power_cap_throughput_loss=0.05,
            depreciation_months=48.0,
            residual_value_share=0.2,
            network_usd_per_system=12_000.0,
            network_share_of_compute=0.08,
            storage_usd=500_000.0,
            racks_install_usd_per_rack=20_000.0,
            spares_share=0.03,
            support_share_per_year=0.08,
            licence_usd_per_accelerator_year=4_500.0,
            staff_fte_per_system=0.05,
            staff_usd_per_fte_year=200_000.0,
            financed_share=0.5,
            loan_rate_per_year=0.07,
            loan_term_months=72.0,
        ),
        facility=replace(
            flat.facility,
            electricity_usd_per_kwh=0.12,
            electricity_escalation_per_year=0.03,
            pue=1.3,
            rack_power_limit_kw=40.0,
            existing_cooling_max_kw_per_rack=15.0,
            colocation_usd_per_kw_month=150.0,
            owned_buildout_usd_per_kw=1_000.0,
            owned_opex_usd_per_kw_month=5.0,
        ),
        rent=(
            replace(
                flat.rent[0],
                egress_tb_per_month=20.0,
                egress_usd_per_gb=0.05,
                storage_tb=200.0,
                storage_usd_per_gb_month=0.023,
                price_change_per_year=-0.1,
            ),
            RentOption(
                "1y-reserved",
                "reserved",
                price_usd_per_instance_hour=57.63,
                accelerators_per_instance=8.0,
                commitment_months=12.0,
                upfront_usd_per_instance=25_000.0,
                price_change_per_year=-0.05,
            ),
            RentOption(
                "spot",
                "spot",
                price_usd_per_instance_hour=35.0,
                accelerators_per_instance=8.0,
                spot_interruption_overhead=0.15,
            ),
        ),
        finance=Finance(horizon_months=60.0, discount_rate_per_year=0.08),
    )


def strategy_example() -> StrategyInputs:
    """The rich scenario's fleet over 120 months against an H100 rental curve, the B200 as its next
    generation at month 24 and 60 % of the demand on 12-month terms.

    On demand $2.89 and spot $1.38 an accelerator-hour are seed 003's (H100 SXM, mid-range on
    demand; spot "$1.07-1.38/hr"); the 1 to 36-month prices are example figures, not catalog data.
    """
    scenario = rich_scenario()
    scenario = replace(scenario, finance=replace(scenario.finance, horizon_months=120.0))
    example = "example figure, not catalog data"
    terms = TermStructure(
        (
            TermPrice("spot", 1.38, source="seed 003"),
            TermPrice("on_demand", 2.89, source="seed 003"),
            *(
                TermPrice(term, price, source=example)
                for term, price in (
                    ("1", 2.75),
                    ("3", 2.65),
                    ("6", 2.55),
                    ("12", 2.40),
                    ("24", 2.25),
                    ("36", 2.10),
                )
            ),
        ),
        spot_interruption_overhead=0.15,
    )
    return StrategyInputs(scenario, terms, B200_AFTER_H100, Mix("12", 0.6))
