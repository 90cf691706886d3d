"""AWS Price List Bulk API adapter for EC2: offer index -> region index -> region offer file.

``root`` is either the live host or a local directory that mirrors its paths
(``<root>/offers/v1.0/aws/index.json`` ...), so an air-gapped run reads a copied tree
with the same code. A live offer file is streamed to disk first and parsed from there.
"""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path
from typing import Any
from typing import Literal

from catalog.pricefeeds.adapter import FeedAdapter
from catalog.pricefeeds.aws_offer import parse_offer
from catalog.pricefeeds.aws_products import PROVIDER
from catalog.pricefeeds.errors import MalformedPayload
from catalog.pricefeeds.errors import MissingSource
from catalog.pricefeeds.records import FeedResult
from catalog.pricefeeds.sources import is_url
from catalog.pricefeeds.sources import read_json_file

AWS_PRICING_ROOT = "https://pricing.us-east-1.amazonaws.com"
OFFER_INDEX_PATH = "/offers/v1.0/aws/index.json"
OFFER_CODE = "AmazonEC2"


class AwsPriceListFeed(FeedAdapter):
    """EC2 on-demand and reserved accelerator prices, one region at a time.

    Parameters
    ----------
    root
        ``https://pricing.us-east-1.amazonaws.com`` (default) or a local mirror directory.
    file_format
        ``"json"`` (default; self-delimiting, so a cut file is always caught) or ``"csv"``.
    client, instance_map, limits
        As for every adapter (``FeedAdapter``).
    download_dir
        Where a live offer file is written while it is parsed (default: system temp dir);
        the file is deleted afterwards.
    """

    provider = PROVIDER

    def __init__(
        self,
        *,
        root: str | Path = AWS_PRICING_ROOT,
        file_format: Literal["json", "csv"] = "json",
        download_dir: Path | None = None,
        **adapter: Any,
    ) -> None:
        super().__init__(**adapter)
        self.root = root
        self.file_format = file_format
        self.download_dir = download_dir

    def current_version_url(self, region: str) -> str:
        """The region's ``currentVersionUrl`` (a path holding the version id)."""
        offer_index = self._document(OFFER_INDEX_PATH)
        offer = _member(offer_index, ("offers", OFFER_CODE), record=OFFER_INDEX_PATH)
        region_index_path = _member(offer, ("currentRegionIndexUrl",), record=OFFER_INDEX_PATH)
        region_index = self._document(str(region_index_path))
        regions = _member(region_index, ("regions",), record=str(region_index_path))
        if region not in regions:
            raise MalformedPayload(
                PROVIDER, str(region_index_path), f"region {region!r} is not in the region index"
            )
        return str(_member(regions[region], ("currentVersionUrl",), record=region))

    def fetch_region(self, region: str, *, last_version: str | None = None) -> FeedResult:
        """Prices of ``region``, or ``skipped=True`` when its version is ``last_version``.

        ``FeedResult.source_version`` is the region's ``currentVersionUrl``: store it and pass
        it back as ``last_version`` next time. Each price carries the offer file's ``version``.
        """
        version_url = self.current_version_url(region)
        if version_url == last_version:
            return FeedResult(prices=(), rejections=(), source_version=version_url, skipped=True)
        offer_path = version_url
        if self.file_format == "csv":
            offer_path = version_url.removesuffix("index.json") + "index.csv"
        address = self._address(offer_path)
        if is_url(address):
            with tempfile.TemporaryDirectory(dir=self.download_dir) as tmp:
                local = self.client.download(
                    address, Path(tmp) / f"index.{self.file_format}", provider=PROVIDER
                )
                result = self._parse(local, region=region, source_url=address)
        else:
            result = self._parse(self._local_file(address), region=region, source_url=address)
        return dataclasses.replace(result, source_version=version_url)

    def _parse(self, path: Path, *, region: str, source_url: str) -> FeedResult:
        return parse_offer(
            path,
            file_format=self.file_format,
            region=region,
            instance_map=self.instance_map,
            limits=self.limits,
            source_url=source_url,
        )

    def _address(self, path: str) -> str:
        if is_url(self.root):
            return str(self.root).rstrip("/") + path
        return str(Path(self.root) / path.lstrip("/"))

    def _document(self, path: str) -> Any:
        address = self._address(path)
        if is_url(address):
            return self.client.get_json(address, provider=PROVIDER)
        return read_json_file(self._local_file(address), provider=PROVIDER)

    def _local_file(self, address: str) -> Path:
        """A file of a local mirror; MissingSource in a sentence when it is not there."""
        root = Path(self.root)
        if not root.is_dir():
            raise MissingSource(
                PROVIDER, str(root), "is not a folder: give the root of a mirror of the AWS price list "
                f"(the folder holding {OFFER_INDEX_PATH.lstrip('/')}), not a single offer file"
            )
        path = Path(address)
        if not path.is_file():
            raise MissingSource(
                PROVIDER, str(path.relative_to(root)), "is not in the mirror (is its region mirrored?)"
            )
        return path


def _member(document: Any, keys: tuple[str, ...], *, record: str) -> Any:
    value = document
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            raise MalformedPayload(PROVIDER, record, f"no {'.'.join(keys)!r}")
        value = value[key]
    return value
