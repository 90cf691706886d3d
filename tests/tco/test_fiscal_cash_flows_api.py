"""Cash flows by fiscal year and quarter over the REST API, as JSON and as text/csv with the
same figures. The team's fiscal year starts in July; the scenario starts in May 2026, so month
0 ($400,000 + nothing) and month 1 ($744.60 of energy; rent $36,500) fall in FY2026, July 2026
opens FY2027 (12 x $744.60 = $8,935.20 to buy, 12 x $36,500 = $438,000 to rent)."""
from __future__ import annotations

import csv
import io
from datetime import date

import pytest


@pytest.fixture
def july_scenario(run_scenario):
    team = run_scenario.team
    team.fiscal_year_start_month = 7
    team.save()
    run_scenario.starts_on = date(2026, 5, 1)
    run_scenario.save()
    return run_scenario


def test_cash_flows_by_fiscal_year_starting_in_july(api, july_scenario):
    response = api.get(f"/api/v1/scenarios/{july_scenario.pk}/cash-flows/")
    assert response.status_code == 200
    data = response.json()
    assert data["fiscal_year_start_month"] == 7 and data["first_month"] == "2026-05"
    assert data["currency"] == "USD" and data["rent_options"] == ["p5 on demand"]
    rows = {row["period"]: row for row in data["rows"]}
    assert list(rows) == ["FY2026", "FY2027", "FY2028", "FY2029"]
    assert rows["FY2026"]["buy_pre_tax"] == 400_744.60
    assert rows["FY2027"]["buy_pre_tax"] == 8_935.20
    assert rows["FY2026"]["rent_0_pre_tax"] == 36_500.00
    assert rows["FY2027"]["rent_0_pre_tax"] == 438_000.00
    assert rows["FY2029"]["rent_0_pre_tax"] == 11 * 36_500.00
    assert rows["FY2027"]["book_depreciation"] == pytest.approx(12 * 400_000 / 60, abs=0.01)


def test_by_quarter(api, july_scenario):
    data = api.get(f"/api/v1/scenarios/{july_scenario.pk}/cash-flows/?period=quarter").json()
    assert [row["period"] for row in data["rows"][:3]] == ["FY2026 Q4", "FY2027 Q1", "FY2027 Q2"]
    assert data["rows"][1]["buy_pre_tax"] == 2_233.80


def test_the_csv_carries_the_same_figures_as_the_json(api, july_scenario):
    url = f"/api/v1/scenarios/{july_scenario.pk}/cash-flows/?period=quarter"
    json_rows = api.get(url).json()["rows"]
    response = api.get(url, HTTP_ACCEPT="text/csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    csv_rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(csv_rows) == len(json_rows)
    for json_row, csv_row in zip(json_rows, csv_rows, strict=True):
        assert csv_row["period"] == json_row["period"]
        for name in ("buy_pre_tax", "buy_after_tax", "rent_0_pre_tax", "tax_depreciation"):
            assert csv_row[name] == f"{json_row[name]:.2f}"
    assert api.get(url.replace("?", "?format=csv&"))["Content-Type"].startswith("text/csv")


def test_an_unknown_period_is_refused_naming_it(api, july_scenario):
    response = api.get(f"/api/v1/scenarios/{july_scenario.pk}/cash-flows/?period=week")
    assert response.status_code == 400
    assert response.json() == {"period": ["'week' is not one of month, quarter, year"]}
