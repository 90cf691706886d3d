"""Dotted-path access to numeric inputs."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from costmodel import InputError
from costmodel import batch_shape
from costmodel import batch_slice
from costmodel import get_input
from costmodel import numeric_input_paths
from costmodel import with_overrides
from costmodel.tests.scenarios import rich_scenario


def test_numeric_input_paths_name_every_section_field_rent_option_and_tier() -> None:
    paths = numeric_input_paths(rich_scenario())
    assert paths[0] == "workload.accelerators"
    for path in (
        "facility.electricity_usd_per_kwh",
        "buy.loan_rate_per_year",
        "finance.horizon_months",
        "rent.0.price_usd_per_instance_hour",
        "rent.2.spot_interruption_overhead",
        "cooling.3.capex_usd_per_kw",
    ):
        assert path in paths
    assert not any(path.endswith((".name", ".pricing_model")) for path in paths)
    assert len(paths) == len(set(paths))


def test_with_overrides_replaces_by_index_or_by_name_and_leaves_the_base_alone() -> None:
    base = rich_scenario()
    changed = with_overrides(
        base,
        {"rent.1.price_usd_per_instance_hour": 50.0, "rent.spot.price_usd_per_instance_hour": [30.0, 40.0]},
    )
    assert get_input(changed, "rent.1y-reserved.price_usd_per_instance_hour") == 50.0
    assert_array_equal(get_input(changed, "rent.2.price_usd_per_instance_hour"), [30.0, 40.0])
    assert get_input(base, "rent.1.price_usd_per_instance_hour") == 57.63
    assert batch_shape(changed) == (2,)


def test_with_overrides_rejects_unknown_and_non_numeric_paths() -> None:
    with pytest.raises(InputError, match="unknown input path"):
        with_overrides(rich_scenario(), {"hardware.system_price_usd": 1.0})
    with pytest.raises(InputError, match="not a numeric input"):
        with_overrides(rich_scenario(), {"rent.0.name": 1.0})
    with pytest.raises(InputError, match="no item"):
        with_overrides(rich_scenario(), {"rent.7.price_usd_per_instance_hour": 1.0})


def test_batch_slice_takes_a_chunk_of_the_first_axis_and_keeps_broadcast_axes() -> None:
    utilisation = np.linspace(0.1, 1.0, 10)[:, np.newaxis]
    price = np.array([[0.05, 0.1, 0.2]])
    grid = with_overrides(
        rich_scenario(), {"workload.utilisation": utilisation, "facility.electricity_usd_per_kwh": price}
    )
    chunk = batch_slice(grid, slice(4, 8))
    assert batch_shape(chunk) == (4, 3)
    assert_array_equal(get_input(chunk, "workload.utilisation"), utilisation[4:8])
    assert_array_equal(get_input(chunk, "facility.electricity_usd_per_kwh"), price)
