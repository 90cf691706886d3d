"""Stream an AWS Price List offer file (JSON) without loading it: memory stays flat with size.

The us-east-1 EC2 file is about 480 MB. ijson's C parser reads it in chunks, three times:
once for ``products`` (only accelerator products are kept, a few thousand small records),
then for ``terms.OnDemand`` and ``terms.Reserved``, where only the kept products' terms are
priced. Each entry is dropped as soon as it is parsed. Three plain passes beat one pass
with three push parsers fed the same chunks (ijson's push interface is about 2.5x slower
per byte), and they do not depend on the order of the sections in the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import ijson

from catalog.pricefeeds.aws_products import PROVIDER
from catalog.pricefeeds.aws_products import AwsProduct
from catalog.pricefeeds.aws_products import AwsTerm
from catalog.pricefeeds.aws_products import OfferRead
from catalog.pricefeeds.aws_products import ProductDecision
from catalog.pricefeeds.aws_products import add_term_price
from catalog.pricefeeds.aws_products import classify_product
from catalog.pricefeeds.dates import iso_date
from catalog.pricefeeds.errors import MalformedPayload
from catalog.pricefeeds.errors import TruncatedPayload
from catalog.pricefeeds.mapping import InstanceMap
from catalog.pricefeeds.money import decimal_amount
from catalog.pricefeeds.records import FeedResult

# ijson's C parser buffers the events of a whole chunk: 1 MiB chunks hold ~5 MB of events
# at peak, 64 KiB chunks ~0.3 MB, at the same speed.
CHUNK_BYTES = 1 << 16
PRODUCTS_PREFIX = "products"
TERM_PREFIXES = {"OnDemand": "terms.OnDemand", "Reserved": "terms.Reserved"}


def read_offer_json(offer: OfferRead) -> FeedResult:
    """The prices of an offer file in JSON (on-demand and reserved); see ``parse_offer``."""
    header = _read_header(offer.path)
    version = header.get("version")
    products: dict[str, AwsProduct] = {}
    counts = dict.fromkeys(("products", *TERM_PREFIXES), 0)
    for sku, product in _entries(offer.path, PRODUCTS_PREFIX):
        counts["products"] += 1
        kept = offer.kept(sku, _classify(sku, product, instance_map=offer.instance_map))
        if kept is not None:
            products[sku] = kept
    for term_type, prefix in TERM_PREFIXES.items():
        for sku, terms in _entries(offer.path, prefix):
            counts[term_type] += 1
            if sku not in products:
                continue
            for term_key, term in _as_mapping(terms, record=sku).items():
                add_term_price(
                    products[sku],
                    _term(term, term_type=term_type, record=term_key),
                    collector=offer.collector,
                    source_url=offer.source_url,
                    source_version=version,
                )
    if counts["products"] == 0 or counts["OnDemand"] == 0:
        raise MalformedPayload(PROVIDER, str(offer.path), f"no products or no OnDemand terms ({counts})")
    return offer.result(version=version, priced_any=bool(products))


def _read_header(path: Path) -> dict[str, str]:
    """The top-level strings before the big objects (``offerCode``, ``version``...)."""
    header: dict[str, str] = {}
    with path.open("rb") as handle:
        try:
            for prefix, event, value in ijson.parse(handle):
                if prefix == "" and event == "map_key" and value in ("products", "terms"):
                    break
                if event == "string" and "." not in prefix:
                    header[prefix] = value
        except ijson.JSONError as exc:
            raise _json_error(exc, path) from exc
    if header.get("offerCode") != "AmazonEC2":
        raise MalformedPayload(PROVIDER, str(path), f"offerCode {header.get('offerCode')!r} is not AmazonEC2")
    return header


def _entries(path: Path, prefix: str) -> Iterator[tuple[str, Any]]:
    """``(key, value)`` of every member of the object at ``prefix``, one at a time."""
    with path.open("rb") as handle:
        try:
            yield from ijson.kvitems(handle, prefix, buf_size=CHUNK_BYTES)
        except ijson.JSONError as exc:
            raise _json_error(exc, path) from exc


def _json_error(exc: Exception, path: Path) -> MalformedPayload:
    # yajl says "premature EOF"; ijson's pure-Python backend says "Incomplete JSON content".
    if any(marker in str(exc) for marker in ("premature EOF", "Incomplete JSON content")):
        return TruncatedPayload(PROVIDER, str(path), "the file ends before its JSON is closed")
    return MalformedPayload(PROVIDER, str(path), f"invalid JSON: {exc}".splitlines()[0])


def _classify(sku: str, product: Any, *, instance_map: InstanceMap) -> ProductDecision:
    product = _as_mapping(product, record=sku)
    attributes = _as_mapping(product.get("attributes", {}), record=sku)
    return classify_product(sku, product.get("productFamily", ""), attributes, instance_map=instance_map)


def _term(term: Any, *, term_type: str, record: str) -> AwsTerm:
    term = _as_mapping(term, record=record)
    attributes = _as_mapping(term.get("termAttributes", {}), record=record)
    hourly = upfront = None
    currency = ""
    for rate_code, dimension in _as_mapping(term.get("priceDimensions"), record=record).items():
        dimension = _as_mapping(dimension, record=rate_code)
        currency, amount = _single_price(dimension.get("pricePerUnit"), record=rate_code)
        unit = dimension.get("unit")
        if unit == "Hrs" and hourly is None and dimension.get("endRange") == "Inf":
            hourly = amount
        elif unit == "Quantity" and upfront is None:
            upfront = amount
        else:
            raise MalformedPayload(
                PROVIDER,
                rate_code,
                f"unexpected price dimension (unit {unit!r}, endRange {dimension.get('endRange')!r})",
            )
    return AwsTerm(
        sku=str(term.get("sku", "")),
        offer_term_code=str(term.get("offerTermCode", "")),
        term_type=term_type,
        effective_date=iso_date(term.get("effectiveDate"), provider=PROVIDER, record=record),
        lease_contract_length=attributes.get("LeaseContractLength", ""),
        purchase_option=attributes.get("PurchaseOption", ""),
        offering_class=attributes.get("OfferingClass", ""),
        hourly=hourly,
        upfront=upfront,
        currency=currency,
    )


def _single_price(price_per_unit: Any, *, record: str) -> tuple[str, Any]:
    prices = _as_mapping(price_per_unit, record=record)
    if len(prices) != 1:
        raise MalformedPayload(PROVIDER, record, f"pricePerUnit {prices!r} is not one currency")
    ((currency, amount),) = prices.items()
    return currency, decimal_amount(amount, provider=PROVIDER, record=record)


def _as_mapping(value: Any, *, record: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise MalformedPayload(PROVIDER, record, f"expected an object, got {type(value).__name__}")
    return value
