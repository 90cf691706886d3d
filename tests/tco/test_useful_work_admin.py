"""The scenario page's 'full cost of useful work' section: goodput, tokens, carbon, per-token APIs."""
from __future__ import annotations

from decimal import Decimal

import pytest

from catalog.models import TokenApiPrice
from tco.models import ApiOption
from tco.services.evaluation import scenario_evaluate

pytestmark = pytest.mark.django_db


def test_the_page_shows_goodput_carbon_resale_and_the_api_breakevens(admin_client, demo_scenarios):
    scenario = demo_scenarios["Inference fleet: 32x L40S vs cloud"]
    scenario.token_input_share, scenario.token_output_share = Decimal("0.8"), Decimal("0.2")
    scenario.save()
    ApiOption.objects.create(scenario=scenario, price=TokenApiPrice.objects.get(model_name="large model"))
    result = scenario_evaluate(scenario=scenario).result

    page = admin_client.get(f"/admin/tco/scenario/{scenario.pk}/change/").content.decode()

    assert "Full cost of useful work" in page
    assert f"{float(result.buy.goodput.share) * 100:.1f}%" in page
    assert "Example API large model" in page
    volume = float(result.api[0].breakeven_tokens_per_month_buy)
    assert f"Buy: {volume:,.0f}" in page
    assert "book value" in page
    # Money with its currency sign and separators, not "64,000.00 USD".
    assert f"resell for ${float(result.buy.residual.resale_value_usd):,.2f} (cash view)" in page


def test_the_page_bills_each_api_for_the_fleets_own_tokens_kind_by_kind(admin_client,
                                                                        demo_scenarios):
    scenario = demo_scenarios["Inference fleet: 32x L40S vs cloud"]
    scenario.token_input_share, scenario.token_output_share = Decimal("0.8"), Decimal("0.2")
    scenario.save()
    price = TokenApiPrice.objects.get(model_name="large model")
    ApiOption.objects.create(scenario=scenario, price=price)
    tokens = float(scenario_evaluate(scenario=scenario).result.tokens_per_month)

    page = admin_client.get(f"/admin/tco/scenario/{scenario.pk}/change/").content.decode()

    assert "Each API billed for the fleet's own tokens" in page
    # 80 % input and 20 % output tokens at the API's two prices; no cached input here.
    input_cost = tokens * 0.8 / 1e6 * float(price.usd_per_million_input)
    output_cost = tokens * 0.2 / 1e6 * float(price.usd_per_million_output)
    assert f"{tokens * 0.8:,.0f}" in page and f"${input_cost:,.2f}" in page
    assert f"${output_cost:,.2f}" in page and f"${input_cost + output_cost:,.2f}" in page
