"""Several scenarios side by side: the same figures as each scenario's own evaluation."""
from __future__ import annotations

import io
import math
import re
import subprocess
from datetime import date
from decimal import Decimal

import pytest
from openpyxl import load_workbook

from catalog.exchange_rates.services import ecb_source
from catalog.models import ExchangeRate
from costmodel.vocabulary import Kind
from costmodel.vocabulary import show
from reports.builders.excel import XLSX_CONTENT_TYPE
from reports.formatting import format_usd_cents
from tco.models import Scenario
from tco.services.evaluation import scenario_evaluate
from tests.reports.recalc import recalculate
from tests.teams.members import member

pytestmark = pytest.mark.django_db


def test_the_api_shows_each_scenario_as_its_own_evaluation_does(client, demo_scenarios):
    first = demo_scenarios["8x H100 training cluster"]
    second = demo_scenarios["Inference fleet: 32x L40S vs cloud"]
    client.force_login(member("viewer", of=first.team.slug))

    response = client.get(f"/api/v1/scenarios/side-by-side/?ids={first.pk},{second.pk}")

    assert response.status_code == 200, response.json()
    columns = response.json()
    assert [c["scenario_id"] for c in columns] == [first.pk, second.pk]
    for column, scenario in zip(columns, (first, second), strict=True):
        own = client.post(f"/api/v1/scenarios/{scenario.pk}/evaluate/").json()["result"]
        verdict = own["verdict"]
        assert math.isclose(column["buy_total_usd"], own["buy"]["total_usd"], rel_tol=1e-12)
        assert math.isclose(column["buy_npv_usd"], own["buy"]["npv_usd"], rel_tol=1e-12)
        # The verdict's winner and margin, and every option it ranks, in its order.
        assert column["winner"] == verdict["cheapest"]["label"]
        assert column["margin_usd"] == pytest.approx(verdict["margin_usd"], abs=0.01)
        assert [o["label"] for o in column["options"]] == [o["label"] for o in verdict["options"]]
        # Buying's rival: the cheapest option other than buying, and the headline's breakeven.
        rival = next(o for o in verdict["options"] if o["kind"] != "buy")
        assert column["cheapest_rent"] == rival["label"]
        assert column["npv_saving_usd"] == pytest.approx(rival["npv_usd"] - own["buy"]["npv_usd"], abs=0.01)
        assert column["breakeven_month"] == verdict["breakeven_month"]


@pytest.mark.parametrize("path", ["side-by-side/", "side-by-side/pdf/"], ids=["figures", "pdf"])
def test_one_scenario_is_refused_naming_the_field(client, demo_scenarios, path):
    first = demo_scenarios["8x H100 training cluster"]
    client.force_login(member("viewer", of=first.team.slug))
    response = client.get(f"/api/v1/scenarios/{path}?ids={first.pk}")
    assert response.status_code == 400
    assert "ids" in response.json()


def test_scenarios_reported_in_different_currencies_are_refused(client, demo_scenarios):
    first = demo_scenarios["8x H100 training cluster"]
    second = demo_scenarios["Inference fleet: 32x L40S vs cloud"]
    ExchangeRate.objects.create(base="EUR", quote="USD", rate=Decimal("1.1649"), on=date(2026, 3, 4),
                                source=ecb_source())
    Scenario.objects.filter(pk=second.pk).update(reporting_currency="EUR", rates_as_of=date(2026, 3, 4))
    client.force_login(member("viewer", of=first.team.slug))
    response = client.get(f"/api/v1/scenarios/side-by-side/?ids={first.pk},{second.pk}")
    assert response.status_code == 400
    assert response.json()["ids"] == [
        "the scenarios are reported in EUR and USD: side by side they need one reporting currency"]


def test_the_admin_action_shows_a_table_and_a_chart(admin_client, demo_scenarios):
    ids = [s.pk for s in demo_scenarios.values()][:2]
    response = admin_client.post("/admin/tco/scenario/", {
        "action": "side_by_side_selected", "_selected_action": ids})
    page = response.content.decode()
    assert response.status_code == 200
    assert 'id="side-by-side"' in page and "<svg" in page
    assert "Margin over the next cheapest (NPV)" in page and "NPV saving of buying" not in page
    # Money with its sign and separators, unit prices to the cent, right-aligned: as on each page.
    for scenario in [s for s in demo_scenarios.values() if s.pk in ids]:
        result = scenario_evaluate(scenario=scenario).result
        assert f'<td class="num">{show(float(result.buy.total_usd), Kind.USD)}</td>' in page
        hourly = float(result.buy.cost_per_useful_accelerator_hour_usd)
        assert f'<td class="num">{show(hourly, Kind.USD_PRICE)}</td>' in page


def test_one_excel_sheet_shows_each_scenario_as_its_own_page_does(client, demo_scenarios, tmp_path):
    first = demo_scenarios["8x H100 training cluster"]
    second = demo_scenarios["Inference fleet: 32x L40S vs cloud"]
    client.force_login(member("viewer", of=first.team.slug))

    response = client.get(f"/api/v1/scenarios/side-by-side/workbook/?ids={first.pk},{second.pk}")

    assert response.status_code == 200
    assert response["Content-Type"] == XLSX_CONTENT_TYPE
    path = tmp_path / "side-by-side.xlsx"
    path.write_bytes(response.content)
    ws = load_workbook(path, data_only=True)["Side by side"]
    rows = {row[0]: row[1:3] for row in ws.iter_rows(values_only=True) if row[0]}
    assert rows["Figure"] == (first.name, second.name)
    saving, rank = "Saving by buying against its rival (NPV)", "Rank by saving (1 = buying saves most)"
    for index, scenario in enumerate((first, second)):
        own = client.post(f"/api/v1/scenarios/{scenario.pk}/evaluate/").json()["result"]
        verdict = own["verdict"]
        rival = next(o for o in verdict["options"] if o["kind"] != "buy")
        assert rows["Buy: total cost"][index] == pytest.approx(own["buy"]["total_usd"], abs=0.01)
        assert rows["Buy: NPV of costs"][index] == pytest.approx(own["buy"]["npv_usd"], abs=0.01)
        assert rows["Cheapest option (winner)"][index] == verdict["cheapest"]["label"]
        assert rows["Buying's rival (the cheapest other option)"][index] == rival["label"]
        # A formula (rival NPV - buy NPV), stored with its value.
        assert rows[saving][index] == pytest.approx(rival["npv_usd"] - own["buy"]["npv_usd"], abs=0.01)
        assert rows["Buying breaks even against it (month, discounted)"][index] == (
            verdict["breakeven_month"] or "never")
    savings = rows[saving]
    assert sorted(rows[rank]) == [1, 2]
    assert rows[rank][savings.index(max(savings))] == 1
    # LibreOffice computes the same values from the formulas.
    (recalculated,) = recalculate([path], tmp_path)
    again = {row[0]: row[1:3] for row in load_workbook(recalculated, data_only=True)["Side by side"]
             .iter_rows(values_only=True) if row[0]}
    assert again[saving] == pytest.approx(savings, abs=1e-6)
    assert again[rank] == rows[rank]


def test_the_admin_side_by_side_page_links_its_workbook(admin_client, demo_scenarios):
    ids = [s.pk for s in demo_scenarios.values()][:2]
    page = admin_client.post("/admin/tco/scenario/", {
        "action": "side_by_side_selected", "_selected_action": ids}).content.decode()
    link = re.search(r'href="([^"]*side-by-side/workbook/[^"]*)"', page).group(1)

    response = admin_client.get(link.replace("&amp;", "&"))

    assert response.status_code == 200
    assert response["Content-Type"] == XLSX_CONTENT_TYPE
    assert load_workbook(io.BytesIO(response.content)).sheetnames == ["Side by side"]


def _pdf_text(pdf: bytes, tmp_path) -> str:
    path = tmp_path / "side-by-side.pdf"
    path.write_bytes(pdf)
    # Reading order, not layout: a wrapped cell stays whole beside its neighbours.
    return subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True,
                          check=True, timeout=60).stdout


def test_the_api_pdf_shows_the_figures_of_the_json_view(client, demo_scenarios, tmp_path):
    first = demo_scenarios["8x H100 training cluster"]
    second = demo_scenarios["Inference fleet: 32x L40S vs cloud"]
    client.force_login(member("viewer", of=first.team.slug))
    ids = f"{first.pk},{second.pk}"

    response = client.get(f"/api/v1/scenarios/side-by-side/pdf/?ids={ids}")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    text = re.sub(r"\s+", "", _pdf_text(response.content, tmp_path))
    for column in client.get(f"/api/v1/scenarios/side-by-side/?ids={ids}").json():
        for figure in ("buy_total_usd", "buy_npv_usd", "rent_npv_usd", "npv_saving_usd"):
            assert format_usd_cents(column[figure]).replace(" ", "") in text, figure
    assert "Cumulativecost" in text


def test_the_admin_pdf_action_downloads_the_side_by_side_report(admin_client, demo_scenarios, tmp_path):
    ids = [s.pk for s in demo_scenarios.values()][:2]
    response = admin_client.post("/admin/tco/scenario/", {
        "action": "side_by_side_pdf_selected", "_selected_action": ids})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    words = " ".join(_pdf_text(response.content, tmp_path).split())
    assert "Saving by buying against its rival (NPV)" in words
