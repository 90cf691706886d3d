"""Stream the CSV variant of an AWS Price List offer file (``index.csv``), row by row.

Rows 1-5 are metadata, row 6 the header, then one row per price dimension: a Partial or
All Upfront reservation is two rows (``Hrs`` and ``Quantity``). Columns are found by header
name because AWS adds columns over time. Lines that name no accelerator family (and are not
the free-tier product) are skipped before the csv module parses them, as gpuhunt does.

Unlike JSON, a CSV cut exactly at a line break still parses: only the download's
Content-Length check (``HttpClient.download``) catches that, so prefer the JSON file.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from catalog.pricefeeds.aws_products import PROVIDER
from catalog.pricefeeds.aws_products import AwsProduct
from catalog.pricefeeds.aws_products import AwsTerm
from catalog.pricefeeds.aws_products import OfferRead
from catalog.pricefeeds.aws_products import add_term_price
from catalog.pricefeeds.aws_products import classify_product
from catalog.pricefeeds.dates import iso_date
from catalog.pricefeeds.errors import MalformedPayload
from catalog.pricefeeds.errors import TruncatedPayload
from catalog.pricefeeds.money import decimal_amount
from catalog.pricefeeds.records import FeedResult

METADATA_ROWS = 5
# CSV header -> the JSON attribute name classify_product reads.
ATTRIBUTE_COLUMNS = {
    "Instance Type": "instanceType",
    "Instance Family": "instanceFamily",
    "Tenancy": "tenancy",
    "Operating System": "operatingSystem",
    "License Model": "licenseModel",
    "Pre Installed S/W": "preInstalledSw",
    "CapacityStatus": "capacitystatus",
    "MarketOption": "marketoption",
    "usageType": "usagetype",
    "Region Code": "regionCode",
    "Group": "group",
    "GPU": "gpu",
    "GPU Memory": "gpuMemory",
}
TERM_COLUMNS = (
    "SKU",
    "OfferTermCode",
    "TermType",
    "EffectiveDate",
    "EndingRange",
    "Unit",
    "PricePerUnit",
    "Currency",
    "LeaseContractLength",
    "PurchaseOption",
    "OfferingClass",
    "Product Family",
)
FREE_TIER_MARKER = '"FreeTrial"'


@dataclass
class _PendingTerm:
    """A reserved term whose Hrs and Quantity rows have not all been read yet."""

    row: dict[str, str]
    hourly: Decimal | None = None
    upfront: Decimal | None = None

    def is_complete(self) -> bool:
        needs_upfront = self.row["PurchaseOption"] != "No Upfront"
        return self.hourly is not None and (self.upfront is not None or not needs_upfront)


def read_offer_csv(offer: OfferRead) -> FeedResult:
    """The prices of an offer file in CSV; same rules as the JSON file (see ``parse_offer``)."""
    path = offer.path
    markers = (
        FREE_TIER_MARKER,
        *(f'"{family}"' for family in offer.instance_map.aws_accelerator_families),
    )
    with path.open(newline="", encoding="utf-8") as handle:
        lines = iter(handle)
        metadata = _read_metadata(lines, path)
        version = metadata.get("Version")
        header = _row(next(lines, ""), path=path)
        columns = _column_indexes(header, path)
        data_lines = _LineCounter(lines)
        # An unterminated last line is kept whatever it holds: it may be a cut-off row.
        wanted = (
            line
            for line in data_lines
            if not line.endswith("\n") or any(marker in line for marker in markers)
        )
        # Only accelerator lines get this far, so these stay as small as the JSON parser's.
        products: dict[str, AwsProduct | None] = {}
        pending: dict[tuple[str, str], _PendingTerm] = {}
        short_row: list[str] | None = None
        for fields in csv.reader(wanted):
            if short_row is not None:
                raise MalformedPayload(
                    PROVIDER, str(path), f"a row before the end has too few fields: {short_row[:3]}"
                )
            if len(fields) != len(header):
                short_row = fields
                continue
            row = {name: fields[index] for name, index in columns.items()}
            if row["SKU"] not in products:
                attributes = {attribute: row[column] for column, attribute in ATTRIBUTE_COLUMNS.items()}
                decision = classify_product(
                    row["SKU"], row["Product Family"], attributes, instance_map=offer.instance_map
                )
                products[row["SKU"]] = offer.kept(row["SKU"], decision)
            product = products[row["SKU"]]
            if product is None:
                continue
            term = _add_dimension(row, pending)
            if term is not None:
                add_term_price(
                    product,
                    term,
                    collector=offer.collector,
                    source_url=offer.source_url,
                    source_version=version,
                )
    if short_row is not None:
        raise TruncatedPayload(PROVIDER, str(path), "the last row is cut short")
    if data_lines.count == 0:
        raise MalformedPayload(PROVIDER, str(path), "no price rows after the header")
    if pending:
        sku, code = next(iter(pending))
        raise TruncatedPayload(
            PROVIDER, f"{sku}.{code}", "reserved term is missing its Hrs or Upfront Fee row"
        )
    return offer.result(version=version, priced_any=any(products.values()))


class _LineCounter:
    """Counts the lines a generator draws, to tell an empty file from a filtered one."""

    def __init__(self, lines: Iterator[str]) -> None:
        self._lines = lines
        self.count = 0

    def __iter__(self) -> Iterator[str]:
        for line in self._lines:
            self.count += 1
            yield line


def _row(line: str, *, path: Path) -> list[str]:
    if not line:
        raise TruncatedPayload(PROVIDER, str(path), "the file ends before its header row")
    return next(csv.reader([line]))


def _read_metadata(lines: Iterator[str], path: Path) -> dict[str, str]:
    metadata = {}
    for _ in range(METADATA_ROWS):
        fields = _row(next(lines, ""), path=path)
        if len(fields) != 2:
            raise MalformedPayload(PROVIDER, str(path), f"metadata row {fields!r} is not a pair")
        metadata[fields[0]] = fields[1]
    if metadata.get("OfferCode") != "AmazonEC2":
        raise MalformedPayload(
            PROVIDER, str(path), f"OfferCode {metadata.get('OfferCode')!r} is not AmazonEC2"
        )
    return metadata


def _column_indexes(header: list[str], path: Path) -> dict[str, int]:
    positions = {name: index for index, name in enumerate(header)}
    needed = (*TERM_COLUMNS, *ATTRIBUTE_COLUMNS)
    missing = [name for name in needed if name not in positions]
    if missing:
        raise MalformedPayload(PROVIDER, str(path), f"header lacks columns {missing}")
    return {name: positions[name] for name in needed}


def _add_dimension(row: dict[str, str], pending: dict[tuple[str, str], _PendingTerm]) -> AwsTerm | None:
    """Fold one dimension row into its term; return the term once all its rows are in."""
    record = f"{row['SKU']}.{row['OfferTermCode']}"
    amount = decimal_amount(row["PricePerUnit"], provider=PROVIDER, record=record)
    key = (row["SKU"], row["OfferTermCode"])
    term = pending.pop(key, None) or _PendingTerm(row=row)
    if row["Unit"] == "Hrs" and term.hourly is None and row["EndingRange"] == "Inf":
        term.hourly = amount
    elif row["Unit"] == "Quantity" and term.upfront is None:
        term.upfront = amount
    else:
        raise MalformedPayload(
            PROVIDER,
            record,
            f"unexpected price dimension (Unit {row['Unit']!r}, EndingRange {row['EndingRange']!r})",
        )
    if row["TermType"] == "Reserved" and not term.is_complete():
        pending[key] = term
        return None
    return AwsTerm(
        sku=row["SKU"],
        offer_term_code=row["OfferTermCode"],
        term_type=row["TermType"],
        effective_date=iso_date(row["EffectiveDate"], provider=PROVIDER, record=record),
        lease_contract_length=row["LeaseContractLength"],
        purchase_option=row["PurchaseOption"],
        offering_class=row["OfferingClass"],
        hourly=term.hourly,
        upfront=term.upfront,
        currency=row["Currency"],
    )
