"""The page, the PDF and the workbook say which breakeven each figure is: nominal (the cash paid)
or discounted (the verdict's, quoted in the headline), side by side."""
from __future__ import annotations

import html
import io
import re
import subprocess

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from reports.services import report_build
from reports.services import report_content_for
from tco.models import Scenario
from teams.models import Role
from tests.tco.scenario_body import scenario_body
from tests.teams.conftest import client_of
from tests.teams.members import member

pytestmark = pytest.mark.django_db

# scenario_body: buying pays $400,000 up front and $744.60 a month; renting $36,500 a month, so
# buying saves $35,755.40 a month.
# Nominal: first m with 35,755.40 m >= 400,000 -> m >= 11.19 -> month 12.
# Discounted at 20 % a year, month k's saving is worth 35,755.40 / 1.2^(k/12): months 1-12 add up
# to $389,251.43 (< 400,000), months 1-13 to $418,598.31 -> month 13.
NOMINAL, DISCOUNTED = 12, 13
RENT = "Rent AWS p5.48xlarge"


@pytest.fixture
def scenario(catalog) -> Scenario:
    analyst = member("ana", role=Role.ANALYST)
    response = client_of(analyst).post("/api/v1/scenarios/", scenario_body(
        discount_rate_per_year="0.20"), format="json")
    assert response.status_code == 201, response.json()
    scenario = Scenario.objects.get(pk=response.json()["id"])
    scenario.analyst = analyst
    return scenario


def _row(page: str, label: str) -> list[str]:
    """The cells of the key-figures row headed ``label`` on the scenario page."""
    (cells,) = re.findall(rf"<tr><th>{re.escape(label)}</th>(.*?)</tr>", page)
    return [html.unescape(cell) for cell in re.findall(r'<td class="num">(.*?)</td>', cells)]


def test_the_page_shows_both_breakevens_and_the_headline_quotes_the_discounted_one(scenario, client):
    client.force_login(scenario.analyst)
    page = client.get(reverse("admin:tco_scenario_change", args=[scenario.pk])).content.decode()
    # Columns: buying (the cheapest), then the rent option.
    assert _row(page, "Breakeven month (nominal)") == ["–", str(NOMINAL)]
    assert _row(page, "Breakeven month (discounted, before tax)") == ["–", str(DISCOUNTED)]
    assert f"buying breaks even in month {DISCOUNTED} (discounted)" in page
    assert "discounted at 20.0% a year, stay at or below" in page  # the note says what each is


def test_the_pdf_and_the_workbook_name_each_breakeven(scenario):
    content = report_content_for(scenario=scenario)
    pdf = subprocess.run(["pdftotext", "-layout", "-", "-"], capture_output=True, check=True,
                         input=report_build(content=content, format="pdf")).stdout.decode()
    assert re.search(rf"Breakeven \(nominal\)\s+month {NOMINAL}\b", pdf)
    # The label wraps in its column: "Breakeven ... month 13", then "(discounted)".
    assert re.search(rf"Breakeven\s+month {DISCOUNTED}\s*\n\s*\(discounted\)", pdf)

    summary = load_workbook(io.BytesIO(report_build(content=content, format="xlsx")))["Summary"]
    rows = {row[0].value: row for row in summary.iter_rows() if row[0].value}
    header = [cell.value for cell in rows["Figure"]]
    (rent,) = [index for index, label in enumerate(header) if str(label).startswith(RENT)]
    assert rows["Breakeven month (nominal)"][rent].value == "=rent1_breakeven_month"
    assert rows["Breakeven month (discounted, at export)"][rent].value == DISCOUNTED
    assert rows["Breakeven month (discounted, at export)"][header.index("Buy")].value is None
