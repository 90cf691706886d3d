"""The figures shown of a scenario are kept under a key correct by construction: every model the
evaluation and its renderings read is declared in the registry of reads, and a change of each
thing the figures depend on shows new figures on both the admin page and the API.

The scenario, worked by hand: one DGX H100 (10.2 kW at full load) typed at EUR 400,000, reported
in USD, at a site selling electricity at $0.10/kWh, against the catalog's AWS p5.48xlarge on
demand held all 730 hours of a month, over 36 months, at utilisation 1, PUE 1, no colocation
fee, no discounting, under a contract 10 % off list, at yesterday's 1 EUR = 1.10 USD. Buying
wins, so the page's margin of the winner is the API's NPV saving of buying; each change below
moves it by a sum worked out here.
"""
from __future__ import annotations

import re
from datetime import date
from datetime import timedelta
from decimal import Decimal

import pytest
from django.apps import apps
from django.core.cache import cache
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from catalog.models import Accelerator
from catalog.models import CoolingTechnology
from catalog.models import ExchangeRate
from catalog.models import FacilityProfile
from catalog.models import PricePoint
from catalog.models import Source
from catalog.models import SystemSku
from sites.models import PowerFeed
from sites.models import PowerPanel
from sites.models import RackPosition
from sites.models import Room
from sites.models import Site
from sites.models import SiteCooling
from tco.admin.result import PAGE
from tco.admin.result import scenario_result
from tco.api.views import API_BODY
from tco.models import ContractDiscount
from tco.models import ContractPriceBook
from tco.models import RentOption
from tco.models import Scenario
from tco.services.evaluation_cache import evaluation_key
from tco.services.evaluation_reads import read_models
from tco.services.figures import scenario_figures
from tco.services.scenarios import scenario_approve
from tco.services.scenarios import scenario_save
from teams.models import Role
from tests.tco.scenario_body import p5
from tests.teams.members import member

pytestmark = pytest.mark.django_db
HOURS = 730 * 36  # every hour of 36 months
KW = Decimal("10.2")  # a DGX H100 at full load


@pytest.fixture
def analyst(db):
    return member("ana", of="planning")


@pytest.fixture
def site(catalog):
    """A hall with one rack fed by one 230 V, 100 A feed (18.4 kW usable) and 30 kW of air cooling."""
    site = Site.objects.create(name="Lyon 1", slug="lyon-1", electricity_usd_per_kwh=Decimal("0.10"))
    room = Room.objects.create(site=site, name="Hall A")
    rack = RackPosition.objects.create(site=site, room=room, name="A01")
    panel = PowerPanel.objects.create(site=site, room=room, name="PP-A")
    PowerFeed.objects.create(panel=panel, rack=rack, name="A01-A", voltage=Decimal("230"),
                             amperage=Decimal("100"), max_utilisation=Decimal("0.8"))
    SiteCooling.objects.create(site=site, technology=CoolingTechnology.objects.get(slug="air-in-row"),
                               capacity_kw=Decimal("30"))
    site.refresh_from_db()
    return site


@pytest.fixture
def scenario(site, analyst):
    team = analyst.memberships.get().team
    book = ContractPriceBook.objects.create(team=team, provider="aws", name="AWS EDP",
                                            effective_from=date(2020, 1, 1), source="EDP order form")
    ContractDiscount.objects.create(book=book, share=Decimal("0.10"))
    ExchangeRate.objects.create(base="EUR", quote="USD", rate=Decimal("1.10"), source=Source.objects.first(),
                                on=timezone.localdate() - timedelta(days=1))
    draft = Scenario(
        team=team, owner=analyst, name="One DGX at Lyon", currency="EUR", reporting_currency="USD",
        accelerator=Accelerator.objects.get(slug="h100-sxm-80gb"), accelerators=8,
        utilisation=Decimal("1"), system=SystemSku.objects.get(slug="dgx-h100"),
        system_price_usd=Decimal("400000"), facility=FacilityProfile.objects.get(slug="colo-air"),
        site=site, pue=Decimal("1"), colocation_usd_per_kw_month=Decimal("0"), horizon_months=36,
        discount_rate_per_year=Decimal("0"), depreciation_months=60)
    return scenario_save(scenario=draft, rent_options=[RentOption(name="p5 on demand", offering=p5())])


def shown(client, scenario: Scenario) -> tuple[float, dict]:
    """The API's NPV saving of buying, after checking the page says the same; the API's body."""
    answer = client.post(f"/api/v1/scenarios/{scenario.pk}/evaluate/")
    assert answer.status_code == 200, answer.json()
    body = answer.json()
    saving = body["result"]["rent"][0]["npv_saving_usd"]
    assert scenario_result(Scenario.objects.get(pk=scenario.pk))["npv_saving"] == f"${saving:,.2f}"
    return saving, body


def p5_price(body: dict) -> Decimal:
    (price,) = [p for p in body["prices"] if p["path"] == "rent.0.price_usd_per_instance_hour"]
    return Decimal(price["amount"])


def test_each_change_the_figures_depend_on_shows_new_figures_on_the_page_and_in_the_api(
        client, analyst, scenario, site, monkeypatch):
    from tco.services import evaluation_cache

    cache.clear()
    client.force_login(analyst)
    saving, body = shown(client, scenario)
    assert shown(client, scenario)[0] == saving  # kept: nothing changed

    def moved_by(expected: Decimal) -> None:
        nonlocal saving, body
        before = saving
        saving, body = shown(client, scenario)
        assert saving == pytest.approx(before + float(expected), abs=0.01)

    # The scenario: PUE 1 -> 2 doubles the energy bought, 10.2 kW x 26,280 h x $0.10 more.
    scenario.pue = Decimal("2")
    scenario.save()
    moved_by(-KW * HOURS * Decimal("0.10"))
    # A price corrected in place (no signal sees a bulk update): $1 an hour more, 10 % off.
    PricePoint.objects.filter(offering=p5()).update(amount=F("amount") + 1)
    moved_by(Decimal("0.9") * HOURS)
    # Today's exchange rate, 1 EUR = 1.11 USD after yesterday's 1.10: the EUR 400,000 system
    # costs $4,000 more.
    ExchangeRate.objects.create(base="EUR", quote="USD", rate=Decimal("1.11"), on=timezone.localdate(),
                                source=Source.objects.first())
    moved_by(Decimal("-4000"))
    # The contract's discount 10 % -> 20 %, as the admin's inline saves it: a tenth of the list
    # price of every hour less.
    discount = ContractDiscount.objects.get(book__team=scenario.team)
    discount.share = Decimal("0.20")
    discount.save()
    moved_by(-Decimal("0.1") * HOURS * p5_price(body))
    # The site's electricity $0.10 -> $0.20 a kWh, at PUE 2.
    site.electricity_usd_per_kwh = Decimal("0.20")
    site.save()
    moved_by(-KW * HOURS * Decimal("0.10") * 2)
    # A row of the catalog: the system draws 1 kW more at full load, at $0.20 a kWh and PUE 2.
    system = SystemSku.objects.get(slug="dgx-h100")
    system.power_max_kw += 1
    system.save()
    moved_by(-HOURS * Decimal("0.20") * 2)
    # The code: a row changed where no signal sees it is served stale by the code that kept the
    # figures, and computed again by the next code (its digest is in the key).
    SystemSku.objects.filter(pk=system.pk).update(power_max_kw=F("power_max_kw") + 1)
    moved_by(Decimal("0"))
    monkeypatch.setattr(evaluation_cache, "code_version", lambda: "0123456789abcdef")
    moved_by(-HOURS * Decimal("0.20") * 2)


def table_models() -> dict[str, type]:
    return {model._meta.db_table: model for model in apps.get_models()}


def tables_read(queries: list[dict]) -> set[str]:
    """The tables the SELECT statements among ``queries`` read."""
    return {table for query in queries if query["sql"].lstrip().upper().startswith(("SELECT", "WITH"))
            for table in re.findall(r'(?:FROM|JOIN)\s+"?(\w+)"?', query["sql"])}


def test_every_model_the_figures_read_is_in_the_registry(client, analyst, scenario, demo_scenarios):
    # Every kind of scenario: at a site under a contract (its rooms, racks, feeds, cooling and
    # terms), the demo's (per-token APIs, sizing, the cheapest region), an approved one (its
    # pinned snapshot, today's prices, its alerts); each shown on the page and by the API.
    cache.clear()
    approved = scenario_approve(scenario=demo_scenarios["8x H100 training cluster"],
                                approved_by=member("april", role=Role.APPROVER))
    shown_scenarios = [scenario, approved, *demo_scenarios.values()]
    with CaptureQueriesContext(connection) as queries:
        for each in shown_scenarios:
            for showing in (PAGE, API_BODY):
                figures = scenario_figures(scenario=each, shown_as=showing)
                list(figures.alerts() or ())
            evaluation_key(each)
    by_table = table_models()
    read = {by_table[table] for table in tables_read(queries.captured_queries) if table in by_table}

    assert {Site, Room, RackPosition, PowerPanel, PowerFeed, SiteCooling, ContractPriceBook,
            ContractDiscount} <= read  # the recording saw the site's rows and the contract
    unregistered = sorted(model.__name__ for model in read - read_models())
    assert unregistered == []
