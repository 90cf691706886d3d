"""The workbook of a scenario with a foreign currency, a contract discount and tax, recalculated
by LibreOffice, equals the API to the cent; the sheet and the PDF name the rates and the book.

The planner's team quotes the DGX H100 at EUR 250,000 (2026-03-03, 1 EUR = 1.1606 USD that
day) and has a 10 % discount on AWS; the scenario rents p5.48xlarge at its catalog price, at a
25 % tax rate on MACRS 5-year and an 8 % discount rate.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from django.utils import timezone
from numpy.testing import assert_allclose

from catalog.exchange_rates.services import ecb_source
from catalog.models import Accelerator
from catalog.models import CloudOffering
from catalog.models import ExchangeRate
from catalog.models import FacilityProfile
from catalog.models import PricePoint
from catalog.models import Source
from catalog.models import SystemSku
from reports.builders.excel import MONEY_SHEET
from reports.builders.excel import build_workbook
from reports.builders.pdf import build_pdf
from reports.services import report_content_for
from tco.models import ContractDiscount
from tco.models import ContractPriceBook
from tco.models import RentOption
from tco.models import Scenario
from tco.services.scenarios import scenario_save
from tests.reports.recalc import Values
from tests.reports.recalc import recalculate

CENT = 0.01


@pytest.fixture
def money_scenario(catalog, planner):
    team = planner.memberships.get().team
    source = Source.objects.create(key="reseller-eur", title="Reseller quote in EUR", kind="quote",
                                   team=team)
    PricePoint.objects.create(system=SystemSku.objects.get(slug="dgx-h100"), amount=Decimal("250000"),
                              currency="EUR", as_of=date(2026, 3, 3), source=source,
                              retrieved_at=timezone.now(), team=team)
    ExchangeRate.objects.create(base="EUR", quote="USD", rate=Decimal("1.1606"), on=date(2026, 3, 3),
                                source=ecb_source())
    ExchangeRate.objects.create(base="EUR", quote="USD", rate=Decimal("1.1649"), on=date(2026, 3, 4),
                                source=ecb_source())
    book = ContractPriceBook.objects.create(team=team, provider="aws", name="AWS EDP 2026",
                                            effective_from=date(2026, 1, 1), source="EDP order form")
    ContractDiscount.objects.create(book=book, share=Decimal("0.10"))
    scenario = Scenario(
        team=team, owner=planner, name="EUR quote, AWS discount, tax", prices_as_of=date(2026, 3, 4),
        accelerator=Accelerator.objects.get(slug="h100-sxm-80gb"), accelerators=8,
        utilisation=Decimal("0.8"), system=SystemSku.objects.get(slug="dgx-h100"),
        facility=FacilityProfile.objects.get(slug="colo-air"), electricity_usd_per_kwh=Decimal("0.10"),
        pue=Decimal("1.2"), colocation_usd_per_kw_month=Decimal("150"), horizon_months=36,
        discount_rate_per_year=Decimal("0.08"), depreciation_months=60,
        residual_value_share=Decimal("0.2"), tax_rate=Decimal("0.25"), tax_depreciation="macrs_5")
    p5 = CloudOffering.objects.get(provider="aws", instance_type="p5.48xlarge", pricing_model="on_demand")
    return scenario_save(scenario=scenario, rent_options=[RentOption(name="p5", offering=p5)])


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
