"""A team reporting in euros reads euros everywhere: the scenario page, the PDF and the workbook
name no dollar, and every figure is the US-dollar figure divided by the rate.

Worked by hand: the scenario (``money_scenario``: a EUR 250,000 quote, a USD cloud price with a
10 % AWS discount, 25 % tax) states its rate date, 2026-03-04, when 1 EUR = 1.1649 USD. Reported
in US dollars the quote is 250,000 x 1.1649 = USD 291,225.00; reported in euros the cloud price
is its dollar price / 1.1649; so every total and NPV in euros is the dollar one / 1.1649.
"""
from __future__ import annotations

import datetime as dt
import re
import subprocess
import zipfile

import pytest
from openpyxl import load_workbook

from reports.builders.excel import build_workbook
from reports.builders.pdf import build_pdf
from reports.services import report_content_for
from tco.models import Scenario
from tests.reports.recalc import Values
from tests.reports.recalc import recalculate

RATE = 1.1649  # USD per EUR on 2026-03-04
CENT = 0.01


@pytest.fixture
def figures(money_scenario, api):
    """The scenario (its typed figures in US dollars) evaluated by the API with the team in US
    dollars, then in euros."""
    Scenario.objects.filter(pk=money_scenario.pk).update(rates_as_of=dt.date(2026, 3, 4), currency="USD")
    money_scenario.refresh_from_db()
    evaluate = f"/api/v1/scenarios/{money_scenario.pk}/evaluate/"
    usd = api.post(evaluate).json()
    team = money_scenario.team
    team.reporting_currency = "EUR"
    team.save()
    eur = api.post(evaluate).json()
    return money_scenario, usd, eur


def test_the_api_figures_in_euros_are_the_dollar_figures_over_the_rate(figures):
    _, usd, eur = figures
    assert (usd["currency"], eur["currency"]) == ("USD", "EUR")
    sides = [("buy", usd["result"]["buy"], eur["result"]["buy"]),
             ("rent", usd["result"]["rent"][0], eur["result"]["rent"][0])]
    for _, in_usd, in_eur in sides:
        for figure in ("total_usd", "npv_usd", "cost_per_useful_accelerator_hour_usd"):
            assert in_eur[figure] == pytest.approx(in_usd[figure] / RATE, rel=1e-9)
    # after-tax figures are served to the cent
    assert eur["after_tax"]["buy"]["npv_after_tax_usd"] == pytest.approx(
        usd["after_tax"]["buy"]["npv_after_tax_usd"] / RATE, abs=CENT)


def euros(amount: float) -> str:
    return f"EUR {amount:,.2f}"


def test_the_scenario_page_shows_euros_and_no_dollar(figures, admin_client):
    scenario, _, eur = figures
    page = admin_client.get(f"/admin/tco/scenario/{scenario.pk}/change/").content.decode()
    result = page[page.index('id="scenario-result"'):page.index("<fieldset")]
    result = re.sub(r"<script.*?</script>", "", result, flags=re.S)
    assert not re.findall(r".{0,80}\$.{0,40}", result)
    for amount in (eur["result"]["buy"]["total_usd"], eur["result"]["buy"]["npv_usd"],
                   eur["result"]["rent"][0]["npv_usd"]):
        assert euros(amount) in result
    # the chart's axis: the scenario has a tax rate, so its verdict (and chart) are after tax
    assert "Cumulative cost, discounted at 8.0%/yr, after tax (EUR)" in result


def test_the_pdf_shows_euros_and_no_dollar(figures, tmp_path):
    scenario, _, eur = figures
    pdf = tmp_path / "eur.pdf"
    pdf.write_bytes(build_pdf(report_content_for(scenario=scenario)))
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    assert "$" not in text
    assert euros(eur["result"]["buy"]["total_usd"]) in text
    assert euros(eur["result"]["rent"][0]["npv_usd"]) in text
    assert "Every money figure is in EUR" in text and "1 EUR = 1.1649 USD on 2026-03-04" in text


def test_the_workbook_formats_money_in_euros_and_recalculates_to_the_api(figures, tmp_path):
    scenario, _, eur = figures
    path = tmp_path / "eur.xlsx"
    path.write_bytes(build_workbook(report_content_for(scenario=scenario)))
    book = load_workbook(path)
    formats = {cell.number_format for sheet in book for row in sheet.iter_rows() for cell in row}
    texts = [cell.value for sheet in book for row in sheet.iter_rows() for cell in row
             if isinstance(cell.value, str) and not cell.value.startswith("=")]
    assert not [f for f in formats if "$" in f]
    assert '"EUR "#,##0.00;-"EUR "#,##0.00' in formats
    assert not [text for text in texts if "$" in text or "(USD)" in text]
    with zipfile.ZipFile(path) as archive:
        charts = [archive.read(name).decode() for name in archive.namelist() if "charts/chart" in name]
    assert charts and not [chart for chart in charts if "&quot;$&quot;" in chart]
    assert any("Cumulative cost (EUR)" in chart for chart in charts)

    (recalculated,) = recalculate([path], tmp_path)
    values = Values(recalculated)
    for name, figure in (("buy_total_usd", eur["result"]["buy"]["total_usd"]),
                         ("rent1_total_usd", eur["result"]["rent"][0]["total_usd"]),
                         ("after_tax_buy_npv_usd", eur["after_tax"]["buy"]["npv_after_tax_usd"])):
        assert values[name] == pytest.approx(figure, abs=CENT)
