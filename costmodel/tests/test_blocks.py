"""Points evaluated block by block give the figures of one call over all of them, bit for bit."""
from __future__ import annotations

import numpy as np

import costmodel as engine
from costmodel.examples import rich_scenario

POINTS = 50
FIGURES = ("npv_saving_usd", "saving_usd", "breakeven_month", "cost_per_useful_accelerator_hour_usd")


def _overrides() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(11)
    return {
        "workload.utilisation": rng.uniform(0.1, 1.0, POINTS),
        "facility.electricity_usd_per_kwh": rng.uniform(0.03, 0.4, POINTS),
        "finance.horizon_months": rng.integers(12, 121, POINTS).astype(float),
    }


def test_blocks_cover_every_point_once_in_order():
    blocks = engine.evaluate_points(rich_scenario(), _overrides(), block_points=16)
    bounds = [(start, stop) for start, stop, _ in blocks]
    assert bounds == [(0, 16), (16, 32), (32, 48), (48, 50)]


def test_figures_do_not_depend_on_the_blocks():
    inputs, overrides = rich_scenario(), _overrides()
    whole = engine.evaluate(engine.with_overrides(inputs, overrides), detail=False)
    for start, stop, block in engine.evaluate_points(inputs, overrides, block_points=7):
        np.testing.assert_array_equal(
            np.broadcast_to(block.buy.cost_per_useful_accelerator_hour_usd, (stop - start,)),
            whole.buy.cost_per_useful_accelerator_hour_usd[start:stop])
        for option, expected in zip(block.rent, whole.rent, strict=True):
            for name in FIGURES:
                got = np.broadcast_to(getattr(option, name), (stop - start,))
                wanted = getattr(expected, name)[start:stop]
                np.testing.assert_array_equal(got, wanted, err_msg=f"{option.name}: {name}")
