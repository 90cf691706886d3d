"""The L40S inference demo's cost per million tokens and API breakeven, at its stated 1,000
tokens/s and at the calibrated estimate with its range (figures: `manage.py throughput_report`)."""
from __future__ import annotations

import pytest
from numpy.testing import assert_allclose

from tco.services.throughput_report import L40S_DEMO
from tco.services.throughput_report import demo_comparison
from tco.services.throughput_report import measurement_table

pytestmark = pytest.mark.django_db


def test_the_demo_before_and_after_with_the_range(demo_scenarios):
    before, after, low, high = demo_comparison(demo_scenarios[L40S_DEMO])

    assert before.tokens_per_s_per_accelerator == 1000  # the demo's stated assumption
    assert low.tokens_per_s_per_accelerator < after.tokens_per_s_per_accelerator < \
        high.tokens_per_s_per_accelerator
    # The fleet's cost does not depend on its speed: cost per million tokens x tokens/s is the
    # same in every case (cost per useful hour / 3,600 x 1e6), so the range inverts.
    spend = [case.cost_per_million_tokens_usd * case.tokens_per_s_per_accelerator
             for case in (before, after, low, high)]
    assert_allclose(spend, spend[0], rtol=1e-3)
    assert high.cost_per_million_tokens_usd < after.cost_per_million_tokens_usd < \
        low.cost_per_million_tokens_usd
    # Capacity = useful accelerator-hours x tokens/s x 3,600: 32 L40S x 730 h x 60 %
    # utilisation, less the demo's goodput losses (under 1 %); proportional to tokens/s.
    useful_hours = after.fleet_tokens_per_month / (after.tokens_per_s_per_accelerator * 3600)
    assert 0.99 * 32 * 730 * 0.60 < useful_hours <= 32 * 730 * 0.60
    assert_allclose(high.fleet_tokens_per_month / low.fleet_tokens_per_month,
                    high.tokens_per_s_per_accelerator / low.tokens_per_s_per_accelerator,
                    rtol=1e-5)  # the scenario keeps tokens/s to three decimals
    # The API breakeven (million tokens a month above which the fleet is cheaper) is below the
    # fleet's capacity at the estimate and at both ends of its range.
    for case in (before, after, low, high):
        assert case.api_breakeven_tokens_per_month < case.fleet_tokens_per_month


def test_the_report_table_has_every_calibrated_measurement(catalog):
    table = measurement_table()
    assert len(table) >= 20
    assert all(0.5 <= row["after"] <= 2.0 for row in table)
    # The decode roofline the sizing used before missed some by more than 2x.
    assert max(row["before"] for row in table) > 2.0
