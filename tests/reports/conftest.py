"""Report fixtures: a demo scenario owned by a planner, the planner's API client, media in a
temporary folder, and report content built straight from engine inputs (no database) for the
builder tests."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

import costmodel as engine
from catalog.exchange_rates.services import ecb_source
from catalog.models import Accelerator
from catalog.models import CloudOffering
from catalog.models import ExchangeRate
from catalog.models import FacilityProfile
from catalog.models import PricePoint
from catalog.models import Source
from catalog.models import SystemSku
from costmodel.tests.scenarios import rich_scenario
from reports.content import ReportContent
from reports.content import ReportMeta
from tco.models import ContractDiscount
from tco.models import ContractPriceBook
from tco.models import RentOption
from tco.models import Scenario
from tco.services.evaluation import evaluation_of
from tco.services.scenarios import scenario_save

FORMULA_LIKE_NAME = '=HYPERLINK("http://x","y")'
GENERATED_AT = dt.datetime(2026, 3, 2, 9, 30, tzinfo=dt.UTC)
PRICES_AS_OF = dt.date(2026, 3, 1)
# Summaries of a recorded one-axis sweep and Monte Carlo run, with figures no format shows whole.
SWEEP = {
    "points": 2,
    "axes": [{"path": "rent.2.price_usd_per_instance_hour", "count": 2, "min": 20.0, "max": 40.0}],
    "options": {
        "spot": {
            "buy_wins_share": 0.5,
            "npv_saving_usd": {"min": -5.123456, "max": 9.0, "mean": 1.9382716},
            "breakeven_month": {"min": 20.0, "max": None, "never_share": 0.5},
        }
    },
    "heatmap": {
        "x_path": "rent.2.price_usd_per_instance_hour",
        "y_path": None,
        "x_values": [20.0, 40.0],
        "y_values": [],
        "breakeven_month": {"spot": [[None, 20.0]]},
    },
}
MONTE_CARLO = {
    "samples": 100,
    "seed": 7,
    "buy_wins_probability": 0.61,
    "options": {
        "spot": {
            "buy_wins_probability": 0.61,
            "npv_saving_usd": {"p10": -1.5, "p50": 2.25, "p90": 4.125},
            "breakeven_month": {"p10": 12.0, "p50": 20.0, "p90": None, "never_share": 0.2},
            "histogram": {"bin_edges_usd": [-2.0, 0.0, 5.0], "counts": [39, 61]},
        }
    },
    "inputs": {"facility.electricity_usd_per_kwh": {"p10": 0.0812345, "p50": 0.1, "p90": 0.1234567,
                                                    "mean": 0.10123456}},
}
H100_DEMO = "8x H100 training cluster"


def content_for(
    inputs: engine.Scenario, *, name: str = "Rich scenario", paper_size: str = "a4", **extra
) -> ReportContent:
    """Report content of engine inputs, as the service builds it from a stored scenario."""
    meta = ReportMeta(
        scenario_name=name,
        author="Test Author",
        generated_at=GENERATED_AT,
        prices_as_of=PRICES_AS_OF,
        engine_version="test",
        paper_size=paper_size,
        labels={"System": "dgx-h100"},
    )
    return ReportContent(meta=meta, evaluation=evaluation_of(inputs), **extra)


@pytest.fixture(scope="module")
def rich_content() -> ReportContent:
    """Every cost line, financing and all three pricing models, under a formula-like name."""
    return content_for(rich_scenario(), name=FORMULA_LIKE_NAME)


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    """Exports write their files under a temporary MEDIA_ROOT."""
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def planner(db):
    """An analyst of the Demo team, whose scenarios the demo ones are."""
    from tests.teams.members import member

    return member("planner", first_name="Pat", last_name="Planner")


@pytest.fixture
def api(planner):
    """An API client authenticated as the planner."""
    client = APIClient()
    client.force_authenticate(planner)
    return client


@pytest.fixture
def scenario(demo_scenarios, planner):
    """The 8x H100 demo (catalog and typed prices, three rent options), owned by the planner."""
    scenario = demo_scenarios[H100_DEMO]
    scenario.owner = planner
    scenario.save()
    return scenario


@pytest.fixture
def money_scenario(catalog, planner):
    """The planner's team quotes the DGX H100 at EUR 250,000 (2026-03-03, 1 EUR = 1.1606 USD that
    day; 1.1649 the next) and has a 10 % discount on AWS; the scenario rents p5.48xlarge at its
    catalog price, at a 25 % tax rate on MACRS 5-year and an 8 % discount rate."""
    team = planner.memberships.get().team
    source = Source.objects.create(key="reseller-eur", title="Reseller quote in EUR", kind="quote",
                                   team=team)
    PricePoint.objects.create(system=SystemSku.objects.get(slug="dgx-h100"), amount=Decimal("250000"),
                              currency="EUR", as_of=dt.date(2026, 3, 3), source=source,
                              retrieved_at=timezone.now(), team=team)
    ExchangeRate.objects.create(base="EUR", quote="USD", rate=Decimal("1.1606"), on=dt.date(2026, 3, 3),
                                source=ecb_source())
    ExchangeRate.objects.create(base="EUR", quote="USD", rate=Decimal("1.1649"), on=dt.date(2026, 3, 4),
                                source=ecb_source())
    book = ContractPriceBook.objects.create(team=team, provider="aws", name="AWS EDP 2026",
                                            effective_from=dt.date(2026, 1, 1), source="EDP order form")
    ContractDiscount.objects.create(book=book, share=Decimal("0.10"))
    scenario = Scenario(
        team=team, owner=planner, name="EUR quote, AWS discount, tax", prices_as_of=dt.date(2026, 3, 4),
        accelerator=Accelerator.objects.get(slug="h100-sxm-80gb"), accelerators=8,
        utilisation=Decimal("0.8"), system=SystemSku.objects.get(slug="dgx-h100"),
        facility=FacilityProfile.objects.get(slug="colo-air"), electricity_usd_per_kwh=Decimal("0.10"),
        pue=Decimal("1.2"), colocation_usd_per_kw_month=Decimal("150"), horizon_months=36,
        discount_rate_per_year=Decimal("0.08"), depreciation_months=60,
        residual_value_share=Decimal("0.2"), tax_rate=Decimal("0.25"), tax_depreciation="macrs_5")
    p5 = CloudOffering.objects.get(provider="aws", instance_type="p5.48xlarge", pricing_model="on_demand")
    return scenario_save(scenario=scenario, rent_options=[RentOption(name="p5", offering=p5)])
