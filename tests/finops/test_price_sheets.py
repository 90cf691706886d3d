"""The owned fleet's price sheets: OpenCost's default.json written for the 8x H100 demo reads
back the scenario's owned cost per accelerator-hour; its CSV pricing and SkyPilot's pricing too."""
from __future__ import annotations

import csv
import datetime as dt
import io
import json
from decimal import Decimal

import pytest
import yaml
from rest_framework.test import APIClient

from catalog.exchange_rates.services import ecb_source
from catalog.models import ExchangeRate
from tco.services.evaluation import scenario_evaluate

H100 = "8x H100 training cluster"


@pytest.fixture
def client(admin_user):
    client = APIClient()
    client.force_authenticate(admin_user)
    return client


@pytest.mark.django_db
def test_opencost_default_json_gives_the_owned_cost_per_gpu_hour(demo, client, tmp_path):
    scenario = demo[0][H100]
    owned = float(scenario_evaluate(scenario=scenario).result.buy.cost_per_useful_accelerator_hour_usd)
    response = client.get(f"/api/v1/scenarios/{scenario.pk}/price-sheets/opencost-default.json")
    assert response.status_code == 200
    path = tmp_path / "default.json"
    path.write_bytes(response.content)
    sheet = json.loads(path.read_text())
    assert sheet["provider"] == "custom"
    assert all(isinstance(value, str) for value in sheet.values())
    assert float(sheet["GPU"]) == pytest.approx(owned, abs=1e-6)
    assert float(sheet["CPU"]) == float(sheet["RAM"]) == 0.0
    assert "80% utilisation" in sheet["description"]
    assert sheet["currencyCode"] == "USD"
    # By hand: a DGX H100 costs a few dollars per GPU-hour owned, below AWS p5 on demand ($55/h / 8).
    assert 1.0 < owned < 55.04 / 8


@pytest.mark.django_db
def test_opencost_csv_and_skypilot_price_the_same_rate(demo, client):
    scenario = demo[0][H100]
    owned = float(scenario_evaluate(scenario=scenario).result.buy.cost_per_useful_accelerator_hour_usd)
    rows = list(csv.DictReader(io.StringIO(client.get(
        f"/api/v1/scenarios/{scenario.pk}/price-sheets/opencost-pricing.csv").content.decode())))
    by_class = {row["AssetClass"]: row for row in rows}
    assert float(by_class["gpu"]["MarketPriceHourly"]) == pytest.approx(owned, abs=1e-6)
    assert float(by_class["node"]["MarketPriceHourly"]) == pytest.approx(8 * owned, abs=1e-5)
    assert by_class["node"]["InstanceType"] == "dgx-h100"
    config = yaml.safe_load(client.get(
        f"/api/v1/scenarios/{scenario.pk}/price-sheets/skypilot-config.yaml").content)
    assert config["kubernetes"]["pricing"]["accelerators"]["H100"] == pytest.approx(owned, abs=1e-6)


@pytest.mark.django_db
def test_a_euro_scenarios_sheets_say_euro_and_skypilot_refuses_it(demo, client):
    scenario = demo[0][H100]
    scenario.reporting_currency = "EUR"
    scenario.rates_as_of = dt.date(2026, 12, 31)
    scenario.save()
    ExchangeRate.objects.create(base="EUR", quote="USD", rate=Decimal("1.25"), on=scenario.rates_as_of,
                                source=ecb_source())
    euros = float(scenario_evaluate(scenario=scenario).result.buy.cost_per_useful_accelerator_hour_usd)
    sheet = client.get(f"/api/v1/scenarios/{scenario.pk}/price-sheets/opencost-default.json").json()
    assert sheet["currencyCode"] == "EUR" and float(sheet["GPU"]) == pytest.approx(euros, abs=1e-6)
    assert f"EUR {euros:,.4f} per GPU-hour" in sheet["description"]
    refused = client.get(f"/api/v1/scenarios/{scenario.pk}/price-sheets/skypilot-config.yaml")
    assert refused.status_code == 400
    assert "SkyPilot compares hourly prices in US dollars" in refused.json()["reporting_currency"][0]


@pytest.mark.django_db
def test_focus_files_from_the_api(demo, client):
    scenarios, plan = demo
    scenario = scenarios[H100]
    response = client.get(f"/api/v1/scenarios/{scenario.pk}/focus/?start=2027-01")
    assert response.status_code == 200 and response["Content-Type"] == "text/csv"
    header = response.content.decode().splitlines()[0].split(",")
    assert header[:3] == ["AvailabilityZone", "BilledCost", "BillingAccountId"] and "x_ScenarioId" in header
    assert "2027-01-01T00:00:00Z" in response.content.decode()
    parquet = client.get(f"/api/v1/plans/{plan.pk}/focus/?file=parquet")
    assert parquet.status_code == 200 and parquet.content[:4] == b"PAR1"
    bad = client.get(f"/api/v1/scenarios/{scenario.pk}/focus/?start=January")
    assert bad.status_code == 400 and "start" in bad.json()
    assert client.get(f"/api/v1/scenarios/{scenario.pk}/focus/?file=xls").json() == {
        "file": ["'xls' is not csv or parquet"]}


@pytest.mark.django_db
def test_names_that_spreadsheets_run_or_yaml_reads_as_keys_stay_text(demo, client):
    from tco.models import Scenario

    scenario = demo[0][H100]
    scenario = Scenario.objects.get(pk=scenario.pk)
    scenario.name = '=HYPERLINK("http://evil.example")\nevil: 1\r\nworse: 2'
    scenario.save()
    focus = client.get(f"/api/v1/scenarios/{scenario.pk}/focus/?start=2027-01").content.decode()
    cells = [cell for row in csv.reader(io.StringIO(focus)) for cell in row]

    def number(cell: str) -> bool:
        try:
            float(cell)
        except ValueError:
            return False
        return True

    assert any(cell.startswith("'=HYPERLINK(") for cell in cells)  # SubAccountName
    assert [cell for cell in cells if cell[:1] in ("=", "+", "-", "@") and not number(cell)] == []
    config = yaml.safe_load(client.get(
        f"/api/v1/scenarios/{scenario.pk}/price-sheets/skypilot-config.yaml").content)
    assert list(config) == ["kubernetes"]
