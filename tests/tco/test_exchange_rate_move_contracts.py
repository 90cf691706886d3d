"""An exchange-rate move (``exchange.rate_change``, a sweep and Monte Carlo axis) moves a contract's
commitment in a foreign currency with the rate, as it moves the list price.

A team reporting in euros rents AWS's p5.48xlarge, listed in US dollars, under a savings plan of
$100 an hour for 36 months at 20 % off that the instance does not use up (0.8 x its list price is
below $100, see test_price_books): the option costs the commitment, $100 an hour, converted at
1.25 dollars a euro: EUR 80 x 730 h x 36 = EUR 2,102,400. Were the dollar 10 % dearer (a move of
1.1), EUR 88 an hour: EUR 2,312,640. Buying's price, typed in euros, does not move.

The engine moves a rent option's contracted price whole, so a commitment in another currency
than the option's list price cannot move exactly: such a scenario says so in a note.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

import costmodel as engine
from catalog.exchange_rates.services import ecb_source
from catalog.models import ExchangeRate
from tco.models import SavingsPlanCommitment
from tco.models import Scenario
from tco.services.engine_inputs import engine_case
from tests.tco.scenario_body import p5
from tests.tco.scenario_body import scenario_body
from tests.tco.test_price_books import aws_book  # noqa: F401 (the fixture)

HOURS = 730 * 36
RATES_ON = date(2026, 3, 4)


@pytest.fixture
def eur_scenario(api, planner, aws_book) -> Scenario:  # noqa: F811
    team = planner.memberships.get().team
    team.reporting_currency = "EUR"
    team.save()
    ExchangeRate.objects.create(base="EUR", quote="USD", rate=Decimal("1.25"), on=RATES_ON,
                                source=ecb_source())
    SavingsPlanCommitment.objects.create(book=aws_book, commitment_per_hour=Decimal("100"),
                                         currency="USD", term_months=36, plan_discount=Decimal("0.20"))
    response = api.post("/api/v1/scenarios/", scenario_body(
        rent_options=[{"offering": p5().pk}], rates_as_of=RATES_ON.isoformat()),
        content_type="application/json")
    assert response.status_code == 201, response.json()
    return Scenario.objects.get(pk=response.json()["id"])


def test_a_dollar_savings_plan_of_a_euro_team_moves_with_the_rate(eur_scenario):
    case = engine_case(eur_scenario)
    assert case.currency == "EUR"
    assert "rent.0.price_usd_per_instance_hour" in case.inputs.exchange.converted
    assert "rate_move_contract" not in [w.code for w in case.warnings]  # both in dollars: exact
    moved = engine.evaluate(engine.with_overrides(case.inputs, {"exchange.rate_change": [1.0, 1.1]}),
                            detail=False)
    assert list(moved.rent[0].total_usd) == pytest.approx([80 * HOURS, 88 * HOURS], abs=0.01)
    assert list(moved.buy.total_usd)[0] == pytest.approx(list(moved.buy.total_usd)[1])


def test_a_commitment_in_another_currency_than_its_list_price_says_a_move_is_approximate(eur_scenario):
    # The same plan in euros: at a move the dollar list price would move and the euro
    # commitment not, but the engine moves the contracted price whole.
    SavingsPlanCommitment.objects.update(currency="EUR")
    (note,) = [w for w in engine_case(eur_scenario).warnings if w.code == "rate_move_contract"]
    assert note.severity == "info"
    assert note.message.startswith("AWS p5.48xlarge")
    assert "is listed in USD under a commitment in EUR" in note.message
    assert "moves its contracted price as a whole" in note.message
