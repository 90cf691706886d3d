"""Exchange rates and contract price books over the REST API: team-scoped like quotes (members
read, analysts write, another team's rows do not exist), the ECB's rates read-only, filters, the
schema, and bad input refused with 400 naming the field, what was given and what is allowed,
nothing half-saved."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from catalog.exchange_rates.services import ecb_source
from catalog.models import ExchangeRate
from catalog.models import Source
from tco.models import ContractDiscount
from tco.models import ContractPriceBook
from tco.models import SavingsPlanCommitment
from teams.models import Role
from tests.teams.members import member

pytestmark = pytest.mark.django_db
RATES, BOOKS = "/api/v1/exchange-rates/", "/api/v1/price-books/"


def post(client, url: str, body: dict):
    return client.post(url, body, content_type="application/json")


@pytest.fixture
def ecb_rate(db):
    return ExchangeRate.objects.create(base="EUR", quote="USD", rate=Decimal("1.1649"),
                                       on=date(2026, 3, 4), source=ecb_source())


TREASURY_RATE = {"base": "EUR", "quote": "USD", "rate": "1.1500", "on": "2026-03-04",
                 "source": "treasury-2026-03", "source_title": "Treasury rate sheet, March 2026"}


def test_a_team_enters_a_rate_with_its_source_and_reads_it_beside_the_ecbs(api, planner, ecb_rate):
    created = post(api, RATES, TREASURY_RATE)
    assert created.status_code == 201, created.json()
    row = created.json()
    assert (row["rate"], row["team"], row["source"], row["source_title"]) == (
        "1.1500000000", "demo", "treasury-2026-03", "Treasury rate sheet, March 2026")
    assert Source.objects.get(key="treasury-2026-03").team.slug == "demo"
    listed = api.get(RATES, {"base": "EUR", "on": "2026-03-04"}).json()["results"]
    assert {(r["source"], r["team"]) for r in listed} == {("treasury-2026-03", "demo"),
                                                           ("ecb-euro-reference-rates", None)}
    assert [r["source"] for r in api.get(RATES, {"public": "false"}).json()["results"]] == [
        "treasury-2026-03"]
    assert api.get(f"{RATES}{row['id']}/").json()["rate"] == "1.1500000000"


def test_another_teams_rate_does_not_exist_and_the_ecbs_cannot_be_changed(api, client, ecb_rate):
    theirs = post(api, RATES, TREASURY_RATE).json()
    client.force_login(member("outsider", of="elsewhere"))
    assert client.get(f"{RATES}{theirs['id']}/").status_code == 404
    assert [r["id"] for r in client.get(RATES).json()["results"]] == [ecb_rate.pk]
    assert client.put(f"{RATES}{ecb_rate.pk}/", TREASURY_RATE, content_type="application/json"
                      ).status_code == 405
    assert client.delete(f"{RATES}{ecb_rate.pk}/").status_code == 405


def test_a_viewer_cannot_enter_a_rate(client, db):
    client.force_login(member("vera", role=Role.VIEWER))
    assert post(client, RATES, TREASURY_RATE).status_code == 403
    assert not ExchangeRate.objects.exists()


@pytest.mark.parametrize(("change", "field", "words"), [
    ({"base": "XYZ"}, "base", '"XYZ" is not an ISO 4217 currency this service knows; use one of USD, EUR'),
    ({"rate": "0"}, "rate", "0 is not above zero"),
    ({"rate": "-1.20"}, "rate", "-1.2 is not above zero"),
    ({"quote": "EUR"}, "quote", "EUR is the base currency too"),
])
def test_a_bad_rate_is_refused_naming_the_field_and_nothing_is_saved(api, planner, change, field, words):
    refused = post(api, RATES, {**TREASURY_RATE, **change})
    assert refused.status_code == 400
    assert words in refused.json()[field][0]
    assert not ExchangeRate.objects.exists() and not Source.objects.filter(key="treasury-2026-03").exists()


def test_the_same_rate_twice_from_one_source_is_refused_on_its_date(api, planner):
    assert post(api, RATES, TREASURY_RATE).status_code == 201
    again = post(api, RATES, TREASURY_RATE)
    assert again.status_code == 400
    assert "already has a EUR/USD rate on 2026-03-04" in again.json()["on"][0]
    assert ExchangeRate.objects.count() == 1


EDP = {"provider": "aws", "name": "AWS EDP 2026", "effective_from": "2026-01-01",
       "effective_to": "2028-12-31", "source": "EDP order form signed 2025-12-15",
       "discounts": [{"share": "0.10"}, {"share": "0.15", "instance_family": "p5",
                                         "excluded_instance_types": "p5e.48xlarge"}],
       "savings_plans": [{"commitment_per_hour": "100", "currency": "USD", "term_months": 36,
                          "plan_discount": "0.20"}]}


def test_a_price_book_is_written_with_its_discounts_and_plans_in_one_body(api, planner):
    created = post(api, BOOKS, EDP)
    assert created.status_code == 201, created.json()
    book = ContractPriceBook.objects.get()
    assert (book.team.slug, book.name) == ("demo", "AWS EDP 2026")
    assert sorted(d.share for d in book.discounts.all()) == [Decimal("0.10"), Decimal("0.15")]
    assert book.savings_plans.get().commitment_per_hour == Decimal("100")
    assert created.json()["discounts"][1]["instance_family"] == "p5"

    edited = api.patch(f"{BOOKS}{book.pk}/", {"discounts": [{"share": "0.12"}]},
                       content_type="application/json")
    assert edited.status_code == 200, edited.json()
    assert [d.share for d in book.discounts.all()] == [Decimal("0.12")]
    assert book.savings_plans.count() == 1  # not given: kept


def test_price_books_are_filtered_and_kept_to_the_team(api, client, planner):
    post(api, BOOKS, EDP)
    post(api, BOOKS, {**EDP, "provider": "azure", "name": "Azure MACC", "effective_from": "2029-01-01",
                      "effective_to": None, "savings_plans": []})
    assert [b["name"] for b in api.get(BOOKS, {"provider": "aws"}).json()["results"]] == ["AWS EDP 2026"]
    assert [b["name"] for b in api.get(BOOKS, {"in_force_on": "2029-06-01"}).json()["results"]] == [
        "Azure MACC"]
    assert api.get(BOOKS, {"name": "edp", "team": "demo"}).json()["count"] == 1
    book = ContractPriceBook.objects.get(provider="aws")
    client.force_login(member("outsider", of="elsewhere"))
    assert client.get(BOOKS).json()["results"] == []
    assert client.get(f"{BOOKS}{book.pk}/").status_code == 404
    client.force_login(member("vera", role=Role.VIEWER))
    assert client.get(f"{BOOKS}{book.pk}/").status_code == 200
    assert client.delete(f"{BOOKS}{book.pk}/").status_code == 403


@pytest.mark.parametrize(("change", "errors"), [
    ({"discounts": [{"share": "1.5"}]},
     {"discounts": {"0": {"share": ["1.5 is outside 0 to 1: a discount is a share of the list price "
                                    "(0.10 = 10 % off), at most 1 (100 %)"]}}}),
    ({"savings_plans": [{**EDP["savings_plans"][0], "currency": "ABC"}]},
     {"savings_plans": {"0": {"currency": ['"ABC" is not an ISO 4217 currency this service knows; use '
                                           "one of USD, EUR, GBP, JPY, CNY, KRW, INR, CAD, AUD, CHF, "
                                           "SEK, SGD"]}}}),
    ({"effective_to": "2026-06-30"},
     {"savings_plans": {"0": {"term_months": ["a commitment of 36 months is longer than the book, in "
                                              "force from 2026-01-01 to 2026-06-30; end the book later "
                                              "or commit for a shorter term"]}}}),
    ({"savings_plans": [{**EDP["savings_plans"][0], "term_months": 24}]},
     {"savings_plans": {"0": {"term_months": ['"24" months is no plan term; a savings plan runs 12 or '
                                              "36 months"]}}}),
    ({"effective_to": "2025-12-31"},
     {"effective_to": ["2025-12-31 is before effective_from (2026-01-01); empty = open-ended"]}),
])
def test_a_bad_price_book_is_refused_naming_the_field_and_nothing_is_saved(api, planner, change, errors):
    refused = post(api, BOOKS, {**EDP, **change})
    assert refused.status_code == 400
    assert refused.json() == errors
    assert not ContractPriceBook.objects.exists() and not ContractDiscount.objects.exists()
    assert not SavingsPlanCommitment.objects.exists()


def test_the_schema_describes_both_endpoints(api):
    schema = api.get("/api/schema/", {"format": "json"}).json()
    assert {"/api/v1/exchange-rates/", "/api/v1/exchange-rates/{id}/", "/api/v1/price-books/",
            "/api/v1/price-books/{id}/"} <= set(schema["paths"])
    parameters = {p["name"] for p in schema["paths"]["/api/v1/price-books/"]["get"]["parameters"]}
    assert {"provider", "team", "in_force_on", "name"} <= parameters
    book = schema["components"]["schemas"]["PriceBook"]["properties"]
    assert {"discounts", "savings_plans", "effective_from"} <= set(book)


def test_an_edit_replaces_plans_only_with_whole_rows(api, planner):
    book = post(api, BOOKS, EDP).json()
    edited = api.patch(f"{BOOKS}{book['id']}/", {"savings_plans": [{"plan_discount": "0.1"}]},
                       content_type="application/json")
    assert edited.status_code == 400
    assert edited.json() == {"savings_plans": {"0": {
        "commitment_per_hour": ["This field is required."], "term_months": ["This field is required."]}}}
    assert SavingsPlanCommitment.objects.get().plan_discount == Decimal("0.20")


@pytest.mark.parametrize(("change", "field", "words"), [
    ({"rate": "1000000000"}, "rate",
     "1 EUR = 1000000000 USD is more than 2 times off the ECB's 1.1649 USD of 2026-03-04"),
    ({"rate": "0.0000001"}, "rate", "1 EUR = 0.0000001 USD is more than 2 times off the ECB's 1.1649 USD"),
    ({"base": "USD", "quote": "EUR", "rate": "2.5"}, "rate",
     "1 USD = 2.5 EUR is more than 2 times off the ECB's 0.858443 EUR of 2026-03-04"),  # 1 / 1.1649
    ({"on": "2099-01-01"}, "on", "2099-01-01 is outside the days a rate can be known: from 1999-01-04"),
    ({"on": "1900-01-01"}, "on", "1900-01-01 is outside the days a rate can be known"),
])
def test_an_implausible_rate_or_day_is_refused_with_both_figures(api, planner, ecb_rate, change, field,
                                                                  words):
    refused = post(api, RATES, {**TREASURY_RATE, **change})
    assert refused.status_code == 400
    assert words in refused.json()[field][0]
    assert ExchangeRate.objects.filter(team__isnull=False).count() == 0
