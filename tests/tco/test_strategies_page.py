"""Issue 48 on the Django side: a rental curve imported as dated, sourced catalog rows (refused
whole, row and column named), shown with its history on the accelerator's page, and the
strategies over time on the scenario page, computed from it."""

from __future__ import annotations

import datetime
import re
import subprocess
from decimal import Decimal

import pytest
from django.core.management import CommandError
from django.core.management import call_command

from catalog.exchange_rates.services import ecb_source
from catalog.models import Accelerator
from catalog.models import ExchangeRate
from catalog.models import RentalCurvePrice
from catalog.models import Source
from reports.services import report_build
from reports.services import report_content_for

pytestmark = pytest.mark.django_db

CURVE = """date,term,price,source
2026-05-01,on demand,2.50,GPU rental index
2026-05-01,12,1.80,GPU rental index
2026-10-01,on demand,2.50,GPU rental index
2026-10-01,12,2.00,Broker quote sheet
"""


def _import(tmp_path, text: str) -> None:
    path = tmp_path / "curve.csv"
    path.write_text(text)
    call_command("import_rental_curve", "h100-sxm-80gb", str(path))


def test_a_bad_curve_is_refused_whole_naming_rows_and_columns(catalog, tmp_path) -> None:
    bad = CURVE + "2026-10-01,6,-1,GPU rental index\n2099-01-01,on demand,2.5,GPU rental index\n"
    bad = bad.replace("2026-05-01,12,1.80", "2026-05-01,3,1.90,GPU rental index\n2026-05-01,12,1.80")
    with pytest.raises(CommandError) as refused:
        _import(tmp_path, bad)
    # Row 7 is refused for its price (so it is not placed in its date's curve as well).
    assert str(refused.value).splitlines()[1:] == [
        "row 4, term: gap in the curve of 2026-05-01: 6 months missing between 3 months and 12 months",
        "row 7, price: -1 must be a positive price per accelerator-hour",
        f"row 8, date: 2099-01-01 is in the future (today is {datetime.date.today()})",
    ]
    assert not RentalCurvePrice.objects.exists()
    assert not Source.objects.filter(title="GPU rental index").exists()


def test_the_curve_and_its_history_show_on_the_accelerators_page(catalog, tmp_path, admin_client) -> None:
    _import(tmp_path, CURVE)
    h100 = Accelerator.objects.get(slug="h100-sxm-80gb")
    assert RentalCurvePrice.objects.filter(accelerator=h100).count() == 4
    assert Source.objects.get(title="Broker quote sheet").kind == "quote"
    page = admin_client.get(f"/admin/catalog/accelerator/{h100.pk}/change/").content.decode()
    table = page[page.index("id='rental-curve'") :]
    table = table[: table.index("</table>")]
    # Newest first: October's 12-month price $2.00, May's $1.80; no spot or 1-month quote.
    assert table.index("2026-10-01") < table.index("2026-05-01")
    assert "$2.00" in table and "$1.80" in table and "–" in table


def test_the_scenario_page_shows_the_strategies_the_curve_and_its_sources(
    run_scenario, tmp_path, admin_client
) -> None:
    _import(tmp_path, CURVE)
    page = admin_client.get(f"/admin/tco/scenario/{run_scenario.pk}/change/").content.decode()
    section = page[page.index('id="strategies"') :]
    section = section[: section.index("</section>")]
    # 8 H100 for 36 months, 5,840 accelerator-hours a month. Buying: $400,000 and $744.60 of power
    # a month: $426,805.60. The 12-month term at $2.00: $11,680 a month, $420,480.00. On demand at
    # $2.50: $525,600.00. The B200 at month 24 (seed 003): 24 months on the 12-month term,
    # $280,320.00, then one $500,000 system (8 / 3.33 accelerators) with 12 months of power
    # $8,935.20: $789,255.20.
    for label, total in (
        ("Buy now", "$426,805.60"),
        ("Lock 12 months, renew at the forward price", "$420,480.00"),
        ("Rent on demand", "$525,600.00"),
        ("Rent (12 months), buy B200 at month 24", "$789,255.20"),
    ):
        assert f'<td>{label}</td><td class="num">{total}</td>' in section
    # Resale at the market: 24 months of a 60-month life left, at $2.50 x 730 h on demand, half
    # kept for risk: $21,900 an accelerator, $175,200 for the 8 (43.8 % of $400,000), so
    # $426,805.60 - $175,200.00 = $251,605.60.
    assert (
        "Buy now, resale at the rental market&#x27;s value (43.8% of the system price) costs least: "
        "$251,605.60 NPV, $168,874.40 less than lock 12 months, renew at the forward price. Waiting 24 "
        "months to buy B200 instead of buying now costs $362,449.60."
    ) in section
    assert "<strong>Rent spot</strong>: not costed, no spot price." in section
    assert '<td>12 months</td><td class="num">$2.00</td><td>Broker quote sheet</td>' in section
    assert '<td>On demand</td><td class="num">$2.50</td><td>GPU rental index</td>' in section
    assert "Curve of 2026-10-01" in section and "<svg" in section


def test_the_api_gives_the_strategies_and_a_monte_carlo_fitted_on_the_curves_history(
    run_scenario, tmp_path, admin_client
) -> None:
    _import(tmp_path, CURVE)
    url = f"/api/v1/scenarios/{run_scenario.pk}/strategies/"
    body = admin_client.get(url).json()
    assert body["currency"] == "USD"
    verdict = body["verdict"]
    assert verdict["winner"] == "buy_now_market"
    assert {row["key"]: row["total_usd"] for row in verdict["strategies"]} == {
        "buy_now_market": 251_605.60,
        "lock_12": 420_480.00,
        "buy_now": 426_805.60,
        "on_demand": 525_600.00,
        "next_generation": 789_255.20,
    }
    assert verdict["value_of_waiting_usd"] == -362_449.60
    assert {"key": "spot", "label": "Rent spot", "reason": "no spot price"} in verdict["unavailable"]
    assert body["curve"]["prices"][1] == {
        "term": "12",
        "price_per_accelerator_hour": 2.0,
        "source": "Broker quote sheet",
    }
    assert body["next_generation"]["source"].startswith("seed 003")
    # Two dates of history are too few to fit a drift on: the parameter is refused, named.
    refused = admin_client.get(url, {"paths": 100})
    assert refused.status_code == 400
    assert refused.json()["paths"] == [
        "a Monte Carlo fits its drift and volatility on the curve's on demand history: "
        "2 dates, 3 or more needed"
    ]
    assert admin_client.get(url, {"paths": 100, "colour": "red"}).json()["colour"] == ["unknown parameter"]
    _import(tmp_path, "date,term,price,source\n2026-07-01,on demand,2.80,GPU rental index\n")
    first = admin_client.get(url, {"paths": 500, "seed": 4}).json()["monte_carlo"]
    assert first == admin_client.get(url, {"paths": 500, "seed": 4}).json()["monte_carlo"]
    assert first["fit"]["model"] == "geometric Brownian motion" and first["fit"]["prices"] == 3
    assert first["model"].startswith(
        "Geometric Brownian motion fitted on 3 prices from 2026-05-01 to 2026-10-01"
    )
    assert sum(row["probability_cheapest"] for row in first["strategies"]) == pytest.approx(1.0)
    buy = next(row for row in first["strategies"] if row["key"] == "buy_now")
    assert buy["npv_p10_usd"] == buy["npv_p90_usd"] == pytest.approx(426_805.60)


def test_a_scenario_in_euros_reads_the_curve_and_the_next_generation_at_its_rate(
    run_scenario, tmp_path, admin_client
) -> None:
    # The scenario typed and reported in euros (EUR 400,000 a system, EUR 0.10 a kWh), its rates
    # as of the curve's date: 1 EUR = 1.25 USD. The curve in USD reads EUR 2.00 on demand (2.50 /
    # 1.25) and EUR 1.60 for 12 months; the B200's $500,000 reads EUR 400,000.
    ExchangeRate.objects.create(base="EUR", quote="USD", rate=Decimal("1.25"),
                                on=datetime.date(2026, 10, 1), source=ecb_source())
    run_scenario.currency = run_scenario.reporting_currency = "EUR"
    run_scenario.rates_as_of = datetime.date(2026, 10, 1)
    run_scenario.save()
    _import(tmp_path, CURVE)
    body = admin_client.get(f"/api/v1/scenarios/{run_scenario.pk}/strategies/").json()
    assert body["currency"] == "EUR"
    # 8 accelerators x 730 h a month over 36 months: on demand 5,840 h x EUR 2.00 = EUR 11,680 a
    # month, EUR 420,480.00; the 12-month term at EUR 1.60, EUR 9,344 a month, EUR 336,384.00.
    # Buying is as typed: EUR 400,000 and EUR 744.60 of power a month, EUR 426,805.60. Waiting: 24
    # months on the 12-month term, EUR 224,256.00, then one B200 system at EUR 400,000 with 12
    # months of power (EUR 8,935.20): EUR 633,191.20. Resale at the market: 24 months of EUR 2.00
    # x 730 h on demand for 8 accelerators, half kept: EUR 140,160, so EUR 286,645.60.
    assert {row["key"]: row["total_usd"] for row in body["verdict"]["strategies"]} == {
        "buy_now_market": 286_645.60,
        "lock_12": 336_384.00,
        "buy_now": 426_805.60,
        "on_demand": 420_480.00,
        "next_generation": 633_191.20,
    }
    assert body["verdict"]["value_of_waiting_usd"] == -206_385.60
    twelve = body["curve"]["prices"][1]
    assert twelve["price_per_accelerator_hour"] == 1.6
    assert twelve["source"] == (
        "Broker quote sheet; USD 2.00 at 0.8 EUR/USD (1 EUR = 1.25 USD on 2026-10-01 "
        "(European Central Bank euro foreign exchange reference rates))")
    assert body["next_generation"]["system_price"] == 400_000.0
    assert body["verdict"]["sentence"].startswith(
        "Buy now, resale at the rental market's value (35.0% of the system price) costs least: "
        "EUR 286,645.60 NPV")
    page = admin_client.get(f"/admin/tco/scenario/{run_scenario.pk}/change/").content.decode()
    section = page[page.index('id="strategies"') :]
    section = section[: section.index("</section>")]
    assert '<th class="num">NPV of costs (EUR)</th>' in section
    assert '<td>Lock 12 months, renew at the forward price</td><td class="num">EUR 336,384.00</td>' in section
    assert '<td>12 months</td><td class="num">EUR 1.60</td>' in section
    assert "EUR 400,000 a system of 8" in section


def test_a_curve_in_euros_is_stored_in_euros_and_read_in_dollars_at_the_rate(
    run_scenario, tmp_path, admin_client
) -> None:
    ExchangeRate.objects.create(base="EUR", quote="USD", rate=Decimal("1.25"),
                                on=datetime.date(2026, 10, 1), source=ecb_source())
    path = tmp_path / "curve.csv"
    path.write_text(CURVE)
    call_command("import_rental_curve", "h100-sxm-80gb", str(path), "--currency", "EUR")
    point = RentalCurvePrice.objects.get(as_of=datetime.date(2026, 10, 1), term="12")
    assert (point.price_per_accelerator_hour, point.currency) == (Decimal("2.0000"), "EUR")
    body = admin_client.get(f"/api/v1/scenarios/{run_scenario.pk}/strategies/").json()
    # No rate date on the scenario: the curve's own date's rate, EUR 2.00 x 1.25 = $2.50.
    assert body["currency"] == "USD"
    assert body["curve"]["prices"][1]["price_per_accelerator_hour"] == 2.5
    with pytest.raises(CommandError, match="invalid choice: 'XYZ'"):
        call_command("import_rental_curve", "h100-sxm-80gb", str(path), "--currency", "XYZ")


def test_the_pdf_shows_the_strategies_and_the_curve(run_scenario, tmp_path) -> None:
    _import(tmp_path, CURVE)
    pdf = report_build(content=report_content_for(scenario=run_scenario), format="pdf")
    text = subprocess.run(["pdftotext", "-layout", "-", "-"], input=pdf, capture_output=True,
                          check=True).stdout.decode()
    assert "Strategies over time" in text
    # The strategy column wraps its longer labels onto a second line.
    assert re.search(r"Lock 12 months, renew at the forward +\$420,480\.00", text)
    assert re.search(r"Rent \(12 months\), buy B200 at month +\$789,255\.20", text)
    assert re.search(r"12 months +\$2\.00 +Broker quote sheet", text)
