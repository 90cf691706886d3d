"""POST /api/v1/scenarios/{id}/evaluate/ evaluates a draft once per state of what its figures
depend on: asked again unchanged, it answers the same body without the engine or the catalog
reads; a save, a new price or a corrected price gives a new evaluation."""
from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalog.models import PricePoint
from tco.models import ScenarioSnapshot
from tests.tco.scenario_body import p5
from tests.tco.scenario_body import scenario_body
from tests.teams.members import member

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(client, db):
    cache.clear()
    client.force_login(member("analyst", of="planning"))
    return client


@pytest.fixture
def scenario_id(api, catalog):
    # The rent price comes from the catalog, so a corrected price list moves the figures.
    body = scenario_body(rent_options=[{"offering": p5().pk}])
    created = api.post("/api/v1/scenarios/", body, content_type="application/json")
    assert created.status_code == 201, created.json()
    return created.json()["id"]


def evaluate(api, pk):
    with CaptureQueriesContext(connection) as queries:
        response = api.post(f"/api/v1/scenarios/{pk}/evaluate/")
    assert response.status_code == 200, response.json()
    return response.json(), len(queries.captured_queries)


def npv_saving(body) -> float:
    return body["result"]["rent"][0]["npv_saving_usd"]


def test_an_unchanged_draft_is_evaluated_once(api, scenario_id):
    first, first_queries = evaluate(api, scenario_id)
    again, again_queries = evaluate(api, scenario_id)

    assert again == first
    # The catalog reads, the snapshot and its price links happen on the first request only.
    assert again_queries < first_queries / 2
    assert ScenarioSnapshot.objects.filter(scenario_id=scenario_id).count() == 1


def test_a_save_a_new_price_or_a_corrected_price_evaluates_again(api, scenario_id):
    first, _ = evaluate(api, scenario_id)
    etag = api.get(f"/api/v1/scenarios/{scenario_id}/")["ETag"]

    api.patch(f"/api/v1/scenarios/{scenario_id}/", {"utilisation": "0.5"}, content_type="application/json",
              headers={"If-Match": etag})
    after_save, _ = evaluate(api, scenario_id)
    for price in PricePoint.objects.filter(offering=p5()):  # a price list corrected in place
        PricePoint.objects.filter(pk=price.pk).update(amount=price.amount + Decimal("1"))
    after_correction, _ = evaluate(api, scenario_id)

    assert npv_saving(after_save) != npv_saving(first)
    assert npv_saving(after_correction) != npv_saving(after_save)
    assert ScenarioSnapshot.objects.filter(scenario_id=scenario_id).count() == 3


def test_a_change_of_the_catalogs_specs_evaluates_again(api, scenario_id):
    # Corrected in the admin, row by row: the system's power at full load, then the rented
    # offering's accelerator (its memory: nothing of the figures moves, but what the page says
    # of it may), then a cooling technology no scenario names.
    from catalog.models import CoolingTechnology
    from catalog.models import SystemSku
    from tco.models import Scenario
    from tco.services.evaluation_cache import evaluation_key

    first, _ = evaluate(api, scenario_id)
    system = SystemSku.objects.get(slug="dgx-h100")
    system.power_max_kw += Decimal("1")
    system.save()
    hungrier, _ = evaluate(api, scenario_id)
    accelerator = p5().accelerator
    accelerator.save()
    resaved, resaved_queries = evaluate(api, scenario_id)
    CoolingTechnology.objects.first().delete()
    after_delete, _ = evaluate(api, scenario_id)
    again, again_queries = evaluate(api, scenario_id)
    # Rates are written in bulk and never changed: a new one moves the key's last id, and one
    # deleted (not the last) moves the catalog's revision.
    from catalog.models import ExchangeRate
    from catalog.models import Source

    source = Source.objects.first()
    older = ExchangeRate.objects.create(base="EUR", quote="USD", rate=Decimal("1.08"), on="2026-01-02",
                                        source=source)
    ExchangeRate.objects.create(base="EUR", quote="USD", rate=Decimal("1.09"), on="2026-01-05", source=source)
    key_before = evaluation_key(Scenario.objects.get(pk=scenario_id))
    older.delete()

    # 1 kW more at full load costs 1 kW x 730 h x $0.10 x 36 months = $2,628 more for buying
    # (PUE 1, utilisation 1, no discounting): the saving of renting drops by as much.
    assert npv_saving(hungrier) == pytest.approx(npv_saving(first) - 2628, abs=0.01)
    assert npv_saving(resaved) == npv_saving(hungrier)
    assert again == after_delete and again_queries < resaved_queries / 2  # cached once more
    assert evaluation_key(Scenario.objects.get(pk=scenario_id)) != key_before
    # Each change evaluated once: the first answer, and one after each of the three changes.
    assert ScenarioSnapshot.objects.filter(scenario_id=scenario_id).count() == 4


def test_a_change_of_the_teams_contract_terms_evaluates_again(api, scenario_id):
    # The team's AWS agreement, edited in place: the discount raised as the admin's inline saves
    # it, again through the API (which writes the terms in bulk), then the agreement dated after
    # the horizon's start (it no longer applies).
    from datetime import date

    from tco.models import ContractDiscount
    from tco.models import ContractPriceBook
    from tco.models import Scenario

    book = ContractPriceBook.objects.create(
        team=Scenario.objects.get(pk=scenario_id).team, provider="aws", name="AWS EDP 2026",
        effective_from=date(2020, 1, 1), source="EDP order form")
    discount = ContractDiscount.objects.create(book=book, share=Decimal("0.10"))
    ten_off, _ = evaluate(api, scenario_id)
    discount.share = Decimal("0.20")
    discount.save()
    twenty_off, _ = evaluate(api, scenario_id)
    edited = api.patch(f"/api/v1/price-books/{book.pk}/", {"discounts": [{"share": "0.30"}]},
                       content_type="application/json")
    assert edited.status_code == 200, edited.json()
    thirty_off, _ = evaluate(api, scenario_id)
    book.refresh_from_db()
    book.effective_from = date(2099, 1, 1)
    book.save()
    list_price, _ = evaluate(api, scenario_id)

    # The p5 rented every hour of 36 months at its catalog price: 10 %, 20 %, then 30 % off list.
    listed = list_price["result"]["rent"][0]["total_usd"]
    assert ten_off["result"]["rent"][0]["total_usd"] == pytest.approx(0.9 * listed, rel=1e-12)
    assert twenty_off["result"]["rent"][0]["total_usd"] == pytest.approx(0.8 * listed, rel=1e-12)
    assert thirty_off["result"]["rent"][0]["total_usd"] == pytest.approx(0.7 * listed, rel=1e-12)


def test_figures_cached_by_other_code_are_computed_again(api, scenario_id, monkeypatch):
    # Redis keeps the cache across a deployment: the code that follows an upgrade (its sources'
    # digest changes) does not serve the figures its predecessor computed.
    from tco.services import evaluation_cache

    first, _ = evaluate(api, scenario_id)
    monkeypatch.setattr(evaluation_cache, "code_version", lambda: "0123456789abcdef")
    upgraded, upgraded_queries = evaluate(api, scenario_id)
    again, again_queries = evaluate(api, scenario_id)

    assert upgraded == first == again  # nothing else changed
    assert again_queries < upgraded_queries / 2
    assert ScenarioSnapshot.objects.filter(scenario_id=scenario_id).count() == 2


def test_a_cache_that_cannot_answer_is_a_miss_not_a_500(api, scenario_id, settings):
    figures, _ = evaluate(api, scenario_id)
    # Redis down: nothing listens on port 1, so every read and write of the cache fails.
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": "redis://127.0.0.1:1/0"}}
    again, _ = evaluate(api, scenario_id)
    assert npv_saving(again) == npv_saving(figures)
    page = api.get(f"/admin/tco/scenario/{scenario_id}/change/")
    assert page.status_code == 200
    assert "Breakeven" in page.content.decode()
