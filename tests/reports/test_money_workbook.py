"""The workbook of a scenario with a foreign currency, a contract discount and tax, recalculated
by LibreOffice, equals the API to the cent; the sheet and the PDF name the rates and the book.

The planner's team quotes the DGX H100 at EUR 250,000 (2026-03-03, 1 EUR = 1.1606 USD that
day) and has a 10 % discount on AWS; the scenario rents p5.48xlarge at its catalog price, at a
25 % tax rate on MACRS 5-year and an 8 % discount rate (``money_scenario`` in conftest.py).
"""
from __future__ import annotations

from numpy.testing import assert_allclose

from reports.builders.excel import MONEY_SHEET
from reports.builders.excel import build_workbook
from reports.builders.pdf import build_pdf
from reports.services import report_content_for
from tests.reports.recalc import Values
from tests.reports.recalc import recalculate

CENT = 0.01


def test_the_recalculated_workbook_equals_the_api_to_the_cent(money_scenario, api, tmp_path):
    served = api.post(f"/api/v1/scenarios/{money_scenario.pk}/evaluate/").json()
    assert served["rates"][0]["rate"] == "1.1606"
    assert served["contracts"][0]["book"].startswith("AWS EDP 2026")
    content = report_content_for(scenario=money_scenario)
    path = tmp_path / "money.xlsx"
    path.write_bytes(build_workbook(content))
    (recalculated,) = recalculate([path], tmp_path)
    values = Values(recalculated)

    after_tax = served["after_tax"]
    assert_allclose(values["buy_total_usd"], served["result"]["buy"]["total_usd"], atol=CENT, rtol=0)
    assert_allclose(values["rent1_total_usd"], served["result"]["rent"][0]["total_usd"], atol=CENT, rtol=0)
    assert_allclose(values["after_tax_buy_total_usd"], after_tax["buy"]["total_after_tax_usd"],
                    atol=CENT, rtol=0)
    assert_allclose(values["after_tax_buy_npv_usd"], after_tax["buy"]["npv_after_tax_usd"],
                    atol=CENT, rtol=0)
    assert_allclose(values["rent1_after_tax_total_usd"], after_tax["rent"][0]["total_after_tax_usd"],
                    atol=CENT, rtol=0)
    assert_allclose(values["rent1_after_tax_npv_usd"], after_tax["rent"][0]["npv_after_tax_usd"],
                    atol=CENT, rtol=0)
    assert_allclose(values.cells("after_tax_buy_flow"), after_tax["buy"]["after_tax_per_month_usd"],
                    atol=CENT, rtol=0)
    sheet = values.workbook[MONEY_SHEET]
    texts = {str(cell.value) for row in sheet.iter_rows() for cell in row if cell.value is not None}
    assert {"EUR", "USD", "1.1606", "2026-03-03", "10.00% off all services"} <= texts
    assert any(text.startswith("AWS EDP 2026") for text in texts)


def test_the_pdf_shows_the_rates_and_the_book(money_scenario, tmp_path):
    import subprocess

    pdf = tmp_path / "money.pdf"
    pdf.write_bytes(build_pdf(report_content_for(scenario=money_scenario)))
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    assert "1 EUR = 1.1606 USD on 2026-03-03" in text
    assert "AWS EDP 2026" in text and "10.00% off all" in text  # the cell wraps before "services"
    assert "By fiscal year" in text and "FY2026" in text and "By fiscal quarter" in text


def test_the_after_tax_table_lists_the_per_token_api_too(money_scenario, api, tmp_path):
    from decimal import Decimal

    from tco.models import ApiOption
    from tco.services.scenarios import scenario_save

    for name, value in (("tokens_per_s_per_accelerator", "1000"), ("token_input_share", "0"),
                        ("token_cached_input_share", "0"), ("token_output_share", "1")):
        setattr(money_scenario, name, Decimal(value))
    scenario_save(scenario=money_scenario, rent_options=list(money_scenario.rent_options.all()),
                  api_options=[ApiOption(name="quoted API", usd_per_million_input=Decimal("0.5"),
                                         usd_per_million_cached_input=Decimal("0.5"),
                                         usd_per_million_output=Decimal("0.5"))])
    served = api.post(f"/api/v1/scenarios/{money_scenario.pk}/evaluate/").json()
    (api_after_tax,) = served["after_tax"]["api"]
    # Expensed when paid at 25 %: three quarters of what it costs before tax.
    assert_allclose(api_after_tax["total_after_tax_usd"], 0.75 * api_after_tax["total_pre_tax_usd"],
                    atol=CENT, rtol=0)
    path = tmp_path / "money.xlsx"
    path.write_bytes(build_workbook(report_content_for(scenario=money_scenario)))
    (recalculated,) = recalculate([path], tmp_path)
    values = Values(recalculated)
    assert_allclose(values["api1_after_tax_total_usd"], api_after_tax["total_after_tax_usd"],
                    atol=CENT, rtol=0)
    assert_allclose(values["api1_after_tax_npv_usd"], api_after_tax["npv_after_tax_usd"],
                    atol=CENT, rtol=0)
    headings = {str(cell.value) for row in values.workbook[MONEY_SHEET].iter_rows() for cell in row}
    assert "Pay per token: quoted API: after tax" in headings
