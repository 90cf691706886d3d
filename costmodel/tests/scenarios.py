"""Scenarios for engine tests: the shipped examples and a hypothesis strategy.

The cooling tiers, the hand-checkable flat scenario and the rich scenario
(every cost line in play) live in ``costmodel.examples``, where the
benchmarks read them too.
"""

from __future__ import annotations

import math
from dataclasses import replace

from hypothesis import strategies as st

from costmodel import BuyOption
from costmodel import Facility
from costmodel import Finance
from costmodel import RentOption
from costmodel import Scenario
from costmodel import Workload
from costmodel.examples import COOLING
from costmodel.examples import flat_scenario
from costmodel.examples import rich_scenario


def one_system_of_hardware(hardware_usd: float, import_duty_vat_share: float = 0.0) -> Scenario:
    """The rich scenario buying one system whose price is all its hardware capex (no network,
    storage or spares, no power cap, paid in cash): the figures of a hand check."""
    base = rich_scenario()
    return replace(
        base,
        workload=replace(base.workload, accelerators=base.buy.accelerators_per_system),
        buy=replace(base.buy, system_price_usd=hardware_usd, network_usd_per_system=0.0,
                    network_share_of_compute=0.0, storage_usd=0.0, spares_share=0.0,
                    power_cap_share=1.0, power_cap_throughput_loss=0.0, financed_share=0.0,
                    import_duty_vat_share=import_duty_vat_share),
    )

__all__ = ["COOLING", "flat_scenario", "rich_scenario", "rent_options", "scalar_scenarios"]


def _money(high: float) -> st.SearchStrategy[float]:
    return st.floats(0.0, high, allow_nan=False, allow_infinity=False)


@st.composite
def rent_options(draw: st.DrawFn, index: int) -> RentOption:
    """A random rent option under a random pricing model."""
    model = draw(st.sampled_from(["on_demand", "reserved", "spot"]))
    reserved, spot = model == "reserved", model == "spot"
    return RentOption(
        name=f"option-{index}",
        pricing_model=model,
        price_usd_per_instance_hour=draw(st.floats(0.1, 150.0)),
        accelerators_per_instance=draw(st.sampled_from([1.0, 2.0, 4.0, 8.0])),
        commitment_months=float(draw(st.integers(1, 40))) if reserved else 0.0,
        upfront_usd_per_instance=draw(_money(200_000.0)) if reserved else 0.0,
        spot_interruption_overhead=draw(st.floats(0.0, 0.3)) if spot else 0.0,
        egress_tb_per_month=draw(_money(100.0)),
        egress_usd_per_gb=draw(_money(0.12)),
        storage_tb=draw(_money(500.0)),
        storage_usd_per_gb_month=draw(_money(0.03)),
        price_change_per_year=draw(st.floats(-0.3, 0.1)),
    )


@st.composite
def scalar_scenarios(draw: st.DrawFn) -> Scenario:
    """A random single scenario covering every input of the model."""
    power_max_kw = draw(st.floats(0.3, 130.0))
    financed_share = draw(st.sampled_from([0.0, 0.5, 1.0]) | st.floats(0.0, 1.0))
    n_options = draw(st.integers(1, 3))
    cooling = tuple(
        replace(tier, capex_usd_per_kw=draw(_money(3000.0)), opex_usd_per_kw_month=draw(_money(30.0)))
        for tier in COOLING
    )
    return Scenario(
        workload=Workload(
            accelerators=draw(st.floats(1.0, 2000.0)),
            utilisation=draw(st.floats(0.0, 1.0)),
            hours_per_month=draw(st.sampled_from([730.0]) | st.floats(100.0, 744.0)),
            tokens_per_s_per_accelerator=draw(st.just(math.nan) | st.floats(50.0, 5000.0)),
        ),
        buy=BuyOption(
            accelerators_per_system=draw(st.sampled_from([1.0, 2.0, 4.0, 8.0, 16.0, 72.0])),
            system_price_usd=draw(st.floats(1_000.0, 5_000_000.0)),
            system_power_max_kw=power_max_kw,
            system_power_idle_kw=power_max_kw * draw(st.floats(0.0, 1.0)),
            system_rack_units=draw(st.sampled_from([1.0, 2.0, 4.0, 8.0, 10.0, 48.0])),
            depreciation_months=float(draw(st.integers(12, 96))),
            network_usd_per_system=draw(_money(100_000.0)),
            network_share_of_compute=draw(st.floats(0.0, 0.3)),
            storage_usd=draw(_money(1_000_000.0)),
            racks_install_usd_per_rack=draw(_money(50_000.0)),
            spares_share=draw(st.floats(0.0, 0.1)),
            support_share_per_year=draw(st.floats(0.0, 0.2)),
            staff_fte_per_system=draw(st.floats(0.0, 0.2)),
            staff_usd_per_fte_year=draw(_money(300_000.0)),
            licence_usd_per_accelerator_year=draw(_money(10_000.0)),
            residual_value_share=draw(st.floats(0.0, 0.5)),
            power_cap_share=draw(st.sampled_from([1.0]) | st.floats(0.5, 1.0)),
            power_cap_throughput_loss=draw(st.sampled_from([0.0]) | st.floats(0.0, 0.5)),
            financed_share=financed_share,
            loan_rate_per_year=draw(st.floats(0.0, 0.15)),
            loan_term_months=float(draw(st.integers(1, 150))),
            import_duty_vat_share=draw(st.sampled_from([0.0]) | st.floats(0.0, 0.3)),
        ),
        facility=Facility(
            electricity_usd_per_kwh=draw(st.floats(0.02, 0.4)),
            pue=draw(st.floats(1.0, 2.0)),
            rack_power_limit_kw=draw(st.floats(5.0, 200.0)),
            rack_units_per_rack=draw(st.sampled_from([42.0, 48.0]) | st.floats(20.0, 52.0)),
            existing_cooling_max_kw_per_rack=draw(st.floats(0.0, 60.0)),
            electricity_escalation_per_year=draw(st.floats(-0.05, 0.1)),
            colocation_usd_per_kw_month=draw(_money(300.0)),
            owned_buildout_usd_per_kw=draw(_money(15_000.0)),
            owned_opex_usd_per_kw_month=draw(_money(50.0)),
        ),
        cooling=cooling,
        rent=tuple(draw(rent_options(index)) for index in range(n_options)),
        finance=Finance(
            horizon_months=float(draw(st.integers(1, 120))),
            discount_rate_per_year=draw(st.floats(-0.05, 0.2)),
        ),
    )
