"""Paying a model API per token: cost per million tokens and the volume at which a fleet wins."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from numpy.testing import assert_allclose

from costmodel import ApiOption
from costmodel import InputError
from costmodel import RentOption
from costmodel import TokenMix
from costmodel import Workload
from costmodel import evaluate
from costmodel import with_overrides
from costmodel.tests.scenarios import flat_scenario

MIX = TokenMix(input_share=0.6, cached_input_share=0.2, output_share=0.2)
API = ApiOption("api", usd_per_million_input=3.0, usd_per_million_cached_input=0.3,
                usd_per_million_output=15.0)


def _scenario(utilisation: float = 0.5, **changes):
    reserved = RentOption("reserved", "reserved", price_usd_per_instance_hour=60.0,
                          accelerators_per_instance=8.0, commitment_months=12.0)
    base = flat_scenario(
        workload=Workload(accelerators=256.0, utilisation=utilisation, tokens_per_s_per_accelerator=500.0),
        tokens=MIX, api=(API,),
    )
    base = replace(base, buy=replace(base.buy, system_power_idle_kw=2.0),
                   rent=(*base.rent, reserved))
    return replace(base, **changes)


def test_cost_per_million_tokens_equals_a_hand_calculation() -> None:
    result = evaluate(_scenario(), recommend=False)
    api = result.api[0]
    blended = 0.6 * 3.0 + 0.2 * 0.3 + 0.2 * 15.0  # $4.86 per million tokens
    assert_allclose(api.blended_usd_per_million_tokens, blended)
    million_per_month = 256 * 730 * 0.5 * 500 * 3600 / 1e6  # 168,192 Mtoken
    assert_allclose(result.tokens_per_month, million_per_month * 1e6)
    assert_allclose(api.total_usd, 36 * million_per_month * blended)
    assert_allclose(api.cost_per_million_tokens_usd, blended)
    assert_allclose(api.saving_by_buying_usd, api.total_usd - result.buy.total_usd)


def test_price_change_and_minimum_commitment() -> None:
    api = replace(API, price_change_per_year=-0.2, minimum_usd_per_month=600_000.0)
    result = evaluate(_scenario(api=(api,)), recommend=False)
    usage = 256 * 730 * 0.5 * 500 * 3600 / 1e6 * 4.86  # $817,413.12 a month in year 1
    line = result.api[0].cash_flows.lines_usd["tokens"]
    assert_allclose(line[[1, 13, 25]], [usage, usage * 0.8, max(600_000.0, usage * 0.64)])
    assert line[25] == 600_000.0


def test_volume_breakeven_equals_the_closed_form() -> None:
    result = evaluate(_scenario(), recommend=False)
    horizon, blended = 36, 4.86
    capacity = 256 * 730 * 500 * 3600 / 1e6  # Mtoken a month at utilisation 1
    for fleet_total, slope, volume in [
        (result.buy.total_usd, None, result.api[0].breakeven_tokens_per_month_buy),
        (result.rent[1].total_usd, 0.0, result.api[0].breakeven_tokens_per_month_rent["reserved"]),
    ]:
        if slope is None:  # buying: energy swing (10.2 - 2) kW x 32 systems x 730 h x $0.10 x 36 months
            slope = 32 * (10.2 - 2.0) * 730 * 0.10 * horizon
        fixed = float(fleet_total) - slope * 0.5
        expected = fixed / (blended * horizon - slope / capacity)
        assert_allclose(volume, expected * 1e6)
        # At that volume, the fleet and the API cost the same.
        at = evaluate(_scenario(utilisation=expected / capacity), recommend=False)
        fleet = at.buy if slope != 0.0 else at.rent[1]
        assert_allclose(at.api[0].total_usd, fleet.total_usd, rtol=1e-9)
    assert_allclose(result.api[0].breakeven_utilisation_buy,
                    result.api[0].breakeven_tokens_per_month_buy / (capacity * 1e6))


def test_an_on_demand_fleet_dearer_per_token_than_the_api_never_wins() -> None:
    # On demand: $98.32 / 8 per accelerator-hour / (500 x 3,600) tokens = $6.83 per Mtoken > $4.86.
    result = evaluate(_scenario(), recommend=False)
    assert np.isnan(result.api[0].breakeven_tokens_per_month_rent["on-demand"])


def test_rate_limit() -> None:
    limited = replace(API, rate_limit_tokens_per_month=1e9)
    result = evaluate(_scenario(api=(API, replace(limited, name="limited"))), recommend=False)
    assert [bool(api.within_rate_limit) for api in result.api] == [True, False]


def test_api_prices_sweep() -> None:
    batch = with_overrides(_scenario(), {"api.api.usd_per_million_output": np.array([10.0, 15.0, 30.0])})
    result = evaluate(batch, recommend=False, detail=False)
    assert_allclose(result.api[0].blended_usd_per_million_tokens, 1.86 + 0.2 * np.array([10.0, 15.0, 30.0]))
    assert np.all(np.diff(result.api[0].breakeven_tokens_per_month_buy) < 0)


@pytest.mark.parametrize(("changes", "path"), [
    ({"tokens": TokenMix(0.5, 0.2, 0.2)}, "tokens"),
    ({"api": (replace(API, usd_per_million_input=-1.0),)}, "api.0.usd_per_million_input"),
    ({"api": (API, API)}, "api.1.name"),
])
def test_bad_token_inputs_name_the_field(changes, path: str) -> None:
    with pytest.raises(InputError) as error:
        evaluate(_scenario(**changes), recommend=False)
    assert error.value.path == path


def test_an_api_option_needs_a_throughput() -> None:
    scenario = _scenario()
    no_throughput = replace(scenario.workload, tokens_per_s_per_accelerator=float("nan"))
    with pytest.raises(InputError) as error:
        evaluate(replace(scenario, workload=no_throughput), recommend=False)
    assert error.value.path == "workload.tokens_per_s_per_accelerator"
