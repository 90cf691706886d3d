"""Azure Retail Prices: price kinds, reservation hourly rate, decoys, NextPageLink paging."""

from __future__ import annotations

import json
import shutil
from decimal import Decimal
from pathlib import Path
from urllib.parse import unquote

import pytest

from catalog.pricefeeds import AbsurdPrice
from catalog.pricefeeds import AzureRetailPricesFeed
from catalog.pricefeeds import HttpClient
from catalog.pricefeeds import MalformedPayload
from catalog.pricefeeds import PricingModel
from catalog.pricefeeds import RejectionReason
from catalog.pricefeeds import TruncatedPayload
from catalog.pricefeeds import UnknownCurrency
from catalog.pricefeeds import UpstreamHTTPError
from catalog.pricefeeds import azure_query_url
from catalog.pricefeeds.records import FeedResult

from .conftest import LocalServer
from .conftest import Reply

PAGE_1 = "azure-retail-prices-sample.json"
PAGE_2 = "azure-retail-prices-sample-page2.json"
H100 = "Standard_ND96isr_H100_v5"


def pages_dir(samples: Path, root: Path) -> Path:
    """The two sample pages in a directory, named so that name order is page order."""
    shutil.copy(samples / PAGE_1, root / "page-1.json")
    shutil.copy(samples / PAGE_2, root / "page-2.json")
    return root


def prices_by_key(result: FeedResult) -> dict[tuple[str, str, PricingModel], Decimal]:
    return {(p.instance_type, p.region, p.pricing_model): p.price_per_instance_hour for p in result.prices}


def test_it_reads_every_page_of_a_local_directory(samples: Path, tmp_path: Path) -> None:
    result = AzureRetailPricesFeed(location=pages_dir(samples, tmp_path)).fetch()

    assert prices_by_key(result) == {
        (H100, "eastus", PricingModel.ON_DEMAND): Decimal("98.32"),
        (H100, "eastus", PricingModel.SPOT): Decimal("18.169536"),
        # 1 Year reservation, retailPrice 551221.0 for the term:
        # 551221 / (1 x 8760 h) = 62.924771689497... -> 62.9247716895 USD/h
        (H100, "eastus", PricingModel.RESERVED_1Y): Decimal("62.9247716895"),
        # 3 Years reservation, retailPrice 1085220.0:
        # 1085220 / (3 x 8760 h) = 1085220 / 26280 = 41.294520547945... -> 41.2945205479
        (H100, "eastus", PricingModel.RESERVED_3Y): Decimal("41.2945205479"),
        ("Standard_ND96asr_v4", "eastus", PricingModel.ON_DEMAND): Decimal("27.197"),
        ("Standard_ND96asr_v4", "eastus", PricingModel.SPOT): Decimal("8.1591"),
        ("Standard_NC24ads_A100_v4", "eastus", PricingModel.ON_DEMAND): Decimal("3.673"),
        ("Standard_NC24ads_A100_v4", "eastus", PricingModel.SPOT): Decimal("1.1019"),
        (H100, "uksouth", PricingModel.ON_DEMAND): Decimal("122.9"),  # from page 2
        (H100, "uksouth", PricingModel.SPOT): Decimal("22.7119"),
    }
    reservation = next(p for p in result.prices if p.pricing_model == PricingModel.RESERVED_1Y)
    assert reservation.upfront_fee is None
    assert (reservation.accelerator_slug, reservation.accelerators_per_instance) == (
        "h100-sxm-80gb",
        8,
    )
    assert reservation.sku == "DZH318Z0CSHJ/02ZQ:5c2e7a3d-91f4-5b0e-a7c2-3f1d8e6b4a90"


def test_windows_low_priority_and_dev_test_rows_are_rejected(samples: Path, tmp_path: Path) -> None:
    result = AzureRetailPricesFeed(location=pages_dir(samples, tmp_path)).fetch()

    rejected = {(r.sku.split(":")[0], r.reason_code) for r in result.rejections}
    assert rejected == {
        ("DZH318Z0CSHK/004D", RejectionReason.LICENSED_OS),  # Windows, eastus and westeurope
        ("DZH318Z0CSHK/004G", RejectionReason.LOW_PRIORITY),  # Windows Low Priority, eastus
        ("DZH318Z0CSHJ/004H", RejectionReason.LOW_PRIORITY),  # Low Priority, uksouth
        ("DZH318Z0D1VN/001B", RejectionReason.DEV_TEST),
    }
    # The Windows row shares the Linux meterName; its 102.736 must not become a price.
    assert Decimal("102.736") not in {p.price_per_instance_hour for p in result.prices}
    assert "westeurope" not in {p.region for p in result.prices}


def test_pages_given_as_a_list_of_files_are_read_in_that_order(samples: Path) -> None:
    result = AzureRetailPricesFeed(location=[samples / PAGE_1, samples / PAGE_2]).fetch()

    assert len(result.prices) == 10


def test_a_missing_last_page_is_a_truncated_listing(samples: Path) -> None:
    # Page 1 links to a next page that was not supplied: reading it alone would lose rows.
    with pytest.raises(TruncatedPayload, match="next page that was not supplied"):
        AzureRetailPricesFeed(location=samples / PAGE_1).fetch()


def test_an_unmapped_n_series_size_is_reported(samples: Path, json_file) -> None:
    page = json.loads((samples / PAGE_2).read_text())
    page["Items"][0]["armSkuName"] = "Standard_NV6ads_A10_v5"
    path = json_file(page)

    result = AzureRetailPricesFeed(location=path).fetch()

    (unmapped,) = result.unmapped()
    assert unmapped.sku == "Standard_NV6ads_A10_v5"
    assert "uksouth" not in {p.region for p in result.prices if p.pricing_model == "on_demand"}


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("productName", "Virtual Machines Dedicated Host", RejectionReason.DEDICATED_TENANCY),
        ("productName", "NDsr H100 v5 Series Cloud Services", RejectionReason.OTHER_OFFER),
        ("reservationTerm", "5 Years", RejectionReason.OTHER_OFFER),
    ],
)
def test_other_vm_rows_are_rejected_with_their_reason(
    samples: Path, json_file, field: str, value: str, reason: RejectionReason
) -> None:
    page = json.loads((samples / PAGE_2).read_text())
    item = page["Items"][0]
    item[field] = value
    if field == "reservationTerm":
        item["type"] = "Reservation"
    page["Items"] = [item]
    path = json_file(page)

    result = AzureRetailPricesFeed(location=path).fetch()

    assert result.prices == ()
    assert [r.reason_code for r in result.rejections] == [reason]


def test_a_row_in_an_unknown_currency_aborts_the_run(samples: Path, json_file) -> None:
    page = json.loads((samples / PAGE_2).read_text())
    page["Items"][1]["currencyCode"] = "GBX"
    path = json_file(page)

    with pytest.raises(UnknownCurrency, match="GBX"):
        AzureRetailPricesFeed(location=path).fetch()


def test_an_absurd_price_aborts_the_run(samples: Path, json_file) -> None:
    page = json.loads((samples / PAGE_2).read_text())
    page["Items"][0]["retailPrice"] = 9832.0  # 9832 / 8 GPUs = 1229 per GPU-hour
    path = json_file(page)

    with pytest.raises(AbsurdPrice, match="1229.0 per accelerator-hour is above the ceiling of 1000"):
        AzureRetailPricesFeed(location=path).fetch()


def test_a_page_without_items_is_malformed(json_file) -> None:
    path = json_file({"BillingCurrency": "USD", "NextPageLink": None})

    with pytest.raises(MalformedPayload, match="no Items list"):
        AzureRetailPricesFeed(location=path).fetch()


def serve_pages(server: LocalServer, samples: Path, page_2: Reply | None = None) -> str:
    page_1 = (samples / PAGE_1).read_text()
    original_link = json.loads(page_1)["NextPageLink"]
    server.routes["/api/retail/prices"] = Reply(page_1.replace(original_link, server.url("/page-2")).encode())
    server.routes["/page-2"] = page_2 or Reply((samples / PAGE_2).read_bytes())
    return server.url("/api/retail/prices?api-version=2023-01-01-preview")


def test_it_follows_next_page_link_over_http(
    samples: Path, local_server: LocalServer, fast_client: HttpClient
) -> None:
    url = serve_pages(local_server, samples)

    result = AzureRetailPricesFeed(location=url, client=fast_client).fetch()

    assert len(result.prices) == 10
    assert [path for path, _ in local_server.requests] == [
        "/api/retail/prices?api-version=2023-01-01-preview",
        "/page-2",
    ]
    uksouth = next(p for p in result.prices if p.region == "uksouth")
    assert uksouth.source_url == local_server.url("/page-2")


def test_a_page_answering_5xx_fails_the_whole_run_after_retries(
    samples: Path, local_server: LocalServer, fast_client: HttpClient
) -> None:
    url = serve_pages(local_server, samples, page_2=Reply(b"busy", status=502))

    with pytest.raises(UpstreamHTTPError, match="HTTP 502 after 2 retries"):
        AzureRetailPricesFeed(location=url, client=fast_client).fetch()
    assert local_server.hits("/page-2") == 3


def test_a_page_that_times_out_fails_the_whole_run_after_retries(
    samples: Path, local_server: LocalServer, fast_client: HttpClient
) -> None:
    # The server answers after 1 s; the client gives up after 0.3 s, three times.
    url = serve_pages(local_server, samples, page_2=Reply((samples / PAGE_2).read_bytes(), delay_seconds=1.0))

    with pytest.raises(UpstreamHTTPError, match="timed out|Read timed out"):
        AzureRetailPricesFeed(location=url, client=fast_client).fetch()
    assert local_server.hits("/page-2") == 3


def test_the_default_query_asks_for_n_series_vm_rows() -> None:
    url = azure_query_url(regions=["eastus"])

    assert url.startswith("https://prices.azure.com/api/retail/prices?api-version=2023-01-01-preview")
    assert unquote(url.split("$filter=")[1]) == (
        "serviceName eq 'Virtual Machines' and contains(armSkuName, 'Standard_N') "
        "and (armRegionName eq 'eastus')"
    )
