"""Goodput: failures, checkpoints and spot interruptions against hand-computed figures."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from numpy.testing import assert_allclose

from costmodel import Goodput
from costmodel import InputError
from costmodel import RentOption
from costmodel import Workload
from costmodel import evaluate
from costmodel import with_overrides
from costmodel.goodput import efficiency
from costmodel.goodput import job_mtbf_h
from costmodel.goodput import young_daly_interval_h
from costmodel.tests.scenarios import flat_scenario

# Llama 3 (Meta, 2024, section 3.3.4): 419 unexpected interruptions in 54 days on 16,384 GPUs.
LLAMA3_FAILURES_PER_GPU_HOUR = 419 / (54 * 24 * 16_384)


def test_without_failures_goodput_equals_utilisation() -> None:
    scenario = flat_scenario(
        workload=Workload(accelerators=256.0, utilisation=0.6),
        goodput=Goodput(failures_per_accelerator_hour=0.0, checkpoint_cost_h=0.2, restart_h=0.5),
    )
    result = evaluate(scenario, recommend=False)
    assert float(result.buy.goodput.share) == 0.6
    assert float(result.rent[0].goodput.share) == 0.6
    assert math.isinf(float(result.buy.goodput.checkpoint_interval_h))


def test_default_interval_is_young_daly_sqrt_2_cost_mtbf() -> None:
    goodput = Goodput(failures_per_accelerator_hour=LLAMA3_FAILURES_PER_GPU_HOUR, checkpoint_cost_h=0.05)
    result = evaluate(flat_scenario(goodput=goodput), recommend=False)
    mtbf = 1.0 / (LLAMA3_FAILURES_PER_GPU_HOUR * 256)  # 198.0 h for the 256-accelerator job
    assert_allclose(result.buy.goodput.mtbf_h, mtbf)
    assert_allclose(result.buy.goodput.checkpoint_interval_h, math.sqrt(2 * 0.05 * mtbf))
    assert_allclose(young_daly_interval_h(0.05, mtbf), math.sqrt(2 * 0.05 * mtbf))


def test_the_young_daly_interval_is_the_best_one() -> None:
    mtbf, cost, restart = 50.0, 0.1, 0.3
    best = float(efficiency(young_daly_interval_h(cost, mtbf), cost, restart, mtbf))
    others = efficiency(np.array([0.3, 1.0, 10.0, 30.0]), cost, restart, mtbf)
    assert np.all(others < best)


def test_goodput_by_hand_and_cost_per_useful_hour_follows_it() -> None:
    # 256 accelerators at 1e-4 failures/h: MTBF 1 / 0.0256 = 39.0625 h; tau 2 h, C 0.1 h, R 0.5 h.
    goodput = Goodput(failures_per_accelerator_hour=1e-4, checkpoint_interval_h=2.0,
                      checkpoint_cost_h=0.1, restart_h=0.5)
    result = evaluate(flat_scenario(goodput=goodput), recommend=False)
    expected = 2.0 / 2.1 * (1.0 - (2.1 / 2 + 0.5) / 39.0625)
    assert_allclose(result.buy.goodput.share, expected)
    plain = evaluate(flat_scenario(), recommend=False)
    # Same cash, fewer useful hours: the cost per useful hour rises by 1 / goodput.
    assert_allclose(result.buy.total_usd, plain.buy.total_usd)
    assert_allclose(result.buy.cost_per_useful_accelerator_hour_usd,
                    plain.buy.cost_per_useful_accelerator_hour_usd / expected)
    assert_allclose(result.rent[0].cost_per_useful_accelerator_hour_usd,
                    plain.rent[0].cost_per_useful_accelerator_hour_usd / expected)


def test_spot_interruptions_lower_only_the_spot_goodput() -> None:
    spot = RentOption("spot", "spot", price_usd_per_instance_hour=40.0, accelerators_per_instance=8.0,
                      spot_interruptions_per_hour=0.05)
    goodput = Goodput(failures_per_accelerator_hour=1e-5, checkpoint_cost_h=0.1, restart_h=0.25,
                      accelerators_per_job=8.0)
    scenario = flat_scenario(goodput=goodput)
    result = evaluate(replace(scenario, rent=(*scenario.rent, spot)), recommend=False)
    assert_allclose(result.rent[1].goodput.mtbf_h, 1.0 / (1e-5 * 8 + 0.05))
    assert_allclose(result.rent[0].goodput.share, result.buy.goodput.share)
    assert result.rent[1].goodput.share < result.buy.goodput.share


def test_goodput_inputs_sweep_as_one_batch() -> None:
    rates = np.array([0.0, 1e-5, 1e-4])
    batch = with_overrides(flat_scenario(goodput=Goodput(checkpoint_cost_h=0.1)),
                           {"goodput.failures_per_accelerator_hour": rates})
    result = evaluate(batch, recommend=False, detail=False)
    mtbf = job_mtbf_h(rates, 256)
    assert_allclose(result.buy.goodput.mtbf_h, mtbf)
    assert result.buy.goodput.share[0] == 1.0
    assert np.all(np.diff(result.buy.goodput.share) < 0)


@pytest.mark.parametrize(("goodput", "path"), [
    (Goodput(checkpoint_interval_h=0.0), "goodput.checkpoint_interval_h"),
    (Goodput(failures_per_accelerator_hour=-1e-5), "goodput.failures_per_accelerator_hour"),
    (Goodput(restart_h=-1.0), "goodput.restart_h"),
])
def test_bad_goodput_inputs_name_the_field(goodput: Goodput, path: str) -> None:
    with pytest.raises(InputError) as error:
        evaluate(flat_scenario(goodput=goodput), recommend=False)
    assert error.value.path == path


def test_spot_interruptions_on_an_on_demand_offer_are_refused() -> None:
    scenario = flat_scenario()
    option = replace(scenario.rent[0], spot_interruptions_per_hour=0.1)
    with pytest.raises(InputError, match="spot offers only") as error:
        evaluate(replace(scenario, rent=(option,)), recommend=False)
    assert error.value.path == "rent.0.spot_interruptions_per_hour"
