"""The European Central Bank's euro reference rates, in the formats the ECB publishes them.

- XML, one ``Cube time=...`` per day holding ``Cube currency=... rate=...`` (eurofxref-daily.xml,
  eurofxref-hist-90d.xml, eurofxref-hist.xml), in the gesmes envelope;
- CSV: the daily ``eurofxref.csv`` ("Date, USD, JPY, ..." then "30 October 2026, 1.1172, ...")
  and the history ``eurofxref-hist.csv`` ("Date,USD,...", ISO dates, "N/A" where a currency
  had no rate that day); both end each line with a comma.

Every rate is "1 EUR = rate units of the currency". Rates are read as Decimal from their text,
never through a float.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import date
from datetime import datetime
from decimal import Decimal
from decimal import InvalidOperation

from defusedxml import ElementTree

from catalog.pricefeeds.errors import MalformedPayload

PROVIDER = "ecb"
DAILY_XML_URL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"
HISTORY_90_DAYS_XML_URL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist-90d.xml"
SOURCE_KEY = "ecb-euro-reference-rates"
SOURCE_TITLE = "European Central Bank euro foreign exchange reference rates"
BASE = "EUR"
_CUBE = "{http://www.ecb.int/vocabulary/2002-08-01/eurofxref}Cube"


@dataclass(frozen=True)
class EcbRate:
    """1 EUR = ``rate`` ``currency`` on ``on``."""

    on: date
    currency: str
    rate: Decimal


def parse(payload: bytes, *, record: str = "payload") -> list[EcbRate]:
    """Rates from an ECB file in either format (XML or CSV), told apart by its first byte."""
    text = payload.lstrip()
    if text.startswith(b"<"):
        return parse_xml(payload, record=record)
    return parse_csv(payload.decode("utf-8-sig"), record=record)


def parse_xml(payload: bytes, *, record: str = "payload") -> list[EcbRate]:
    """Rates of an eurofxref XML file (daily, 90 days or the whole history)."""
    try:
        root = ElementTree.fromstring(payload)
    except ElementTree.ParseError as exc:
        raise MalformedPayload(PROVIDER, record, f"not well-formed XML: {exc}") from exc
    days = [cube for cube in root.iter(_CUBE) if cube.get("time") is not None]
    if not days:
        raise MalformedPayload(PROVIDER, record, "no Cube element with a time attribute")
    rates = []
    for day in days:
        on = _iso_date(day.get("time"), record)
        for cube in day.findall(_CUBE):
            rates.append(_rate(on, cube.get("currency"), cube.get("rate"), record))
    return rates


def parse_csv(text: str, *, record: str = "payload") -> list[EcbRate]:
    """Rates of eurofxref.csv (one day) or eurofxref-hist.csv (every day since 1999)."""
    rows = [[cell.strip() for cell in row] for row in csv.reader(io.StringIO(text)) if row]
    if not rows or not rows[0] or rows[0][0] != "Date":
        raise MalformedPayload(PROVIDER, record, "the first line is not the 'Date, USD, ...' header")
    header = rows[0]
    rates = []
    for row in rows[1:]:
        on = _csv_date(row[0], record)
        for currency, value in zip(header[1:], row[1:], strict=False):
            if currency and value and value != "N/A":
                rates.append(_rate(on, currency, value, record))
    return rates


def _rate(on: date, currency: str | None, value: str | None, record: str) -> EcbRate:
    where = f"{record} {on}"
    if not currency or len(currency) != 3 or not currency.isalpha() or not currency.isupper():
        raise MalformedPayload(PROVIDER, where, f"currency {currency!r} is not an ISO 4217 code")
    try:
        rate = Decimal(value or "")
    except InvalidOperation:
        raise MalformedPayload(PROVIDER, f"{where} {currency}", f"rate {value!r} is not a number") from None
    if not rate.is_finite() or rate <= 0:
        raise MalformedPayload(PROVIDER, f"{where} {currency}", f"rate {value!r} is not above zero")
    return EcbRate(on, currency, rate)


def _iso_date(value: str | None, record: str) -> date:
    try:
        return date.fromisoformat(value or "")
    except ValueError:
        raise MalformedPayload(PROVIDER, record, f"date {value!r} is not YYYY-MM-DD") from None


def _csv_date(value: str, record: str) -> date:
    """'2026-10-30' in the history file, '30 October 2026' in the daily one."""
    for form in ("%Y-%m-%d", "%d %B %Y"):
        try:
            return datetime.strptime(value, form).date()
        except ValueError:
            continue
    raise MalformedPayload(PROVIDER, record, f"date {value!r} is neither 2026-10-30 nor 30 October 2026")
