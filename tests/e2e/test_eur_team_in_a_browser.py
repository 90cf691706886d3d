"""A team reporting in euros, in headless Chromium at 1366 px: the 8x H100 demo, its figures typed
in US dollars and its catalog prices in dollars, converted at the ECB's rate of 2026-03-04. The
page reads EUR and never "$"; so does the PDF's first page (drawn with pdftoppm). Screenshots go
to test-artifacts/e2e/."""
from __future__ import annotations

import datetime as dt
import subprocess
from decimal import Decimal

import pytest
from playwright.sync_api import expect

from catalog.exchange_rates.services import ecb_source
from catalog.models import ExchangeRate
from reports.services import report_build
from reports.services import report_content_for
from tco.models import Scenario
from tests.e2e.conftest import ARTIFACTS

SCREEN = {"width": 1366, "height": 900}


@pytest.fixture
def eur_demo(demo_scenarios, browser_user, tmp_path):
    """The demo team in euros, and its PDF's pages as text and as a picture (made before the
    browser starts: its event loop forbids ORM calls in this thread after)."""
    scenario = demo_scenarios["8x H100 training cluster"]
    ExchangeRate.objects.create(base="EUR", quote="USD", rate=Decimal("1.1649"),
                                on=dt.date(2026, 3, 4), source=ecb_source())
    Scenario.objects.filter(pk=scenario.pk).update(currency="USD", rates_as_of=dt.date(2026, 3, 4))
    scenario.refresh_from_db()
    scenario.team.reporting_currency = "EUR"
    scenario.team.save()
    pdf = tmp_path / "eur.pdf"
    pdf.write_bytes(report_build(content=report_content_for(scenario=scenario), format="pdf"))
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    subprocess.run(["pdftoppm", "-png", "-r", "80", "-f", "3", "-l", "5", str(pdf),
                    str(ARTIFACTS / "i26-eur-report")], check=True)
    return scenario, text


def test_a_eur_teams_page_and_report_read_euros(eur_demo, sign_in):
    scenario, pdf_text = eur_demo
    assert "$" not in pdf_text and "EUR " in pdf_text

    page = sign_in(f"/admin/tco/scenario/{scenario.pk}/change/", screen=SCREEN)
    result = page.locator("#scenario-result")
    expect(result.locator(".headline")).to_contain_text("EUR ")
    shown = result.inner_text()
    assert "$" not in shown
    assert "(EUR)" in result.locator(".cumulative-chart > svg").inner_html()
    page.screenshot(path=ARTIFACTS / "i26-eur-scenario-1366.png")
    page.locator("#scenario-money summary").click()
    page.screenshot(path=ARTIFACTS / "i26-eur-scenario-1366-full.png", full_page=True)
