"""Two teams, alpha and beta, each with a scenario a person can check by hand; alpha has a
viewer, an analyst and an approver, beta an analyst (the outsider to alpha's objects).

The scenario: one DGX H100 bought at $400,000 against one p5.48xlarge on demand at $50/h, over
36 months, no discounting. Buying costs $400,000 up front plus energy of (3.06 + 7.14 u) kW x
730 h x $0.10 a month at utilisation u ($744.60 at u = 1); renting costs 730 h x u x $50 a
month. At u = 1 buying breaks even in the first month m with 400,000 + 744.60 m <= 36,500 m,
i.e. m >= 11.19: month 12.
"""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from catalog.models import Accelerator
from catalog.models import CloudOffering
from catalog.models import FacilityProfile
from catalog.models import SystemSku
from reports.models import ReportExport
from tco.models import AlertKind
from tco.models import PriceAlert
from tco.models import RentOption
from tco.models import Scenario
from tco.models import SweepRun
from tco.models import Winner
from tco.services.runs import sweep_run_start
from tco.services.scenarios import scenario_save
from teams.models import Role
from tests.teams.members import member
from tests.teams.members import team


def p5_on_demand() -> CloudOffering:
    return CloudOffering.objects.get(provider="aws", instance_type="p5.48xlarge", pricing_model="on_demand")


def hand_scenario(team_slug: str, owner, **changes) -> Scenario:
    """The hand-checkable scenario of this module's docstring, saved in the team ``team_slug``."""
    inputs = {
        "name": f"8x H100 vs p5 ({team_slug})", "accelerator": Accelerator.objects.get(slug="h100-sxm-80gb"),
        "accelerators": 8, "utilisation": Decimal("1"), "system": SystemSku.objects.get(slug="dgx-h100"),
        "system_price_usd": Decimal("400000"), "facility": FacilityProfile.objects.get(slug="colo-air"),
        "electricity_usd_per_kwh": Decimal("0.10"), "pue": Decimal("1"),
        "colocation_usd_per_kw_month": Decimal("0"), "horizon_months": 36,
        "discount_rate_per_year": Decimal("0"), "depreciation_months": 60, **changes,
    }
    scenario = Scenario(team=team(team_slug), owner=owner, **inputs)
    option = RentOption(name="p5 on demand", offering=p5_on_demand(),
                        price_usd_per_instance_hour=Decimal("50"))
    return scenario_save(scenario=scenario, rent_options=[option])


def client_of(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _person(username: str, team_slug: str, role: Role):
    """A fixture giving ``username``, a member of the team ``team_slug`` with ``role``."""
    @pytest.fixture
    def person(db):
        return member(username, of=team_slug, role=role)

    return person


viewer = _person("vera", "alpha", Role.VIEWER)
analyst = _person("ana", "alpha", Role.ANALYST)
approver = _person("april", "alpha", Role.APPROVER)
outsider = _person("otto", "beta", Role.ANALYST)  # alpha's objects do not exist for them


@pytest.fixture
def alpha_scenario(catalog, analyst):
    return hand_scenario("alpha", analyst)


@pytest.fixture
def beta_scenario(catalog, outsider):
    return hand_scenario("beta", outsider)


@pytest.fixture
def alpha_run(alpha_scenario, analyst, django_capture_on_commit_callbacks) -> SweepRun:
    """A sweep over alpha's scenario, queued (no worker runs it)."""
    with django_capture_on_commit_callbacks():
        return sweep_run_start(scenario=alpha_scenario, kind="sweep", created_by=analyst, spec={
            "axes": [{"path": "workload.utilisation", "values": [0.5, 1.0]}]})


@pytest.fixture
def alpha_export(alpha_scenario) -> ReportExport:
    return ReportExport.objects.create(scenario=alpha_scenario, format="xlsx",
                                       prices_as_of=dt.date(2026, 1, 1),
                                       scenario_updated_at=alpha_scenario.updated_at)


@pytest.fixture
def alpha_alert(alpha_scenario) -> PriceAlert:
    return PriceAlert.objects.create(
        scenario=alpha_scenario, kind=AlertKind.BREAKEVEN_MOVED, rent_option="p5 on demand",
        old_price_usd_per_instance_hour=Decimal("50"), new_price_usd_per_instance_hour=Decimal("25"),
        old_winner=Winner.BUY, new_winner=Winner.BUY, old_breakeven_month=12, new_breakeven_month=23,
        old_npv_saving_usd=Decimal("887194.40"), new_npv_saving_usd=Decimal("230194.40"),
        message="moved")


def scenario_body(**overrides) -> dict:
    """The hand-checkable scenario in the API's shape."""
    data = {
        "name": "8x H100", "accelerator": "h100-sxm-80gb", "accelerators": 8, "utilisation": "1",
        "system": "dgx-h100", "system_price_usd": "400000", "facility": "colo-air",
        "electricity_usd_per_kwh": "0.10", "pue": "1", "colocation_usd_per_kw_month": "0",
        "horizon_months": 36, "discount_rate_per_year": "0", "depreciation_months": 60,
        "rent_options": [{"offering": p5_on_demand().pk, "price_usd_per_instance_hour": "50"}],
    }
    return {**data, **overrides}
