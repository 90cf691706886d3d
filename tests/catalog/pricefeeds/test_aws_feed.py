"""AWS discovery chain (offer index -> region index -> offer file), version skip, downloads."""

from __future__ import annotations

import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from catalog.pricefeeds import AwsPriceListFeed
from catalog.pricefeeds import HttpClient
from catalog.pricefeeds import MalformedPayload
from catalog.pricefeeds import MissingSource
from catalog.pricefeeds import PricingModel
from catalog.pricefeeds import UpstreamHTTPError

from .conftest import LocalServer
from .conftest import Reply

VERSION_URL = "/offers/v1.0/aws/AmazonEC2/20260910195514/us-east-1/index.json"


def mirror(samples: Path, root: Path) -> Path:
    """A local copy of the bulk API's tree, as an air-gapped job would keep it."""
    files = {
        "offers/v1.0/aws/index.json": "aws-offer-index-sample.json",
        "offers/v1.0/aws/AmazonEC2/current/region_index.json": "aws-ec2-region-index-sample.json",
        VERSION_URL.lstrip("/"): "aws-ec2-offer-sample.json",
        VERSION_URL.lstrip("/").replace("index.json", "index.csv"): "aws-ec2-offer-sample.csv",
    }
    for target, sample in files.items():
        (root / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(samples / sample, root / target)
    return root


def test_it_follows_the_index_chain_in_a_local_mirror(samples: Path, tmp_path: Path) -> None:
    feed = AwsPriceListFeed(root=mirror(samples, tmp_path))

    result = feed.fetch_region("us-east-1")

    assert result.skipped is False
    assert result.source_version == VERSION_URL
    assert {p.region for p in result.prices} == {"us-east-1"}
    on_demand = {
        p.instance_type: p.price_per_instance_hour
        for p in result.prices
        if p.pricing_model == PricingModel.ON_DEMAND
    }
    assert on_demand == {
        "p5.48xlarge": Decimal("55.04"),
        "p5en.48xlarge": Decimal("63.296"),
        "p4d.24xlarge": Decimal("21.957642"),
        "g6e.xlarge": Decimal("1.861"),
        "g5.2xlarge": Decimal("1.212"),
    }


def test_it_skips_a_region_whose_version_has_not_changed(samples: Path, tmp_path: Path) -> None:
    root = mirror(samples, tmp_path)
    (root / VERSION_URL.lstrip("/")).unlink()  # proves the offer file is not even opened

    result = AwsPriceListFeed(root=root).fetch_region("us-east-1", last_version=VERSION_URL)

    assert result.skipped is True
    assert (result.prices, result.rejections) == ((), ())
    assert result.source_version == VERSION_URL


def test_it_reads_the_csv_variant_when_asked(samples: Path, tmp_path: Path) -> None:
    feed = AwsPriceListFeed(root=mirror(samples, tmp_path), file_format="csv")

    result = feed.fetch_region("us-east-1", last_version="/an/older/version/index.json")

    assert len(result.prices) == 12  # 5 on-demand + 7 reserved terms in us-east-1
    assert result.prices[0].source_url.endswith("us-east-1/index.csv")


def test_a_region_missing_from_the_region_index_is_an_error(samples: Path, tmp_path: Path) -> None:
    with pytest.raises(MalformedPayload, match="ap-south-2"):
        AwsPriceListFeed(root=mirror(samples, tmp_path)).fetch_region("ap-south-2")


def serve_bulk_api(server: LocalServer, samples: Path, offer: Reply | None = None) -> None:
    server.routes.update(
        {
            "/offers/v1.0/aws/index.json": Reply((samples / "aws-offer-index-sample.json").read_bytes()),
            "/offers/v1.0/aws/AmazonEC2/current/region_index.json": Reply(
                (samples / "aws-ec2-region-index-sample.json").read_bytes()
            ),
            VERSION_URL: offer or Reply((samples / "aws-ec2-offer-sample.json").read_bytes()),
        }
    )


def test_it_downloads_the_offer_file_over_http_and_deletes_it(
    samples: Path, tmp_path: Path, local_server: LocalServer, fast_client: HttpClient
) -> None:
    serve_bulk_api(local_server, samples)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    feed = AwsPriceListFeed(root=local_server.base_url, client=fast_client, download_dir=downloads)

    result = feed.fetch_region("us-east-1")

    assert len(result.prices) == 12
    assert result.prices[0].source_url == local_server.url(VERSION_URL)
    assert list(downloads.iterdir()) == []


def test_it_does_not_download_an_unchanged_version(
    samples: Path, local_server: LocalServer, fast_client: HttpClient
) -> None:
    serve_bulk_api(local_server, samples)
    feed = AwsPriceListFeed(root=local_server.base_url, client=fast_client)

    result = feed.fetch_region("us-east-1", last_version=VERSION_URL)

    assert result.skipped is True
    assert local_server.hits(VERSION_URL) == 0


def test_a_download_shorter_than_its_content_length_is_an_upstream_error(
    samples: Path, local_server: LocalServer, fast_client: HttpClient
) -> None:
    body = (samples / "aws-ec2-offer-sample.json").read_bytes()
    serve_bulk_api(local_server, samples, Reply(body[: len(body) // 2], content_length=len(body)))
    feed = AwsPriceListFeed(root=local_server.base_url, client=fast_client)

    with pytest.raises(UpstreamHTTPError, match=VERSION_URL):
        feed.fetch_region("us-east-1")


def test_an_offer_file_answering_503_fails_after_the_retries(
    samples: Path, local_server: LocalServer, fast_client: HttpClient
) -> None:
    serve_bulk_api(local_server, samples, Reply(b"unavailable", status=503))
    feed = AwsPriceListFeed(root=local_server.base_url, client=fast_client)

    with pytest.raises(UpstreamHTTPError, match="HTTP 503 after 2 retries"):
        feed.fetch_region("us-east-1")
    assert local_server.hits(VERSION_URL) == 3  # the first try and two retries


def test_a_single_offer_file_as_the_source_is_refused_in_a_sentence(samples: Path, tmp_path: Path) -> None:
    offer = mirror(samples, tmp_path) / VERSION_URL.lstrip("/")

    with pytest.raises(MissingSource, match="is not a folder: give the root of a mirror of the AWS price "
                                            "list .* not a single offer file"):
        AwsPriceListFeed(root=offer).fetch_region("us-east-1")


def test_a_region_listed_but_not_mirrored_is_named_not_a_traceback(samples: Path, tmp_path: Path) -> None:
    root = mirror(samples, tmp_path)
    (root / VERSION_URL.lstrip("/")).unlink()

    with pytest.raises(MissingSource, match="us-east-1/index.json: is not in the mirror"):
        AwsPriceListFeed(root=root).fetch_region("us-east-1")
