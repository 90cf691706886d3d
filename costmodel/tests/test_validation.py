"""Inputs outside their valid range are rejected with the path of the offending input."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from costmodel import CoolingTier
from costmodel import InputError
from costmodel import RentOption
from costmodel import evaluate
from costmodel import validate
from costmodel import with_overrides
from costmodel.tests.scenarios import rich_scenario


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("workload.utilisation", 1.2),
        ("workload.utilisation", np.array([0.5, -0.1])),
        ("workload.accelerators", 0.0),
        ("facility.pue", 0.9),
        ("buy.power_cap_throughput_loss", 1.0),
        ("buy.power_cap_share", 0.0),
        ("buy.financed_share", 1.5),
        ("finance.discount_rate_per_year", -1.0),
        ("finance.horizon_months", 0.0),
        ("rent.0.price_usd_per_instance_hour", np.nan),
        ("rent.0.price_usd_per_instance_hour", np.inf),
    ],
)
def test_it_rejects_a_value_outside_the_valid_range(path: str, value: object) -> None:
    with pytest.raises(InputError) as error:
        validate(with_overrides(rich_scenario(), {path: value}))
    assert error.value.path == path


def test_it_accepts_nan_throughput_and_an_unlimited_top_cooling_tier() -> None:
    validate(with_overrides(rich_scenario(), {"workload.tokens_per_s_per_accelerator": np.nan}))


def test_it_rejects_idle_power_above_max_power() -> None:
    with pytest.raises(InputError, match="system_power_idle_kw"):
        evaluate(with_overrides(rich_scenario(), {"buy.system_power_idle_kw": 12.0}))


def test_it_rejects_a_financed_share_without_a_loan_term() -> None:
    with pytest.raises(InputError, match="loan_term_months"):
        validate(with_overrides(rich_scenario(), {"buy.loan_term_months": 0.0}))


def test_it_rejects_cooling_tiers_out_of_order() -> None:
    scenario = rich_scenario()
    swapped = (scenario.cooling[1], scenario.cooling[0], *scenario.cooling[2:])
    with pytest.raises(InputError, match="cooling.1.max_kw_per_rack"):
        validate(replace(scenario, cooling=swapped))
    with pytest.raises(InputError, match="at least one cooling tier"):
        validate(replace(scenario, cooling=()))
    validate(replace(scenario, cooling=(CoolingTier("air", float("inf"), 0.0, 0.0),)))


def test_it_rejects_duplicate_rent_names_and_unknown_pricing_models() -> None:
    scenario = rich_scenario()
    with pytest.raises(InputError, match="rent.1.name"):
        validate(replace(scenario, rent=(scenario.rent[0], scenario.rent[0])))
    with pytest.raises(InputError, match="rent.0.pricing_model"):
        validate(replace(scenario, rent=(RentOption("x", "lease", 1.0, 8.0),)))
    # Issue 23: no rent option at all is valid (buy alone, or buy against per-token APIs).
    validate(replace(scenario, rent=()))
    with pytest.raises(InputError, match="rent.1.billing_basis"):
        validate(replace(scenario, rent=(scenario.rent[0], replace(scenario.rent[1], billing_basis="used"))))
    with pytest.raises(InputError, match="rent.0.billing_basis"):
        validate(replace(scenario, rent=(replace(scenario.rent[0], billing_basis="sometimes"),)))


def test_it_rejects_terms_that_the_pricing_model_would_ignore() -> None:
    scenario = rich_scenario()
    with pytest.raises(InputError, match="rent.0.upfront_usd_per_instance"):
        validate(
            replace(scenario, rent=(RentOption("od", "on_demand", 1.0, 8.0, upfront_usd_per_instance=5.0),))
        )
    with pytest.raises(InputError, match="rent.0.spot_interruption_overhead"):
        validate(
            replace(scenario, rent=(RentOption("od", "on_demand", 1.0, 8.0, spot_interruption_overhead=0.1),))
        )
    with pytest.raises(InputError, match="rent.0.commitment_months"):
        validate(replace(scenario, rent=(RentOption("ri", "reserved", 1.0, 8.0, commitment_months=0.0),)))
