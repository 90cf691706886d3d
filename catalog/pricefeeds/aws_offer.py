"""Read an AWS Price List offer file, JSON or CSV, into accelerator prices."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from catalog.pricefeeds.aws_offer_csv import read_offer_csv
from catalog.pricefeeds.aws_offer_json import read_offer_json
from catalog.pricefeeds.aws_products import PROVIDER
from catalog.pricefeeds.aws_products import OfferRead
from catalog.pricefeeds.collector import ResultCollector
from catalog.pricefeeds.mapping import InstanceMap
from catalog.pricefeeds.mapping import default_instance_map
from catalog.pricefeeds.records import FeedResult
from catalog.pricefeeds.sanity import PriceLimits


def parse_offer(
    path: Path,
    *,
    file_format: Literal["json", "csv"] = "json",
    region: str | None = None,
    instance_map: InstanceMap | None = None,
    limits: PriceLimits | None = None,
    source_url: str | None = None,
) -> FeedResult:
    """Parse an EC2 offer file into accelerator prices (on-demand and reserved).

    Parameters
    ----------
    path
        The offer file (``.../AmazonEC2/<version>/<region>/index.json`` or ``index.csv``).
    file_format
        ``json`` or ``csv``: the same prices under the same rules.
    region
        Keep only products of this ``regionCode``; None keeps every region in the file.
    instance_map, limits
        The accelerator map and price checks; defaults are the shipped map and USD up to
        1,000 per accelerator-hour.
    source_url
        Where the file came from, recorded on every price (default: the path).

    Raises
    ------
    TruncatedPayload, MalformedPayload, UnknownCurrency, AbsurdPrice
        Nothing is returned for a file that fails anywhere, even near its end.
    """
    offer = OfferRead(
        path=path,
        region=region,
        instance_map=instance_map or default_instance_map(),
        collector=ResultCollector(PROVIDER, limits or PriceLimits()),
        source_url=source_url or str(path),
    )
    return read_offer_csv(offer) if file_format == "csv" else read_offer_json(offer)
