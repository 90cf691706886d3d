"""Benchmark of procurement plans: one 60-month solve, and 1,000 Monte Carlo draws on 2 processes.

The plan: demand from 64 accelerators growing 4 % a month for 60 months, three system types
(lead times 2-4 months), on-demand, 1- and 3-year reserved and spot offers, a site power
limit. ``python -m benchmarks.plan`` (or ``python -m benchmarks``) prints the figures.
"""

from __future__ import annotations

import math
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

import numpy as np

from costmodel.examples import flat_scenario
from costmodel.inputs import CoolingTier
from costmodel.inputs import RentOption
from costmodel.plan import Demand
from costmodel.plan import Limits
from costmodel.plan import OwnedChoice
from costmodel.plan import PlanInputs
from costmodel.plan import RentChoice
from costmodel.plan import make_plan
from costmodel.plan.program import build_program
from costmodel.plan.solve import solve_program
from costmodel.plan.uncertainty import cases_of
from costmodel.plan.uncertainty import reevaluate

DRAWS = 1_000
PROCESSES = 2
CHUNK = 250


def bench_inputs() -> PlanInputs:
    flat = flat_scenario()
    buy = replace(
        flat.buy,
        system_power_idle_kw=3.0,
        residual_value_share=0.2,
        network_share_of_compute=0.1, racks_install_usd_per_rack=15_000.0,
        support_share_per_year=0.08,
        staff_fte_per_system=0.05, staff_usd_per_fte_year=180_000.0,
    )
    owned = tuple(
        OwnedChoice(
            f"system {index + 1}",
            replace(buy, system_price_usd=250_000.0 + 40_000.0 * index, system_power_max_kw=10.2 + index),
            lead_time_months=2 + index,
        )
        for index in range(3)
    )
    rent = (
        RentChoice(RentOption("on demand", "on_demand", 98.32, 8.0, price_change_per_year=-0.1)),
        RentChoice(RentOption("reserved 1 year", "reserved", 70.0, 8.0, commitment_months=12)),
        RentChoice(RentOption("reserved 3 years", "reserved", 50.0, 8.0, commitment_months=36)),
        RentChoice(
            RentOption("spot", "spot", 40.0, 8.0, spot_interruption_overhead=0.15), spot_share_cap=0.2
        ),
    )
    facility = replace(flat.facility, pue=1.3, colocation_usd_per_kw_month=150.0)
    cooling = (CoolingTier("air", math.inf, 0.0, 0.0),)
    return PlanInputs(
        Demand.growing(64, 0.04, 60, 0.7),
        owned,
        rent,
        facility,
        cooling,
        0.08,
        Limits(site_it_power_kw=400.0),
    )


def _chunk(args: tuple[PlanInputs, dict, int]) -> np.ndarray:
    inputs, figures, start = args
    rng = np.random.default_rng([2026, start])
    growth = rng.triangular(-0.02, 0.0, 0.02, CHUNK)
    price = rng.triangular(0.8, 1.0, 1.2, CHUNK)
    return reevaluate(list(cases_of(inputs, figures).values()), growth, price)[0]


def main() -> None:
    inputs = bench_inputs()
    started, cpu_started = time.perf_counter(), time.process_time()
    solve_program(build_program(inputs))
    alone_s, alone_cpu_s = time.perf_counter() - started, time.process_time() - cpu_started
    started = time.perf_counter()
    plan = make_plan(inputs, explain_limits=False)
    solve_s = time.perf_counter() - started
    started = time.perf_counter()
    full = make_plan(inputs)
    full_s = time.perf_counter() - started
    print(
        f"plan solve, 60 months, 3 system types, 4 rent options: {alone_s:.2f} s (CPU {alone_cpu_s:.2f} s) "
        f"({solve_s:.2f} s with both baselines, {full_s:.2f} s with the limits explained too)"
    )
    started = time.perf_counter()
    with ProcessPoolExecutor(PROCESSES) as pool:
        chunks = list(pool.map(_chunk, [(inputs, full.figures, s) for s in range(0, DRAWS, CHUNK)]))
    draws_s = time.perf_counter() - started
    npv = np.concatenate(chunks, axis=1)
    print(
        f"plan Monte Carlo, {DRAWS:,} draws x {npv.shape[0]} cases on {PROCESSES} processes: {draws_s:.2f} s "
        f"(NPV of the plan P50 ${np.percentile(npv[0], 50):,.0f})"
    )
    assert plan.feasible


if __name__ == "__main__":
    main()
