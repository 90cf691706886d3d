"""Fixtures for run tests: a small, hand-checkable scenario on the real catalog.

Models are imported inside the fixtures, so the engine tests in this folder still run
without Django (``-p no:django``).
"""
from __future__ import annotations

from decimal import Decimal

import pytest


@pytest.fixture
def planner(db):
    """The user who owns the run scenario: an analyst of the Demo team, whose scenario it is."""
    from tests.teams.members import member

    return member("planner")


@pytest.fixture
def api(client, planner):
    """The test client, logged in as the planner."""
    client.force_login(planner)
    return client


@pytest.fixture
def media(settings, tmp_path):
    """Files the test writes (run results, downloads) go to a temporary folder."""
    settings.MEDIA_ROOT = tmp_path


@pytest.fixture
def run_scenario(catalog, planner):
    """One DGX H100 at $400,000 against one p5.48xlarge on demand at $50/h, over 36 months.

    Flat costs so a person can check figures: buying costs $400,000 up front plus energy of
    (3.06 + 7.14 u) kW x 730 h x $0.10 a month at utilisation u (the catalog puts idle power at
    30 % of the 10.2 kW maximum), $744.60 at u = 1 (PUE 1, no colocation fee, no discounting);
    renting costs 730 h x u x $50 a month.
    """
    from catalog.models import Accelerator
    from catalog.models import CloudOffering
    from catalog.models import FacilityProfile
    from catalog.models import SystemSku
    from tco.models import RentOption
    from tco.models import Scenario
    from tco.services.scenarios import scenario_save

    scenario = Scenario(
        team=planner.memberships.get().team, owner=planner, name="8x H100 vs p5",
        accelerator=Accelerator.objects.get(slug="h100-sxm-80gb"), accelerators=8,
        utilisation=Decimal("1"), system=SystemSku.objects.get(slug="dgx-h100"),
        system_price_usd=Decimal("400000"), facility=FacilityProfile.objects.get(slug="colo-air"),
        electricity_usd_per_kwh=Decimal("0.10"), pue=Decimal("1"),
        colocation_usd_per_kw_month=Decimal("0"), horizon_months=36,
        discount_rate_per_year=Decimal("0"), depreciation_months=60,
    )
    p5 = CloudOffering.objects.get(provider="aws", instance_type="p5.48xlarge", pricing_model="on_demand")
    option = RentOption(name="p5 on demand", offering=p5, price_usd_per_instance_hour=Decimal("50"))
    return scenario_save(scenario=scenario, rent_options=[option])
